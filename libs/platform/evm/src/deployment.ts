import {
  concat,
  encodeDeployData,
  getContractAddress,
  keccak256,
  toHex,
  type Account,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { EVM_NATIVE_ADDRESS, type ChainDescriptor } from '@ramp/chains';
import { evmPath } from './custody';
import { dec, ROUND_DOWN, toBaseUnits } from '@ramp/money';
import { CNGN_SYMBOL, SANDBOX_NGN_PER_USD, SANDBOX_USD_PRICES } from '@ramp/providers';
import { Forwarder, ForwarderFactory, IntentPool, TestToken, UniswapV2Factory, UniswapV2Router02, WrappedNative } from './artifacts.generated';
import type { DexContracts, PoolsSpec } from './dex-types';
import { pairAddress } from './pools';

export type { DexContracts, PoolSpec, PoolsSpec } from './dex-types';

/**
 * The deterministic deployment proxy (Arachnid's, at the same address on anvil and on most public chains): a
 * contract deployed through it with the same bytes and salt has the same address everywhere, so the platform's
 * addresses are known before deployment and a deployment run twice finds everything in place.
 */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
const SALT = keccak256(toHex('ramp-platform/v1'));

/**
 * The key that deploys the platform's own contracts on a live chain (`npm run chain:deploy`), in the live custody: never
 * a hot wallet's or a lane's (chain settings refuse a hot wallet under 4339'), so a deployment takes no nonce a send
 * queue counts on. The operator funds it with the gas the command asks for; it holds nothing else.
 */
export const LIVE_DEPLOYER_PATH = evmPath("m/44'/60'/4339'/0/0");

/** Where the deterministic deployment proxy puts `initCode` under `salt` (the platform's by default), on any chain. */
export function create2Address(initCode: Hex, salt: Hex = SALT): Address {
  return getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt, bytecode: initCode });
}

/** The deterministic deployment proxy's call that deploys `contract`: its salt, then its creation code. */
export function proxyCallData(contract: Planned): Hex {
  return concat([contract.salt ?? SALT, contract.initCode]);
}

/** A contract deployThroughProxy found without code and deployed, with the transaction that did. */
export interface ProxyDeployment {
  name: string;
  address: Address;
  hash: Hex;
}

/**
 * Deploys, through the deterministic deployment proxy, each of `contracts` that has no code yet, from any funded
 * account (the addresses depend on the bytes alone), and returns those it sent. Idempotent: a second run sends nothing.
 */
export async function deployThroughProxy(
  client: PublicClient,
  from: WalletClient & { account: Account },
  contracts: readonly Planned[],
): Promise<ProxyDeployment[]> {
  if (!(await client.getCode({ address: CREATE2_DEPLOYER }))) throw new Error(`the chain has no deterministic deployment proxy at ${CREATE2_DEPLOYER}`);
  const sent: ProxyDeployment[] = [];
  for (const contract of contracts) {
    if (await client.getCode({ address: contract.address })) continue;
    const hash = await from.sendTransaction({ account: from.account, chain: null, to: CREATE2_DEPLOYER, data: proxyCallData(contract) });
    await client.waitForTransactionReceipt({ hash });
    // A failed receipt with the code in place is another deployer's win (the same bytes at the same address): fine.
    if (!(await client.getCode({ address: contract.address }))) throw new Error(`deploying ${contract.name} failed (${hash})`);
    sent.push({ name: contract.name, address: contract.address, hash });
  }
  return sent;
}

export interface TestTokenSpec {
  symbol: string;
  name: string;
  decimals: number;
}

export interface PlatformContractsSpec {
  /** The test tokens (their minter is the faucet). */
  tokens: TestTokenSpec[];
  /** The wrapped native coin, and the registry's symbol of the native coin it wraps. */
  wrappedNative: { symbol: string; name: string; native: string };
  /** The faucet account: mints test tokens, funds the hot wallet's gas. */
  faucet: Address;
  /** The chain's hot wallet: the forwarders' parent and the only caller of their sweeps, and the intent pool's relayer. */
  hotWallet: Address;
  pools: PoolsSpec;
}

export interface PlatformContracts {
  tokens: Record<string, Address>;
  wrappedNative: Address;
  forwarderFactory: Address;
  dex: DexContracts;
  /** The intent bridge's pool (IntentPool.sol), whose relayer is the hot wallet. */
  intentPool: Address;
}

export interface Planned {
  name: string;
  initCode: Hex;
  address: Address;
  /** The proxy's salt: the platform's unless a published deployment has its own. */
  salt?: Hex;
}

function plan(spec: PlatformContractsSpec): { contracts: PlatformContracts; all: Planned[] } {
  const at = (name: string, initCode: Hex): Planned => ({ name, initCode, address: create2Address(initCode) });
  // What the provider receives at deployment: each pool's side of the token, and every pool's side of the hub.
  const supply = (symbol: string) =>
    symbol === spec.pools.hub
      ? spec.pools.pools.reduce((sum, pool) => sum + pool.hubUnits, 0n)
      : spec.pools.pools.filter((pool) => pool.token === symbol).reduce((sum, pool) => sum + pool.tokenUnits, 0n);
  const tokens = spec.tokens.map((token) =>
    at(
      token.symbol,
      encodeDeployData({
        abi: TestToken.abi,
        bytecode: TestToken.bytecode,
        args: [token.name, token.symbol, token.decimals, spec.faucet, spec.pools.provider, supply(token.symbol)],
      }),
    ),
  );
  const wrapped = at(
    spec.wrappedNative.symbol,
    encodeDeployData({ abi: WrappedNative.abi, bytecode: WrappedNative.bytecode, args: [spec.wrappedNative.name, spec.wrappedNative.symbol] }),
  );
  const forwarders = at(
    'ForwarderFactory',
    encodeDeployData({ abi: ForwarderFactory.abi, bytecode: ForwarderFactory.bytecode, args: [spec.hotWallet, spec.hotWallet] }),
  );
  const factory = at('UniswapV2Factory', encodeDeployData({ abi: UniswapV2Factory.abi, bytecode: UniswapV2Factory.bytecode, args: [spec.pools.provider] }));
  const router = at(
    'UniswapV2Router02',
    encodeDeployData({ abi: UniswapV2Router02.abi, bytecode: UniswapV2Router02.bytecode, args: [factory.address, wrapped.address] }),
  );
  const intents = at('IntentPool', encodeDeployData({ abi: IntentPool.abi, bytecode: IntentPool.bytecode, args: [spec.hotWallet] }));
  const tokenAddresses: Record<string, Address> = Object.fromEntries(tokens.map((token) => [token.name, token.address]));
  const pooled: Record<string, Address> = { ...tokenAddresses, [spec.wrappedNative.native]: wrapped.address };
  const hub = pooled[spec.pools.hub]!;
  return {
    contracts: {
      tokens: tokenAddresses,
      wrappedNative: wrapped.address,
      forwarderFactory: forwarders.address,
      dex: {
        factory: factory.address,
        router: router.address,
        pairs: Object.fromEntries(spec.pools.pools.map((pool) => [pool.token, pairAddress(factory.address, pooled[pool.token]!, hub)])),
        hub: spec.pools.hub,
        tokens: Object.fromEntries([spec.pools.hub, ...spec.pools.pools.map((pool) => pool.token)].map((symbol) => [symbol, pooled[symbol]!])),
        native: spec.wrappedNative.native,
      },
      intentPool: intents.address,
    },
    all: [...tokens, wrapped, forwarders, factory, router, intents],
  };
}

/** Each side of each pool on a local chain, in US dollars at the sandbox prices. */
export const LOCAL_POOL_DEPTH_USD = '2000000';
/** The token every local pool pairs with. */
export const LOCAL_POOL_HUB = 'USDC';

/**
 * The pools of a test chain: every token of the registry (the native coin as its wrapped token) against the hub, each
 * side worth `depthUsd` at the sandbox prices (CNGN at the sandbox's Naira per dollar), cut down to the token's decimals.
 */
export function poolsOf(chain: ChainDescriptor, provider: Address, depthUsd = LOCAL_POOL_DEPTH_USD, hub = LOCAL_POOL_HUB): PoolsSpec {
  const hubToken = chain.tokens.find((token) => token.symbol === hub);
  if (!hubToken) throw new Error(`${chain.chain} has no ${hub}: no hub for its pools`);
  const pools = chain.tokens
    .filter((token) => token.symbol !== hub)
    .map((token) => ({
      token: token.symbol,
      tokenUnits: unitsWorth(depthUsd, token.symbol, token.decimals),
      hubUnits: unitsWorth(depthUsd, hub, hubToken.decimals),
    }));
  return { provider, hub, pools };
}

/**
 * How much of a token `usd` US dollars buy at the sandbox prices (CNGN at the sandbox's Naira per dollar), in base units
 * of `decimals`, cut down: a pool's side, a relayer's inventory.
 */
export function unitsWorth(usd: string, symbol: string, decimals: number): bigint {
  const amount = symbol === CNGN_SYMBOL ? dec(usd).mul(SANDBOX_NGN_PER_USD) : dec(usd).div(priceOf(symbol));
  return toBaseUnits(amount.toDecimalPlaces(decimals, ROUND_DOWN).toFixed(), decimals);
}

function priceOf(symbol: string): string {
  const price = SANDBOX_USD_PRICES[symbol];
  if (price === undefined) throw new Error(`no sandbox price for ${symbol}: it cannot have a pool`);
  return price;
}

/**
 * The test contracts of a chain of the registry: a test token per token it lists, with that chain's decimals (USDT has
 * 6 on Base and 18 on BSC), and the wrapped native coin (WETH, WBNB).
 */
export function testContractsOf(chain: ChainDescriptor, faucet: Address, hotWallet: Address, provider: Address): PlatformContractsSpec {
  const native = chain.tokens.find((token) => token.contractAddress === EVM_NATIVE_ADDRESS);
  if (!native) throw new Error(`${chain.chain} has no native coin in the registry: not an EVM chain`);
  return {
    tokens: chain.tokens.filter((token) => token !== native).map((token) => ({ symbol: token.symbol, name: token.name, decimals: token.decimals })),
    wrappedNative: { symbol: `W${native.symbol}`, name: `Wrapped ${native.name}`, native: native.symbol },
    faucet,
    hotWallet,
    pools: poolsOf(chain, provider),
  };
}

/** Where the platform's contracts are (or will be) for these settings, without asking the chain. */
export function platformContractAddresses(spec: PlatformContractsSpec): PlatformContracts {
  return plan(spec).contracts;
}

/**
 * The forwarder factory of a hot wallet (its parent and only sweeper) as the deterministic deployment proxy deploys it,
 * on any chain: what `npm run chain:deploy` deploys on a live chain, whose tokens exist already.
 */
export function forwarderFactoryPlan(hotWallet: Address): Planned {
  const initCode = encodeDeployData({ abi: ForwarderFactory.abi, bytecode: ForwarderFactory.bytecode, args: [hotWallet, hotWallet] });
  return { name: 'forwarderFactory', initCode, address: create2Address(initCode) };
}

/** Where the forwarder factory of a hot wallet is (or will be), on any chain. */
export function forwarderFactoryAddress(hotWallet: Address): Address {
  return forwarderFactoryPlan(hotWallet).address;
}

/** The deposit address of `key` (a wallet or an off-ramp): a CREATE2 forwarder of the factory, deployed or not. */
export function depositAddressOf(forwarderFactory: Address, key: string): Address {
  return getContractAddress({ opcode: 'CREATE2', from: forwarderFactory, salt: depositSalt(key), bytecode: Forwarder.bytecode });
}

export function depositSalt(key: string): Hex {
  return keccak256(toHex(`deposit:${key}`));
}

/**
 * Deploys whatever of the platform's contracts is missing on a test chain (from any account: the addresses depend on
 * the bytes alone) and tops the hot wallet's gas up to `hotWalletGas` wei. Idempotent: a second run sends nothing.
 */
export async function deployPlatformContracts(
  client: PublicClient,
  faucet: WalletClient & { account: Account },
  spec: PlatformContractsSpec,
  hotWalletGas: bigint,
): Promise<PlatformContracts> {
  const { contracts, all } = plan(spec);
  await deployThroughProxy(client, faucet, all);
  const balance = await client.getBalance({ address: spec.hotWallet });
  if (balance < hotWalletGas) {
    const hash = await faucet.sendTransaction({ account: faucet.account, chain: null, to: spec.hotWallet, value: hotWalletGas - balance });
    await client.waitForTransactionReceipt({ hash });
  }
  return contracts;
}
