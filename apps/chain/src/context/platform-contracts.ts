import { getAddress, type Address, type Hex, type PublicClient } from 'viem';
import { EVM_NATIVE_ADDRESS, getChain, liveChainData, type ChainName } from '@ramp/chains';
import type { ChainNetwork, Environment } from '@ramp/contracts';
import {
  forwarderFactoryAddress,
  NATIVE_TOKEN,
  smartAccountContracts,
  platformContractAddresses,
  testContractsOf,
  type ChainSettings,
  type DexContracts,
  type PlatformContractsSpec,
} from '@ramp/evm';

/** The DEX the platform deploys on its test chains. */
export const DEX_NAME = 'Uniswap V2';

/** The platform's intent bridge on its local test chains (IntentPool.sol, relayed by the chain service). */
export const INTENT_BRIDGE_NAME = 'Ramp Intents';

/** A token of a chain as the chain service handles it. */
export interface ChainToken {
  symbol: string;
  decimals: number;
  /** The token's contract, lower case; NATIVE_TOKEN for the native coin. */
  address: Address;
}

/** The accounts a chain's contracts are planned for. */
export interface ChainAccounts {
  /** Mints the test tokens (local chains' faucet). */
  faucet: Address;
  hotWallet: Address;
  /** Deploys the platform's contracts on a local chain, and provides the pools' liquidity. */
  deployer: Address;
  /** The owner (deployer) of the environment's verifying paymaster: a chain with a bundler names its paymaster by it. */
  paymasterOwner: Address;
}

/** Where a chain's contracts are and what it carries, worked out from its settings alone. */
export interface ChainContracts {
  /** What the platform deploys on a test chain (on a local node itself); none on a live chain. */
  spec: PlatformContractsSpec | undefined;
  /** The platform's pools: on its local chains only. */
  dex: DexContracts | undefined;
  /** The chain as the chains list shows it. */
  network: ChainNetwork;
  tokens: ChainToken[];
}

/**
 * A chain's contracts, without asking the chain. Test chains carry the platform's test tokens and pools (deployed by the
 * platform on local nodes, by the operator on a public test network); live chains the tokens of their committed live
 * configuration (@ramp/chains LIVE_CHAINS: only those a primary source confirms), and no pools of the platform's. A
 * live chain without one is refused: nothing guessed is run with real funds.
 */
export function chainContractsOf(environment: Environment, settings: ChainSettings, accounts: ChainAccounts): ChainContracts {
  const registered = getChain(settings.chain as ChainName);
  const live = environment === 'live' ? liveChainData(settings.chain) : undefined;
  if (environment === 'live' && !live) throw new Error(`${settings.chain} has no committed live configuration (@ramp/chains LIVE_CHAINS): it cannot run live`);
  if (live && live.chainId !== settings.chainId)
    throw new Error(`${settings.chain}'s live configuration is chain id ${live.chainId}, but its settings say ${settings.chainId}`);
  // Live: the registry's entries of the tokens the live configuration offers, at its addresses (live-chains.spec.ts
  // keeps the two equal); the others are withheld.
  const descriptor = live
    ? {
        ...registered,
        tokens: registered.tokens.filter(
          (token) => token.contractAddress === EVM_NATIVE_ADDRESS || live.tokens.some((offered) => offered.symbol === token.symbol),
        ),
      }
    : registered;
  const local = settings.localPort !== undefined;
  const spec = environment === 'test' ? testContractsOf(descriptor, accounts.faucet, accounts.hotWallet, accounts.deployer) : undefined;
  const deployed = spec && platformContractAddresses(spec);
  // The pools are the platform's on its local chains only: it seeds them there. A public test network has none of its.
  const dex = local ? deployed?.dex : undefined;
  const contracts: ChainNetwork['contracts'] = deployed
    ? {
        tokens: deployed.tokens,
        wrappedNative: deployed.wrappedNative,
        forwarderFactory: deployed.forwarderFactory,
        ...(dex && { dex: { name: DEX_NAME, factory: dex.factory, router: dex.router, hub: dex.hub, pairs: dex.pairs } }),
        // Like the pools, the intent pool is the platform's on its local chains only, where it relays.
        ...(local && { bridge: { name: INTENT_BRIDGE_NAME, pool: deployed.intentPool } }),
      }
    : {
        tokens: Object.fromEntries((live?.tokens ?? []).map((token) => [token.symbol, getAddress(token.address)])),
        wrappedNative: getAddress(live?.wrappedNative?.address ?? EVM_NATIVE_ADDRESS),
        forwarderFactory: forwarderFactoryAddress(accounts.hotWallet),
        // A live chain's DEX is a third party's: its pairs are the factory's to tell (findLiveDex, when the chain is
        // taken up), and the wrapped native coin the router's where no primary source names it.
        ...(live && {
          dex: {
            name: live.dex.name,
            factory: getAddress(live.dex.factory.address),
            router: getAddress(live.dex.router.address),
            hub: live.dex.hub,
            pairs: {},
          },
        }),
      };
  // A chain with a bundler has the smart accounts' parts (EntryPoint, factory, the platform's paymaster): checked at start.
  if (settings.bundlerUrl !== undefined) contracts.smartAccounts = smartAccountContracts(accounts.paymasterOwner);
  const tokens = descriptor.tokens.map((token) => ({
    symbol: token.symbol,
    decimals: token.decimals,
    address: (token.contractAddress === EVM_NATIVE_ADDRESS ? NATIVE_TOKEN : contracts.tokens[token.symbol]!.toLowerCase()) as Address,
  }));
  const network: ChainNetwork = {
    chain: settings.chain,
    chainId: settings.chainId,
    confirmations: settings.confirmations,
    hotWallet: accounts.hotWallet,
    contracts,
    faucet: environment === 'test' && local,
  };
  return { spec, dex, network, tokens };
}

/**
 * Every contract a chain's network names (its tokens, the wrapped native coin, the forwarder factory, the DEX's factory,
 * router and, where the platform deployed them (a local chain), its pairs; the intent pool, the smart accounts'
 * EntryPoint, factory and paymaster), by what it is for: `tokens.USDC`, `dex.router`, ... A live DEX's pairs are not
 * named: anyone may create one, the factory (named, and pinned on a live chain) is the record of which exist and
 * creates each with its own code, and a pair appearing must not stop the chain.
 */
export function namedContracts(network: ChainNetwork): [string, Address][] {
  const { contracts } = network;
  const named: [string, string][] = [
    ...Object.entries(contracts.tokens).map(([symbol, address]): [string, string] => [`tokens.${symbol}`, address]),
    ['forwarderFactory', contracts.forwarderFactory],
  ];
  if (getAddress(contracts.wrappedNative) !== getAddress(EVM_NATIVE_ADDRESS)) named.push(['wrappedNative', contracts.wrappedNative]);
  if (contracts.dex)
    named.push(
      ['dex.factory', contracts.dex.factory],
      ['dex.router', contracts.dex.router],
      ...(network.faucet ? Object.entries(contracts.dex.pairs) : []).map(([symbol, pair]): [string, string] => [`dex.pairs.${symbol}`, pair]),
    );
  if (contracts.bridge) named.push(['bridge.pool', contracts.bridge.pool]);
  if (contracts.smartAccounts)
    named.push(
      ['smartAccounts.entryPoint', contracts.smartAccounts.entryPoint],
      ['smartAccounts.accountFactory', contracts.smartAccounts.accountFactory],
      ['smartAccounts.paymaster', contracts.smartAccounts.paymaster],
    );
  return named.map(([name, address]) => [name, getAddress(address)]);
}

/**
 * The contracts of `network` with no code on the chain (`getCode`), by name: a chain whose contracts are not all there
 * (a public network where the operator has not deployed them, a wrong address) must not be run, or a deposit address
 * would receive funds no forwarder can sweep and a transfer would go to nothing.
 */
export function missingContracts(codes: readonly ContractCode[]): string[] {
  return codes.filter((entry) => !entry.code).map((entry) => `${entry.name} (${entry.address})`);
}

/** A contract the chain's network names, with its code on the chain (`getCode`), undefined where it has none. */
export interface ContractCode {
  name: string;
  address: Address;
  code: Hex | undefined;
}

/** The code of every contract `network` names (namedContracts), read at once. */
export async function contractCodes(client: Pick<PublicClient, 'getCode'>, network: ChainNetwork): Promise<ContractCode[]> {
  const named = namedContracts(network);
  const codes = await Promise.all(named.map(([, address]) => client.getCode({ address })));
  return named.map(([name, address], index) => ({ name, address, code: codes[index] && codes[index] !== '0x' ? codes[index] : undefined }));
}
