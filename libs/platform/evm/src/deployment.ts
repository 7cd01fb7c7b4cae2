import { concat, encodeDeployData, getContractAddress, keccak256, toHex, type Account, type Address, type Hex, type PublicClient, type WalletClient } from 'viem';
import { EVM_NATIVE_ADDRESS, type ChainDescriptor } from '@ramp/chains';
import { Forwarder, ForwarderFactory, TestToken, WrappedNative } from './artifacts.generated';

/**
 * The deterministic deployment proxy (Arachnid's, at the same address on anvil and on most public chains): a
 * contract deployed through it with the same bytes and salt has the same address everywhere, so the platform's
 * addresses are known before deployment and a deployment run twice finds everything in place.
 */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
const SALT = keccak256(toHex('ramp-platform/v1'));

export interface TestTokenSpec {
  symbol: string;
  name: string;
  decimals: number;
}

export interface PlatformContractsSpec {
  /** The test tokens (their minter is the faucet). */
  tokens: TestTokenSpec[];
  wrappedNative: { symbol: string; name: string };
  /** The faucet account: deploys, mints test tokens, funds the hot wallet's gas. */
  faucet: Address;
  /** The chain's hot wallet: the forwarders' parent and the only caller of their sweeps. */
  hotWallet: Address;
}

export interface PlatformContracts {
  tokens: Record<string, Address>;
  wrappedNative: Address;
  forwarderFactory: Address;
}

interface Planned {
  name: string;
  initCode: Hex;
  address: Address;
}

function plan(spec: PlatformContractsSpec): { contracts: PlatformContracts; all: Planned[] } {
  const at = (name: string, initCode: Hex): Planned => ({ name, initCode, address: getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: SALT, bytecode: initCode }) });
  const tokens = spec.tokens.map((token) =>
    at(token.symbol, encodeDeployData({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: [token.name, token.symbol, token.decimals, spec.faucet] })),
  );
  const wrapped = at(spec.wrappedNative.symbol, encodeDeployData({ abi: WrappedNative.abi, bytecode: WrappedNative.bytecode, args: [spec.wrappedNative.name, spec.wrappedNative.symbol] }));
  const factory = at('ForwarderFactory', encodeDeployData({ abi: ForwarderFactory.abi, bytecode: ForwarderFactory.bytecode, args: [spec.hotWallet, spec.hotWallet] }));
  return {
    contracts: { tokens: Object.fromEntries(tokens.map((token) => [token.name, token.address])), wrappedNative: wrapped.address, forwarderFactory: factory.address },
    all: [...tokens, wrapped, factory],
  };
}

/**
 * The test contracts of a chain of the registry: a test token per token it lists, with that chain's decimals (USDT has
 * 6 on Base and 18 on BSC), and the wrapped native coin (WETH, WBNB).
 */
export function testContractsOf(chain: ChainDescriptor, faucet: Address, hotWallet: Address): PlatformContractsSpec {
  const native = chain.tokens.find((token) => token.contractAddress === EVM_NATIVE_ADDRESS);
  if (!native) throw new Error(`${chain.chain} has no native coin in the registry: not an EVM chain`);
  return {
    tokens: chain.tokens.filter((token) => token !== native).map((token) => ({ symbol: token.symbol, name: token.name, decimals: token.decimals })),
    wrappedNative: { symbol: `W${native.symbol}`, name: `Wrapped ${native.name}` },
    faucet,
    hotWallet,
  };
}

/** Where the platform's contracts are (or will be) for these settings, without asking the chain. */
export function platformContractAddresses(spec: PlatformContractsSpec): PlatformContracts {
  return plan(spec).contracts;
}

/** Where the forwarder factory of a hot wallet is (or will be), on any chain: for live chains, whose tokens exist already. */
export function forwarderFactoryAddress(hotWallet: Address): Address {
  const initCode = encodeDeployData({ abi: ForwarderFactory.abi, bytecode: ForwarderFactory.bytecode, args: [hotWallet, hotWallet] });
  return getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: SALT, bytecode: initCode });
}

/** The deposit address of `key` (a wallet or an off-ramp): a CREATE2 forwarder of the factory, deployed or not. */
export function depositAddressOf(forwarderFactory: Address, key: string): Address {
  return getContractAddress({ opcode: 'CREATE2', from: forwarderFactory, salt: depositSalt(key), bytecode: Forwarder.bytecode });
}

export function depositSalt(key: string): Hex {
  return keccak256(toHex(`deposit:${key}`));
}

/**
 * Deploys whatever of the platform's contracts is missing on a test chain, from the faucet account, and tops the hot
 * wallet's gas up to `hotWalletGas` wei. Idempotent: a second run sends nothing.
 */
export async function deployPlatformContracts(
  client: PublicClient,
  faucet: WalletClient & { account: Account },
  spec: PlatformContractsSpec,
  hotWalletGas: bigint,
): Promise<PlatformContracts> {
  const { contracts, all } = plan(spec);
  if (!(await client.getCode({ address: CREATE2_DEPLOYER }))) throw new Error(`the chain has no deterministic deployment proxy at ${CREATE2_DEPLOYER}`);
  for (const contract of all) {
    if (await client.getCode({ address: contract.address })) continue;
    const hash = await faucet.sendTransaction({ account: faucet.account, chain: null, to: CREATE2_DEPLOYER, data: concat([SALT, contract.initCode]) });
    await client.waitForTransactionReceipt({ hash });
    // A failed receipt with the code in place is another deployer's win (the same bytes at the same address): fine.
    if (!(await client.getCode({ address: contract.address }))) throw new Error(`deploying ${contract.name} failed (${hash})`);
  }
  const balance = await client.getBalance({ address: spec.hotWallet });
  if (balance < hotWalletGas) {
    const hash = await faucet.sendTransaction({ account: faucet.account, chain: null, to: spec.hotWallet, value: hotWalletGas - balance });
    await client.waitForTransactionReceipt({ hash });
  }
  return contracts;
}
