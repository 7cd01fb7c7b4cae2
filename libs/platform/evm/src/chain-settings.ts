import { evmPath, type EvmPath } from './custody';

/** What the platform needs to know of one EVM chain in one environment. */
export interface ChainSettings {
  /** The platform's chain name (libs/domain/chains): base, bsc, arbitrum, … */
  chain: string;
  chainId: number;
  /** The first of `rpcUrls`. */
  rpcUrl: string;
  /**
   * The chain's JSON-RPC nodes in order of preference (`rpcUrls`, or `rpcUrl` alone): the chain service fails over
   * between them, using only a node that answers on the chain's id within RPC_MAX_LAG_BLOCKS of the newest block any has
   * shown (RpcNodes, docs/chains.md "RPC nodes").
   */
  rpcUrls: string[];
  /** Blocks a deposit or a send must have before it counts (1: its own block). */
  confirmations: number;
  /**
   * `safe` or `finalized`: a deposit or a send also counts only once its block is at or below the node's block of that
   * tag (the chain's own finality, where it has one); `depth`: the number of confirmations alone. Live chains default to
   * `finalized`, and a live chain on `depth` needs at least LIVE_MIN_CONFIRMATIONS: never the block alone.
   */
  finality: Finality;
  /** The BIP-44 path of the chain's hot wallet under the custody seed. */
  hotWalletPath: EvmPath;
  /**
   * Send lanes: the hot wallet itself and `lanes - 1` more keys (lanePath), each with its own queue and nonces, so that
   * one chain's token transfers are signed, broadcast and followed in parallel (docs/chains.md, "Send lanes"). 1: the
   * hot wallet alone.
   */
  lanes: number;
  /**
   * What each extra lane is topped up to, in the native coin, by the hot wallet (when it falls below half): the gas of
   * its sends. Decimal string.
   */
  laneGas: string;
  /**
   * A local node the project starts itself (anvil on this port), onto which the platform deploys its own test
   * contracts. Absent for a public network (Base Sepolia, BSC testnet, a mainnet), whose contracts exist already.
   */
  localPort?: number;
  /**
   * The ERC-4337 bundler of the chain's smart accounts (managed wallets, docs/chains.md "Smart accounts"): a bundler
   * provider's JSON-RPC URL on a public network. Absent: the chain has no smart accounts.
   */
  bundlerUrl?: string;
  /** A local bundler the project starts itself (@pimlico/alto on this port) beside the chain's local node. */
  localBundlerPort?: number;
  /**
   * With a bundler: the least the paymaster's EntryPoint deposit may hold, in the native coin (decimal string), before
   * `ramp_chain_paymaster_deposits_low` counts the chain and the sponsored operations' gas runs out. Test chains
   * default to "1"; a live chain with a bundler must give it (its coin is worth something).
   */
  paymasterMinDeposit?: string;
}

export type Environment = 'test' | 'live';

export const FINALITIES = ['depth', 'safe', 'finalized'] as const;
export type Finality = (typeof FINALITIES)[number];

/** The fewest confirmations a live chain counting by depth alone may have (a reorganisation of a few blocks happens). */
export const LIVE_MIN_CONFIRMATIONS = 12;

/**
 * The accounts of a local test chain: anvil's public development mnemonic (it never holds value). The faucet mints the
 * test tokens and sends test coins (its own send queue); the deployer deploys the platform's contracts and tops the hot
 * wallets' gas up. Two accounts, so that a deployment (which sends directly) never races the faucet's queued nonces.
 */
export const LOCAL_CHAIN_ACCOUNTS = Object.freeze({
  mnemonic: 'test test test test test test test test test test test junk',
  faucetIndex: 0,
  deployerIndex: 1,
});

/** The send lanes of a local test chain, and the gas each extra lane is kept at (the local coin has no value). */
const LOCAL_LANES = 4;
const LOCAL_LANE_GAS = '1';
/** The least a test chain's paymaster deposit may hold (the local coin has no value; the chain service tops it up to 100). */
const LOCAL_PAYMASTER_MIN_DEPOSIT = '1';

/** The most send lanes a chain may have. */
export const MAX_LANES = 16;

/**
 * The key of a chain's send lane `lane` (0: the hot wallet itself): the hot wallet's path with its last index moved on
 * by `lane` (m/44'/60'/1'/0/0 → m/44'/60'/1'/0/2), so that every lane comes from the same seed, role and chain.
 */
export function lanePath(hotWalletPath: EvmPath, lane: number): EvmPath {
  const at = hotWalletPath.lastIndexOf('/');
  const last = hotWalletPath.slice(at + 1);
  const hardened = last.endsWith("'");
  const index = Number(hardened ? last.slice(0, -1) : last) + lane;
  return evmPath(`${hotWalletPath.slice(0, at)}/${index}${hardened ? "'" : ''}`);
}

/**
 * The test chains with no configuration: local anvil nodes with the chain ids of the public test networks they stand
 * for (Base Sepolia, BSC testnet, Arbitrum Sepolia), so that pointing `TEST_CHAINS` at those networks changes only URLs.
 * A local node mines a block per transaction (anvil's automine), so a block arrives only with a transaction: a depth of
 * 1 (the deposit's own block) is the one that credits without waiting for someone else's transaction. Depths above 1,
 * reorganisations and block times are tested on nodes of their own (evm.int-spec.ts).
 */
export const LOCAL_TEST_CHAINS: readonly ChainSettings[] = Object.freeze([
  {
    chain: 'base',
    chainId: 84532,
    rpcUrl: 'http://127.0.0.1:8545',
    rpcUrls: ['http://127.0.0.1:8545'],
    confirmations: 1,
    finality: 'depth',
    hotWalletPath: evmPath("m/44'/60'/1'/0/0"),
    lanes: LOCAL_LANES,
    laneGas: LOCAL_LANE_GAS,
    localPort: 8545,
    bundlerUrl: 'http://127.0.0.1:4337',
    localBundlerPort: 4337,
    paymasterMinDeposit: LOCAL_PAYMASTER_MIN_DEPOSIT,
  },
  {
    chain: 'bsc',
    chainId: 97,
    rpcUrl: 'http://127.0.0.1:8546',
    rpcUrls: ['http://127.0.0.1:8546'],
    confirmations: 1,
    finality: 'depth',
    hotWalletPath: evmPath("m/44'/60'/2'/0/0"),
    lanes: LOCAL_LANES,
    laneGas: LOCAL_LANE_GAS,
    localPort: 8546,
    bundlerUrl: 'http://127.0.0.1:4338',
    localBundlerPort: 4338,
    paymasterMinDeposit: LOCAL_PAYMASTER_MIN_DEPOSIT,
  },
  {
    chain: 'arbitrum',
    chainId: 421614,
    rpcUrl: 'http://127.0.0.1:8547',
    rpcUrls: ['http://127.0.0.1:8547'],
    confirmations: 1,
    finality: 'depth',
    hotWalletPath: evmPath("m/44'/60'/3'/0/0"),
    lanes: LOCAL_LANES,
    laneGas: LOCAL_LANE_GAS,
    localPort: 8547,
  },
]);

type Override = Partial<Record<keyof ChainSettings, unknown>> | null;

/** Thrown for a chain setting that is malformed: the message names the variable, the chain and the field. */
export class ChainSettingsError extends Error {
  override name = 'ChainSettingsError';
}

/**
 * The chains of an environment: for `test`, the local defaults with `overrides` merged field by field (a chain set to
 * null is turned off; a chain not in the defaults must give every field); for `live`, exactly what `overrides` gives.
 * `variable` names the setting in error messages (TEST_CHAINS, LIVE_CHAINS).
 */
export function resolveChains(environment: Environment, overrides: Record<string, Override> | undefined, variable: string): ChainSettings[] {
  const base = new Map<string, ChainSettings>(environment === 'test' ? LOCAL_TEST_CHAINS.map((chain) => [chain.chain, chain]) : []);
  for (const [chain, override] of Object.entries(overrides ?? {})) {
    if (override === null) {
      base.delete(chain);
      continue;
    }
    if (typeof override !== 'object' || Array.isArray(override)) throw new ChainSettingsError(`${variable}.${chain} must be an object or null`);
    const known = base.get(chain);
    // A chain given a URL of its own is no longer the local node, unless it names its local port again; nor is its
    // bundler the local one (a public network's is a provider's URL, given with it).
    const ownUrl = override.rpcUrl !== undefined || override.rpcUrls !== undefined;
    const local = known && !ownUrl && override.localPort === undefined ? known.localPort : override.localPort;
    // `"bundlerUrl": null` turns a chain's bundler off (docker-compose's chains, which run none).
    const keepsBundler = known && override.bundlerUrl === undefined && override.localBundlerPort === undefined && local !== undefined;
    const bundler = keepsBundler
      ? { bundlerUrl: known.bundlerUrl, localBundlerPort: known.localBundlerPort }
      : { bundlerUrl: override.bundlerUrl ?? undefined, localBundlerPort: override.bundlerUrl === null ? undefined : override.localBundlerPort };
    // Nodes given anew replace the known ones whole (`rpcUrls` alone drops the default `rpcUrl`).
    const urls = ownUrl ? { rpcUrl: override.rpcUrl, rpcUrls: override.rpcUrls } : { rpcUrl: known?.rpcUrl, rpcUrls: known?.rpcUrls };
    base.set(chain, validated(environment, { ...known, ...override, ...urls, chain, localPort: local, ...bundler }, `${variable}.${chain}`));
  }
  const settings = [...base.values()];
  const ids = settings.map((chain) => chain.chainId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) throw new ChainSettingsError(`${variable}: chain id ${duplicate} is given to two chains`);
  return settings;
}

function validated(environment: Environment, raw: Record<string, unknown>, where: string): ChainSettings {
  const { chain, chainId, hotWalletPath, localPort, bundlerUrl, localBundlerPort } = raw;
  const paymasterMinDeposit =
    bundlerUrl === undefined ? undefined : (raw['paymasterMinDeposit'] ?? (environment === 'test' ? LOCAL_PAYMASTER_MIN_DEPOSIT : undefined));
  const lanes = raw['lanes'] ?? 1;
  const laneGas = raw['laneGas'] ?? (environment === 'test' ? LOCAL_LANE_GAS : undefined);
  // A live chain counts at its finality unless told otherwise, never at its first block.
  const finality = raw['finality'] ?? (environment === 'live' ? 'finalized' : 'depth');
  const confirmations = raw['confirmations'] ?? (environment === 'live' && finality !== 'depth' ? 1 : undefined);
  if (!(FINALITIES as readonly unknown[]).includes(finality))
    throw new ChainSettingsError(`${where}.finality must be one of ${FINALITIES.join(', ')}, got ${JSON.stringify(finality)}`);
  const positive = (value: unknown, field: string, max: number) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
      throw new ChainSettingsError(`${where}.${field} must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}`);
    return value;
  };
  const id = positive(chainId, 'chainId', 2 ** 53 - 1);
  const depth = positive(confirmations, 'confirmations', 1000);
  if (environment === 'live' && finality === 'depth' && depth < LIVE_MIN_CONFIRMATIONS) {
    throw new ChainSettingsError(
      `${where}.confirmations must be at least ${LIVE_MIN_CONFIRMATIONS} for a live chain counting by depth alone (or set finality to safe or finalized), got ${depth}`,
    );
  }
  const rpcUrls = nodeUrls(raw['rpcUrl'], raw['rpcUrls'], where);
  const rpcUrl = rpcUrls[0]!;
  if (typeof hotWalletPath !== 'string') throw new ChainSettingsError(`${where}.hotWalletPath must be a BIP-44 path such as m/44'/60'/1'/0/0`);
  let path: EvmPath;
  try {
    path = evmPath(hotWalletPath);
  } catch (error) {
    throw new ChainSettingsError(`${where}.hotWalletPath: ${(error as Error).message}`);
  }
  // The smart accounts' keys live under these accounts (each wallet's owner, the paymaster's owner and signer), and the
  // live deployer's (chain:deploy) under 4339': a hot wallet there would sign with one of them, and its sends would take
  // the nonces the paymaster owner's deployment or the deployer's count on.
  if (/^m\/44'\/60'\/433[789]'/.test(path))
    throw new ChainSettingsError(
      `${where}.hotWalletPath must not be under m/44'/60'/4337', 4338' or 4339' (the smart accounts' and the deployer's keys), got ${path}`,
    );
  if (bundlerUrl !== undefined && (typeof bundlerUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(bundlerUrl)))
    throw new ChainSettingsError(`${where}.bundlerUrl must be an http(s) URL, got ${JSON.stringify(bundlerUrl)}`);
  if (localBundlerPort !== undefined && bundlerUrl === undefined)
    throw new ChainSettingsError(`${where}.localBundlerPort needs a bundlerUrl (http://127.0.0.1:<port>) to reach it`);
  if (localBundlerPort !== undefined && localPort === undefined)
    throw new ChainSettingsError(`${where}.localBundlerPort is for a local chain (one with a localPort): a public network's bundler is a provider's URL`);
  if (localBundlerPort !== undefined && typeof bundlerUrl === 'string' && new URL(bundlerUrl).port !== String(localBundlerPort))
    throw new ChainSettingsError(
      `${where}.bundlerUrl must name the localBundlerPort (${String(localBundlerPort)}) the local bundler listens on, got ${bundlerUrl}`,
    );
  if (bundlerUrl !== undefined && paymasterMinDeposit === undefined)
    throw new ChainSettingsError(`${where}.paymasterMinDeposit is required with a bundlerUrl: the least the paymaster's deposit may hold, such as "0.05"`);
  if (paymasterMinDeposit !== undefined && (typeof paymasterMinDeposit !== 'string' || !/^\d{1,18}(\.\d{1,18})?$/.test(paymasterMinDeposit)))
    throw new ChainSettingsError(`${where}.paymasterMinDeposit must be a decimal string such as "0.05", got ${JSON.stringify(paymasterMinDeposit)}`);
  const laneCount = positive(lanes, 'lanes', MAX_LANES);
  // A live chain's coin is worth something: how much gas each lane holds is an operator's decision, never a default.
  if (laneCount > 1 && laneGas === undefined)
    throw new ChainSettingsError(`${where}.laneGas is required with more than one lane: the native coin each lane is topped up to, such as "0.01"`);
  if (laneGas !== undefined && (typeof laneGas !== 'string' || !/^\d{1,18}(\.\d{1,18})?$/.test(laneGas) || /^0*(\.0*)?$/.test(laneGas)))
    throw new ChainSettingsError(`${where}.laneGas must be a decimal string above 0 such as "0.01", got ${JSON.stringify(laneGas)}`);
  return {
    chain: String(chain),
    chainId: id,
    rpcUrl,
    rpcUrls,
    confirmations: depth,
    finality: finality as Finality,
    hotWalletPath: path,
    lanes: laneCount,
    laneGas: (laneGas as string | undefined) ?? '0',
    ...(localPort !== undefined && { localPort: positive(localPort, 'localPort', 65535) }),
    ...(bundlerUrl !== undefined && { bundlerUrl: bundlerUrl as string }),
    ...(localBundlerPort !== undefined && { localBundlerPort: positive(localBundlerPort, 'localBundlerPort', 65535) }),
    ...(paymasterMinDeposit !== undefined && { paymasterMinDeposit: paymasterMinDeposit as string }),
  };
}

/** The most nodes a chain may list. */
const MAX_RPC_URLS = 8;

/** A chain's node URLs from `rpcUrls` (a list) or `rpcUrl` (one); given both, `rpcUrl` must be the list's first. */
function nodeUrls(rpcUrl: unknown, rpcUrls: unknown, where: string): string[] {
  const url = (value: unknown, field: string) => {
    if (typeof value !== 'string' || !/^(https?|wss?):\/\/[^\s]+$/.test(value))
      throw new ChainSettingsError(`${where}.${field} must be an http(s) or ws(s) URL, got ${JSON.stringify(value)}`);
    return value;
  };
  if (rpcUrls === undefined) return [url(rpcUrl, 'rpcUrl')];
  if (!Array.isArray(rpcUrls) || rpcUrls.length === 0 || rpcUrls.length > MAX_RPC_URLS)
    throw new ChainSettingsError(`${where}.rpcUrls must be a list of 1 to ${MAX_RPC_URLS} URLs, in order of preference`);
  const urls = rpcUrls.map((value, index) => url(value, `rpcUrls[${index}]`));
  if (new Set(urls).size !== urls.length) throw new ChainSettingsError(`${where}.rpcUrls lists a URL twice`);
  if (rpcUrl !== undefined && rpcUrl !== urls[0]) throw new ChainSettingsError(`${where}.rpcUrl, given with rpcUrls, must be its first`);
  return urls;
}
