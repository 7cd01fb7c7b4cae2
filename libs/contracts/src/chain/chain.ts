import type { Environment } from '../rpc/tenant';
import { rpc } from '../rpc/rpc';
import { AppError } from '../errors/app-error';

/**
 * The chain service: the only process with signing keys and JSON-RPC access (docs/chains.md). Other services ask it
 * over NATS (these contracts) and hear back through its events (`events.chain.<type>`, chainEvents).
 */

/** How a chain's money moves for an environment: on its real chain, or on a sandbox rail with derived hashes. */
export const SETTLEMENTS = ['onchain', 'simulated'] as const;
export type Settlement = (typeof SETTLEMENTS)[number];

/** A chain the chain service runs for an environment, with where the platform's contracts are on it. */
export interface ChainNetwork {
  chain: string;
  chainId: number;
  confirmations: number;
  /** The omnibus hot wallet: where deposits are swept, what pays gas and sends. */
  hotWallet: string;
  /** The token contracts by symbol (the registry's tokens, deployed as test tokens on local chains), and the forwarder factory. */
  contracts: {
    tokens: Record<string, string>;
    wrappedNative: string;
    forwarderFactory: string;
    dex?: ChainDex;
    bridge?: ChainIntentBridge;
    smartAccounts?: ChainSmartAccounts;
  };
  /** A local test chain: the platform deployed its contracts there, and its faucet can send test tokens. */
  faucet: boolean;
}

/**
 * The platform's own DEX on a local test chain: Uniswap V2 (factory, router), with a pool of every token against the hub
 * (USDC), keyed by the registry's symbol of the token (the native coin's pool holds its wrapped token).
 */
export interface ChainDex {
  name: string;
  factory: string;
  router: string;
  hub: string;
  pairs: Record<string, string>;
}

/**
 * The platform's intent bridge on a local test chain (IntentPool.sol): a deposit into `pool` on the source chain, filled
 * on the destination chain's pool by the chain service as relayer (docs/chains.md, "Bridging").
 */
export interface ChainIntentBridge {
  name: string;
  pool: string;
}

/**
 * The ERC-4337 parts of a chain with a bundler (managed wallets' smart accounts, docs/chains.md "Smart accounts"):
 * EntryPoint v0.7 and its SimpleAccountFactory at their canonical addresses, and the platform's verifying paymaster.
 */
export interface ChainSmartAccounts {
  entryPoint: string;
  accountFactory: string;
  paymaster: string;
}

export namespace ChainNetworks {
  export interface Request {
    environment: Environment;
  }
  export interface Response {
    environment: Environment;
    networks: ChainNetwork[];
  }
  export const contract = rpc<Request, Response>('chain.v1.networks');
}

/**
 * The deposit address of `owner` (`wallet:<wallet id>`, `offramp:<transaction id>`) on a chain, watched from now on:
 * what arrives there is credited to the owner after the chain's confirmation depth (event deposit.credited).
 * Idempotent: the same owner is the same address. UNSUPPORTED_CHAIN when the environment has no such chain.
 */
export namespace DepositAddressWatch {
  export interface Request {
    environment: Environment;
    chain: string;
    owner: string;
    /**
     * What the address is (`forwarder` when absent): a forwarder whose deposits are swept into the hot wallet, or, for a
     * managed wallet (`wallet:<id>`) on a chain with smart accounts, the wallet's own ERC-4337 account, whose deposits
     * stay there (docs/chains.md, "Smart accounts"). The first call for an owner decides it: asked again with the other
     * kind, INVALID_REQUEST naming `kind`.
     */
    kind?: 'forwarder' | 'account';
  }
  export interface Response {
    chain: string;
    address: string;
    kind: 'forwarder' | 'account';
  }
  export const contract = rpc<Request, Response>('chain.v1.deposit-addresses.watch');
}

/**
 * Test chains only: the faucet sends `amount` of `tokenSymbol` (test tokens are minted, the native coin transferred) to
 * `address`, once per `idempotencyKey`; answers once the transfer is broadcast, with its hash. `waitMs` bounds that wait
 * (15 s when absent): 0 answers at once, `queued` (no hash yet) when the faucet has not signed it, so that a caller that
 * must not wait (a transaction's step, which releases its job slot) asks again with the same key.
 */
export namespace FaucetSend {
  export interface Request {
    chain: string;
    address: string;
    tokenSymbol: string;
    amount: string;
    idempotencyKey: string;
    waitMs?: number;
  }
  export interface Response {
    chain: string;
    address: string;
    tokenSymbol: string;
    amount: string;
    transactionHash: string;
  }
  /** Only with `waitMs`: the transfer is queued, not signed yet. */
  export type Queued = Omit<Response, 'transactionHash'> & { queued: true };
  /** The answer of a call that waited (no `waitMs`), which is signed; one still queued is SERVICE_UNAVAILABLE (ask again). */
  export function signed(answer: Response | Queued): Response {
    if ('queued' in answer)
      throw new AppError('SERVICE_UNAVAILABLE', `The ${answer.chain} faucet has not sent yet: the same request later finds the same transfer`);
    return answer;
  }
  export const contract = rpc<Request, Response | Queued>('chain.v1.faucet.send');
}

/**
 * A transfer from the chain's hot wallet (a refund of a deposit, say), once per `idempotencyKey`: the first call queues
 * it, every call answers where it is. `confirmed` is final at the chain's depth; `failed` carries the revert reason.
 */
export namespace ChainTransfer {
  export interface Request {
    environment: Environment;
    chain: string;
    idempotencyKey: string;
    /** Who receives it: required, except with `toWallet` (the wallet's own address then). */
    to?: string;
    tokenSymbol: string;
    amount: string;
    /** The ledger account the transfer is charged to, e.g. `offramp-deposits` (booked when it is final: send.finished). */
    account: string;
    /**
     * A refund: the `depositId` (DepositCredited) it gives back. The chain service sends it only to that deposit's sender,
     * in its token and exactly its amount, once per deposit whatever the key; INVALID_REQUEST naming the field otherwise.
     */
    refundOf?: string;
    /**
     * What the transfer pays out: the transaction whose hold or ledger entry it settles (an off-ramp's settlement, an
     * on-ramp's delivery), recorded beside the send (chain.outflows). Required, except for a refund, which pays out
     * its `refundOf`; INVALID_REQUEST naming `paysOut` without either.
     */
    paysOut?: string;
    /** The organization whose transaction it pays out: what its hourly outflow limit counts (CHAIN_OUTFLOW_LIMITS). */
    organizationId?: string;
    /**
     * A settlement that may go out netted (an off-ramp's CNGN to its provider): with CHAIN_SETTLEMENT_NET_MS above 0,
     * it is sent as one transfer with the other netted settlements to the same address, of the same token and account,
     * asked within that time, and answered with that transfer's status and hash (queued until it is made). Not with
     * `refundOf`. It says how the transfer is sent, not what: the first request under a key decides it.
     */
    net?: boolean;
    /**
     * From a managed wallet (its id): from its own account when its address is one (DepositAddressWatch `kind`), one
     * sponsored UserOperation that transfers `amount` to `to` and, in the same operation, `fee` (when given) to the hot
     * wallet; from the hot wallet for a forwarder wallet, whose funds were swept there (to the hot wallet itself, nothing
     * moves). Not with `refundOf` or `net`.
     */
    fromWallet?: string;
    /**
     * With `fromWallet`: the platform's fee, in the same token, paid to the hot wallet by the same operation (from a
     * forwarder wallet, whose funds the hot wallet holds already, it moves nothing).
     */
    fee?: string;
    /**
     * Into a managed wallet (an on-ramp's delivery, a failed route's way back): from the hot wallet to the wallet's own
     * account (`to`, when given, must be its address), a move within the platform's holdings, neither an outflow nor a deposit; for a
     * forwarder wallet, whose funds the hot wallet holds, nothing moves (`confirmed`, no hash). Not with `fromWallet`,
     * `refundOf`, `net` or `fee`.
     */
    toWallet?: string;
  }
  export interface Response {
    status: 'queued' | 'pending' | 'confirmed' | 'failed';
    /** The transaction that carried it: the hot wallet's send, or the bundle of an account's operation. */
    transactionHash?: string;
    /** From a wallet's account: its UserOperation's hash, once prepared. */
    userOperationHash?: string;
    error?: string;
    /** Queued: why the hot wallet's sends wait, when they do (its queue halted or paused, the wallet unable to pay). */
    waiting?: string;
  }
  export const contract = rpc<Request, Response>('chain.v1.transfers.send');
}

/**
 * A swap on the platform's pools of a local test chain (ChainDex), from the hot wallet through the router, once per
 * `idempotencyKey`: exactly `amountIn` of `fromToken` for at least `minimumOut` of `toToken`, or it reverts on chain
 * and moves nothing (but its gas). The first call queues it (with the router's approval of the token, once per token),
 * every call answers where it is. UNSUPPORTED_CHAIN for a chain without the platform's pools.
 */
export namespace ChainSwap {
  export interface Request {
    environment: Environment;
    chain: string;
    idempotencyKey: string;
    fromToken: string;
    toToken: string;
    /** Decimal strings in each token's units. */
    amountIn: string;
    /** More than 0, always (INVALID_REQUEST otherwise): a swap without a minimum gives whatever a front-runner leaves. */
    minimumOut: string;
    /** Who receives the output: an address (a transfer's or a swap's destination); omitted, the hot wallet (a managed wallet's credit). */
    recipient?: string;
    /** The ledger account the swap is booked against when final (send.finished), e.g. `route-execution`. */
    account: string;
    /** What the swap pays out: the transaction whose hold or ledger entry it settles, recorded beside the send. */
    paysOut: string;
    /** The organization whose transaction it is: what its hourly outflow limit counts, for a swap paid outside. */
    organizationId?: string;
    /**
     * From a managed wallet (its id; ChainTransfer's `fromWallet`): from its own account when its address is one, one
     * sponsored UserOperation that approves the router for `amountIn`, swaps it, and pays `fee` (when given, in
     * `fromToken`) to the hot wallet; from the hot wallet for a forwarder wallet (its fee is there already).
     */
    fromWallet?: string;
    /** With `fromWallet`: the platform's fee, in `fromToken`, paid to the hot wallet by the same operation. */
    fee?: string;
    /** Into a managed wallet: its account when it is one, else the hot wallet (which holds a forwarder wallet's funds). Not with `recipient`. */
    toWallet?: string;
  }
  export interface Response {
    status: 'queued' | 'pending' | 'confirmed' | 'failed';
    /** The transaction that carried it: the hot wallet's send, or the bundle of an account's operation. */
    transactionHash?: string;
    /** From a wallet's account: its UserOperation's hash, once prepared. */
    userOperationHash?: string;
    /** Confirmed: what the pools gave, read from the receipt's Swap event. */
    amountOut?: string;
    /** Failed for its minimum: what the pools would have given at the block that reverted it (refused before it was sent: the latest). */
    wouldGive?: string;
    error?: string;
    /** Queued: why the hot wallet's sends wait, when they do (its queue halted or paused, the wallet unable to pay). */
    waiting?: string;
  }
  export const contract = rpc<Request, Response>('chain.v1.swaps.send');
}

/**
 * A bridge by intent between two local test chains with the platform's intent pools (ChainIntentBridge), once per
 * `idempotencyKey`: the hot wallet of `fromChain` deposits `amountIn` of `token` into its pool for `amountOut` of the same
 * token to `recipient` on `toChain` (omitted: the destination's hot wallet, for the next leg or a wallet's credit), with
 * a fill deadline; the chain service, as relayer, fills it on `toChain` from that chain's hot wallet before the deadline
 * (then takes the deposit back as its repayment), or refunds it to the source hot wallet after an unfilled deadline.
 * The first call queues the deposit, every call answers where the bridge is. UNSUPPORTED_CHAIN for a chain without a
 * pool.
 */
export namespace ChainBridge {
  export interface Request {
    environment: Environment;
    fromChain: string;
    toChain: string;
    idempotencyKey: string;
    token: string;
    /** Decimal strings in the token's units on each chain. */
    amountIn: string;
    amountOut: string;
    recipient?: string;
    /** The ledger account each chain's side is booked against when final (send.finished), e.g. `route-execution`. */
    account: string;
    /** The organization whose transaction this is: the sandbox's relayer switch (RelayerPause) holds its fills. */
    organizationId: string;
    /** What the bridge pays out: the transaction whose hold or ledger entry it settles, recorded beside the deposit. */
    paysOut: string;
  }
  export interface Response {
    /**
     * `pending` until the fill or the refund is confirmed. `failed`: the deposit itself failed (nothing left the hot
     * wallet but gas), or its refunds failed for good (the deposit stays in the pool for an operator): either way the
     * caller gives its customer everything back.
     */
    status: 'pending' | 'filled' | 'refunded' | 'failed';
    /** Unix seconds: filled by then on `toChain`, else refunded after it. */
    fillDeadline: number;
    depositHash?: string;
    /** On `toChain`. */
    fillHash?: string;
    refundHash?: string;
    error?: string;
  }
  export const contract = rpc<Request, Response>('chain.v1.bridges.send');
}

/**
 * Test keys only: holds (`paused: true`) or releases the relayer's fills of one organization's bridge deposits, so that
 * a deposit's fill deadline can pass unfilled and the deposit be refunded (the sandbox's `POST /sandbox/relayer`).
 */
export namespace RelayerPause {
  export interface Request {
    environment: Environment;
    organizationId: string;
    paused: boolean;
  }
  export interface Response {
    paused: boolean;
  }
  export const contract = rpc<Request, Response>('chain.v1.relayer.pause');
}

/**
 * What the platform holds on each chain of an environment, read at the watcher's checkpoint: the hot wallet, plus the
 * deposit addresses not yet swept, less deposits seen but not yet credited, plus what hot-wallet sends mined but not
 * yet final took. The ledger's books of the chain must say the same (reconciliation).
 */
export namespace ChainHoldings {
  export interface Request {
    environment: Environment;
  }
  export interface ChainHolding {
    chain: string;
    blockNumber: string;
    /** Every token of the chain and its native coin, as decimal strings. */
    holdings: { tokenSymbol: string; amount: string }[];
  }
  export interface Response {
    environment: Environment;
    chains: ChainHolding[];
  }
  export const contract = rpc<Request, Response>('chain.v1.holdings');
}

/**
 * What each managed wallet whose address is a smart account holds on a chain, for the ledger's reconciliation of each
 * wallet with its balances (to the base unit): read at the watcher's checkpoint, a page of wallets at a time in wallet
 * id order (`after`: the last wallet id of the previous page; `limit` at most 500, 200 by default). Dust the account
 * received is left out (it is the platform's, never the wallet's). `settled: false` for an account with something on
 * its way at the checkpoint (a deposit seen and not yet credited, an operation of its own or a transfer or swap into
 * it not yet final): its balances are not yet what the books will say, and it is compared at a later round.
 * UNSUPPORTED_CHAIN for a chain that is not configured; SERVICE_UNAVAILABLE before its first scan.
 */
export namespace ChainWalletBalances {
  export interface Request {
    environment: Environment;
    chain: string;
    after?: string;
    limit?: number;
  }
  export interface WalletBalances {
    walletId: string;
    address: string;
    settled: boolean;
    /** Every token of the chain and its native coin that the account holds (none at 0), as decimal strings. */
    balances: { tokenSymbol: string; amount: string }[];
  }
  export interface Response {
    chain: string;
    blockNumber: string;
    wallets: WalletBalances[];
    /** The `after` of the next page; absent on the last. */
    next?: string;
  }
  export const contract = rpc<Request, Response>('chain.v1.wallets.balances');
}

/**
 * Pauses (`paused: true`, with the reason) or resumes the outbound sends of a chain's hot wallet: what the ledger's
 * reconciliation asks when the chain's books and holdings drift apart beyond noise, and again when they agree. A paused
 * chain signs nothing new (what is signed is still followed to its end); deposits are still watched and credited.
 */
export namespace ChainSendsPause {
  export interface Request {
    environment: Environment;
    chain: string;
    paused: boolean;
    reason?: string;
  }
  export interface Response {
    chain: string;
    paused: boolean;
    reason?: string;
  }
  export const contract = rpc<Request, Response>('chain.v1.sends.pause');
}

/**
 * The reserves of a chain's pools (ChainDex) at a recent block, in base units: what quotes are priced from. Read by the
 * chain service at most once per CHAIN_POOLS_MAX_AGE_MS, whatever the number of callers. UNSUPPORTED_CHAIN for a chain
 * without pools.
 */
export namespace ChainPools {
  export interface Request {
    environment: Environment;
    chain: string;
  }
  export interface Pool {
    /** The registry's symbol of the token paired with the hub. */
    token: string;
    tokenReserve: string;
    hubReserve: string;
    /**
     * A live chain's pool, once it has one: its time-weighted average price up to `blockNumber`, in hub base units per
     * token base unit, over `seconds` (at least POOL_AVERAGE_SECONDS).
     */
    average?: { hubPerToken: string; seconds: number };
  }
  export interface Response {
    chain: string;
    blockNumber: string;
    /** A live chain's: the timestamp (Unix seconds) of `blockNumber`'s block, by which a reader sees how old the prices are. */
    blockTimestamp?: number;
    hub: string;
    pools: Pool[];
  }
  export const contract = rpc<Request, Response>('chain.v1.pools');
}

/** The chain service's events: `events.chain.<type>`, stream CHAIN_EVENTS. */
export const CHAIN_EVENT_TYPES = {
  depositCredited: 'deposit.credited',
  depositReversed: 'deposit.reversed',
  sendFinished: 'send.finished',
  treasuryOpened: 'treasury.opened',
} as const;

/**
 * The chain service began watching a hot wallet: what it already held at that block (a hot wallet funded before, or a
 * local chain that outlived the database), booked as the treasury's opening balance. Once per hot wallet.
 */
export interface TreasuryOpened {
  environment: Environment;
  chain: string;
  blockNumber: string;
  holdings: { tokenSymbol: string; amount: string }[];
}

/**
 * A send of a hot wallet became final (confirmed at the depth, or failed): what the network cost, in the native coin,
 * and for a confirmed transfer, what left (ChainTransfer), for a confirmed swap what went in and came out (ChainSwap).
 * Once per send.
 */
export interface SendFinished {
  /** `<environment>-<chain>:<send id>`. */
  sendId: string;
  environment: Environment;
  chain: string;
  idempotencyKey: string;
  status: 'confirmed' | 'failed';
  transactionHash?: string;
  /** The gas paid, in the native coin (`nativeSymbol`); "0" when nothing was mined (refused at estimation). */
  gasCost: string;
  nativeSymbol: string;
  /**
   * A confirmed transfer (ChainTransfer): `amount` of `tokenSymbol` left the hot wallet for `to`, charged to `account`.
   * A netted one (ChainTransfer's `net`) carries its `shares`, one per settlement it paid (their amounts add up to
   * `amount`), each booked on its own.
   */
  transfer?: {
    tokenSymbol: string;
    amount: string;
    to: string;
    account: string;
    shares?: { idempotencyKey: string; paysOut: string; amount: string }[];
    /**
     * It stayed within the platform's holdings (the hot wallet into a wallet's account, ChainTransfer `toWallet`; a
     * wallet's account into the hot wallet): nothing to book but its gas.
     */
    internal?: true;
  };
  /**
   * A confirmed swap (ChainSwap): `amountIn` of `fromToken` left the hot wallet (or a wallet's account: `account`),
   * `amountOut` of `toToken` came out of the pools to `to`: into the platform's holdings (`intoHotWallet`: the hot
   * wallet, or the account that swapped, paid to itself), or to an address outside.
   */
  swap?: { fromToken: string; amountIn: string; toToken: string; amountOut: string; to: string; intoHotWallet: boolean; account: string };
  /**
   * A confirmed send of the intent bridge (ChainBridge) that moved the hot wallet's funds: the deposit (`out` to the
   * pool), a fill to an address outside (`out`), the relayer's repayment or a refund (`in` from the pool). A fill to
   * the hot wallet itself moves nothing, and has none.
   */
  bridge?: { role: 'deposit' | 'fill' | 'settle' | 'refund'; tokenSymbol: string; amount: string; direction: 'in' | 'out'; account: string };
  /**
   * An operation of a managed wallet's account (a `transfer` or a `swap` from it): its UserOperation's hash, the wallet, and the gas
   * the platform's paymaster paid for it (`sponsoredGasCost`, in the native coin, out of its EntryPoint deposit: not
   * the chain's holdings, so `gasCost` is "0"). What it moved left the platform's holdings from the account as from
   * the hot wallet; its fee to the hot wallet stays within them.
   */
  account?: { walletId: string; userOperationHash: string; sponsoredGasCost: string; fee?: string };
  error?: string;
}

/**
 * A deposit to a watched address reached the confirmation depth (once per deposit, whatever crashes around it). The
 * event's id is the same for every delivery: consumers credit once by `depositId`.
 */
export interface DepositCredited {
  /** `<environment>:<chain>:<transaction hash>:<log index>` (-1: the native coin). */
  depositId: string;
  environment: Environment;
  chain: string;
  owner: string;
  address: string;
  tokenSymbol: string;
  /**
   * The contract whose Transfer log it was (checksummed; `0xEeee…EEeE` for the native coin): with the chain, amount,
   * sender, hash and log index, what identifies the deposit everywhere it goes. Absent on events recorded before it.
   */
  tokenAddress?: string;
  /** The log's index in its block (-1: the native coin). Absent on events recorded before it. */
  logIndex?: number;
  /**
   * Below the token's minimum (dust): recorded and booked as the platform's, never credited to its owner, swept or
   * refunded (moving it would cost more than it is worth). Absent for every other deposit.
   */
  dust?: true;
  /**
   * Which credit of the deposit this is: 0 (or absent) its first; n after n reversals, when the chain took the same
   * transfer back in after a reorganisation had removed it (DepositReversed).
   */
  credit?: number;
  /** Decimal string in the token's units. */
  amount: string;
  transactionHash: string;
  from: string;
  blockNumber: string;
}

/**
 * A reorganisation removed a deposit that had been credited: its credit number `credit` is taken back (never silently:
 * the ledger books it, an off-ramp it funded fails or is flagged, a wallet's integrator is told). Once per credit.
 */
export interface DepositReversed extends DepositCredited {
  credit: number;
  /**
   * A refund of the deposit (ChainTransfer's `refundOf`) left the hot wallet or is on its way: what it sent back for a
   * deposit that never was is the platform's loss.
   */
  refunded: boolean;
}
