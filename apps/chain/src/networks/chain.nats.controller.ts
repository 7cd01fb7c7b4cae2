import { Controller, Inject } from '@nestjs/common';
import { getAddress, maxUint256, type Address } from 'viem';
import { checkFaucetAmount, parseAddress, type ChainName } from '@ramp/chains';
import {
  AppError,
  ChainBridge,
  ChainHoldings,
  ChainWalletBalances,
  ChainNetworks,
  ChainPools,
  ChainSendsPause,
  ChainSwap,
  ChainTransfer,
  DepositAddressWatch,
  ENVIRONMENTS,
  FaucetSend,
  invalidField,
  sandboxOnly,
  RelayerPause,
  type Environment,
  type Tenant,
} from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { fromBaseUnits, parseAmount, toBaseUnits } from '@ramp/money';
import { RecordedWaits } from '@ramp/database';
import { isRevert, revertReasonOf } from '@ramp/evm';
import type { ChainContext } from '../context/chain-context';
import { ownerKey } from '../deposits/owner';
import type { ChainToken } from '../context/platform-contracts';
import type { ChainRuntime } from './chain-runtime';
import { Networks } from './networks';

/** How long a faucet request waits for its transfer to be signed and broadcast by the chain's leading replica. */
const FAUCET_BROADCAST_WAIT_MS = 15_000;

/** How long a faucet request waits for its transfer to be signed: `waitMs` (0 to 15 s) when given, else 15 s. */
function waitOf(waitMs: unknown): number {
  if (waitMs === undefined) return FAUCET_BROADCAST_WAIT_MS;
  if (typeof waitMs !== 'number' || !Number.isInteger(waitMs) || waitMs < 0 || waitMs > FAUCET_BROADCAST_WAIT_MS)
    throw invalidField('waitMs', `must be an integer from 0 to ${FAUCET_BROADCAST_WAIT_MS}`);
  return waitMs;
}

@Controller()
export class ChainNatsController {
  constructor(
    @Inject(Networks) private readonly networks: Networks,
    @Inject(RecordedWaits) private readonly waits: RecordedWaits,
  ) {}

  @Handles(ChainNetworks.contract)
  async list(@RequestData() request: ChainNetworks.Request): Promise<ChainNetworks.Response> {
    const environment = environmentOf(request.environment);
    const runtimes = this.networks.of(environment);
    // A live chain's DEX as this replica found it (its pairs, and on bsc the wrapped native coin its router names),
    // looked for in the background when it has not yet: the list does not wait on a node (chainsOf leaves out a DEX
    // whose wrapped native coin is not known yet).
    for (const runtime of runtimes) void runtime.context.findPools().catch(() => undefined);
    return { environment, networks: runtimes.map((runtime) => runtime.context.network) };
  }

  /** The reserves of a chain's pools at a recent block (a live chain's with their averages), for the quote service. */
  @Handles(ChainPools.contract)
  async pools(@RequestData() request: ChainPools.Request): Promise<ChainPools.Response> {
    const runtime = this.networks.get(environmentOf(request.environment), request.chain);
    const read = await runtime.pools.read();
    return {
      chain: runtime.chain,
      blockNumber: read.blockNumber.toString(),
      ...(read.blockTimestamp !== undefined && { blockTimestamp: read.blockTimestamp }),
      hub: read.hub,
      pools: read.pools.map((pool) => ({
        token: pool.token,
        tokenReserve: pool.tokenReserve.toString(),
        hubReserve: pool.hubReserve.toString(),
        ...(pool.average && { average: { hubPerToken: pool.average.hubPerToken.toFixed(), seconds: pool.average.seconds } }),
      })),
    };
  }

  @Handles(DepositAddressWatch.contract)
  async watch(@RequestData() request: DepositAddressWatch.Request, @CallerTenant() tenant: Tenant): Promise<DepositAddressWatch.Response> {
    const runtime = this.networks.get(environmentOf(request.environment), request.chain);
    if (typeof request.owner !== 'string' || !ownerKey(request.owner)) throw invalidField('owner', 'must be wallet:<wallet id> or offramp:<transaction id>');
    // Deposits are found from the watcher's checkpoint on: an address handed out before the chain's first pass could
    // receive funds the watcher never scans.
    if ((await runtime.deposits.checkpoint()) === undefined)
      throw new AppError('SERVICE_UNAVAILABLE', `The ${runtime.chain} chain is starting: try again in a moment`);
    const kind = request.kind ?? 'forwarder';
    if (kind !== 'forwarder' && kind !== 'account') throw invalidField('kind', 'must be forwarder or account');
    if (kind === 'account' && !request.owner.startsWith('wallet:')) throw invalidField('kind', "only a managed wallet's address is an account");
    if (kind === 'account' && !runtime.context.smartAccounts)
      throw invalidField('kind', `${runtime.chain} has no smart accounts (no bundler): its wallets' addresses are forwarders`, 'UNSUPPORTED_CHAIN');
    const given = (await runtime.deposits.given(request.owner))?.kind;
    if (given !== undefined && given !== kind)
      throw invalidField('kind', `${request.owner} was given a${given === 'account' ? 'n account' : ' forwarder'} already`);
    const address = await runtime.deposits.depositAddress(request.owner, kind);
    await runtime.deposits.watch(address, request.owner, tenant, kind);
    return { chain: runtime.chain, address, kind };
  }

  /** Test keys only: a mint (test token) or a transfer (test coin) from the local chain's faucet, once per key. */
  @Handles(FaucetSend.contract)
  async faucet(@RequestData() request: FaucetSend.Request, @CallerTenant() tenant: Tenant): Promise<FaucetSend.Response | FaucetSend.Queued> {
    sandboxOnly(tenant.environment);
    const runtime = this.networks.get('test', request.chain);
    if (!runtime.faucet) throw invalidField('chain', `${runtime.chain} is not a local test chain: use its public faucet`, 'UNSUPPORTED_CHAIN');
    const address = getAddress(parseAddress(runtime.chain as ChainName, request.address, 'address')) as Address;
    const token = typeof request.tokenSymbol === 'string' ? runtime.context.token(request.tokenSymbol) : undefined;
    if (!token) throw invalidField('tokenSymbol', `must be a token of ${runtime.chain}; see GET /transfer/chains`, 'UNSUPPORTED_TOKEN');
    const amount = parseAmount(request.amount, 'amount', token.decimals);
    checkFaucetAmount(token.symbol, amount);
    const key = `${tenant.organizationId}:${idempotencyKeyOf(request)}`;
    const faucet = runtime.faucet;
    const requested = await faucet.request(key, address, token, toBaseUnits(amount.toFixed(), token.decimals));
    const signedOrFailed = (found: typeof requested | undefined) => (found && (found.txHash || found.status === 'failed') ? found : undefined);
    const waitMs = waitOf(request.waitMs);
    const send =
      signedOrFailed(requested) ?? (waitMs > 0 ? await this.waits.until(async () => signedOrFailed(await faucet.find(key)), waitMs) : undefined) ?? requested;
    if (send.status === 'failed') throw new AppError('INTERNAL_ERROR', `The faucet's transfer failed: ${send.error ?? 'unknown reason'}`);
    // Not signed yet, and the caller does not wait (a step that releases its slot): it asks again with the same key.
    if (!send.txHash && request.waitMs !== undefined)
      return { chain: runtime.chain, address, tokenSymbol: token.symbol, amount: amount.toFixed(), queued: true };
    if (!send.txHash) {
      // Why, when the faucet's queue knows (halted, or out of gas): the caller gets that, not a timeout.
      const waiting = await runtime.context.faucet!.waiting();
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `The ${runtime.chain} faucet has not sent yet: ${waiting ?? 'the chain may be down'}; the same request later finds the same transfer`,
      );
    }
    return { chain: runtime.chain, address, tokenSymbol: token.symbol, amount: amount.toFixed(), transactionHash: send.txHash };
  }

  /** What the platform holds on each chain of an environment, for the ledger's reconciliation. */
  @Handles(ChainHoldings.contract)
  async holdings(@RequestData() request: ChainHoldings.Request): Promise<ChainHoldings.Response> {
    const environment = environmentOf(request.environment);
    const chains: ChainHoldings.ChainHolding[] = [];
    for (const runtime of this.networks.of(environment)) {
      const read = await runtime.holdings.read();
      if (!read) throw new AppError('SERVICE_UNAVAILABLE', `The ${runtime.chain} chain has not been scanned yet`);
      chains.push({
        chain: runtime.chain,
        blockNumber: read.blockNumber.toString(),
        holdings: [...read.holdings].map(([tokenSymbol, units]) => ({
          tokenSymbol,
          amount: fromBaseUnitsSigned(units, runtime.context.token(tokenSymbol)!.decimals),
        })),
      });
    }
    return { environment, chains };
  }

  /** What each managed wallet's account holds on a chain, a page at a time, for the ledger's reconciliation of each wallet. */
  @Handles(ChainWalletBalances.contract)
  async walletBalances(@RequestData() request: ChainWalletBalances.Request): Promise<ChainWalletBalances.Response> {
    const runtime = this.networks.get(environmentOf(request.environment), request.chain);
    if (request.after !== undefined && (typeof request.after !== 'string' || !WALLET_ID.test(request.after)))
      throw invalidField('after', 'must be the last wallet id of the previous page');
    if (request.limit !== undefined && (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > WALLET_PAGE_MAX))
      throw invalidField('limit', `must be a whole number from 1 to ${WALLET_PAGE_MAX}`);
    const limit = request.limit ?? WALLET_PAGE;
    const read = await runtime.holdings.wallets(request.after, limit);
    if (!read) throw new AppError('SERVICE_UNAVAILABLE', `The ${runtime.chain} chain has not been scanned yet`);
    const wallets = read.wallets.map(({ walletId, address, settled, balances }) => ({
      walletId,
      address,
      settled,
      balances: balances.map(({ token, units }) => ({ tokenSymbol: token.symbol, amount: fromBaseUnitsSigned(units, token.decimals) })),
    }));
    return {
      chain: runtime.chain,
      blockNumber: read.blockNumber.toString(),
      wallets,
      ...(wallets.length === limit && { next: wallets[wallets.length - 1]!.walletId }),
    };
  }

  /** A transfer from the hot wallet, for the platform's own services (a refund of a deposit): queued once per key. */
  @Handles(ChainTransfer.contract)
  async transfer(@RequestData() request: ChainTransfer.Request): Promise<ChainTransfer.Response> {
    const runtime = this.networks.get(environmentOf(request.environment), request.chain);
    // A wallet the chain never gave an address (made with a simulated one): its funds are nobody's on chain, so nothing
    // moves into it, as for a forwarder wallet.
    const into = request.toWallet === undefined ? undefined : ((await walletOn(runtime, request.toWallet, 'toWallet')) ?? { kind: 'forwarder' as const });
    const token = typeof request.tokenSymbol === 'string' ? runtime.context.token(request.tokenSymbol) : undefined;
    if (!token) throw invalidField('tokenSymbol', `must be a token of ${runtime.chain}`, 'UNSUPPORTED_TOKEN');
    const amount = parseAmount(request.amount, 'amount', token.decimals);
    if (request.refundOf !== undefined && (typeof request.refundOf !== 'string' || request.refundOf.length > 200))
      throw invalidField('refundOf', 'must be the id of a deposit');
    if (request.net !== undefined && typeof request.net !== 'boolean') throw invalidField('net', 'must be true or false');
    if (request.net && request.refundOf !== undefined) throw invalidField('net', 'a refund gives back one deposit as it arrived: it is never netted');
    if (into) {
      if (request.fromWallet !== undefined || request.refundOf !== undefined || request.net || request.fee !== undefined)
        throw invalidField('toWallet', "a transfer into a wallet's account is the hot wallet's alone: not with fromWallet, refundOf, net or fee");
      // A forwarder wallet's funds are the hot wallet's already: nothing moves, the books alone credit it.
      if (into.kind === 'forwarder') return { status: 'confirmed' };
    }
    const to = into && request.to === undefined ? into.address : (getAddress(parseAddress(runtime.chain as ChainName, request.to, 'to')) as Address);
    if (into && to.toLowerCase() !== into.address.toLowerCase()) throw invalidField('to', `must be the address of wallet ${request.toWallet}, ${into.address}`);
    if (request.fromWallet !== undefined) {
      const from = await knownWalletOn(runtime, request.fromWallet, 'fromWallet');
      if (from.kind === 'account') return this.transferFromWallet(runtime, request, to, token, amount.toFixed());
      // A forwarder wallet's funds are in the hot wallet already: to the hot wallet itself, nothing moves.
      if (to.toLowerCase() === runtime.context.hot.sender.toLowerCase()) return { status: 'confirmed' };
    }
    // From a forwarder wallet, whose funds were swept into the hot wallet: the hot wallet's transfer, its fee already there.
    if (request.fee !== undefined && request.fromWallet === undefined)
      throw invalidField('fee', 'only a transfer from a wallet (fromWallet) pays a fee in the same operation');
    const send = await runtime.transfers.request(idempotencyKeyOf(request), {
      ...(request.toWallet !== undefined && { toWallet: request.toWallet }),
      to,
      token,
      amount: amount.toFixed(),
      account: accountOf(request),
      refundOf: request.refundOf,
      paysOut: paysOutOf(request),
      organizationId: organizationOf(request),
      net: request.net === true,
    });
    // A netted settlement not yet in a transfer of its own: it goes out with the others at the next netting.
    if (!send) return { status: 'queued', waiting: runtime.transfers.nettingWaits };
    const waiting = send.status === 'queued' ? await runtime.context.waitingOf(send) : undefined;
    return { status: send.status, transactionHash: send.status === 'queued' ? undefined : send.txHash, error: send.error, ...(waiting && { waiting }) };
  }

  /** ChainTransfer from a managed wallet's account: one sponsored UserOperation, once per key (AccountOperations). */
  private async transferFromWallet(
    runtime: ChainRuntime,
    request: ChainTransfer.Request,
    to: Address,
    token: ChainToken,
    amount: string,
  ): Promise<ChainTransfer.Response> {
    const fromWallet = walletOf(request);
    const organizationId = sponsoredOrganizationOf(request);
    if (request.refundOf !== undefined) throw invalidField('refundOf', "a refund gives back a deposit from the hot wallet, never from a wallet's account");
    if (request.net) throw invalidField('net', "a wallet's transfer is its own operation: it is never netted");
    const fee = request.fee === undefined ? undefined : tokenAmount(request.fee, 'fee', token.decimals);
    const operation = await runtime.accounts.transfer(idempotencyKeyOf(request), {
      walletId: fromWallet,
      to,
      token,
      amount,
      ...(fee !== undefined && { fee }),
      account: accountOf(request),
      paysOut: paysOutOf(request),
      organizationId,
    });
    return {
      status: operation.status,
      ...(operation.transactionHash && operation.status !== 'queued' && { transactionHash: operation.transactionHash }),
      ...(operation.userOperationHash && { userOperationHash: operation.userOperationHash }),
      ...(operation.error && { error: operation.error }),
    };
  }

  /**
   * A swap on the platform's pools from the hot wallet, for the platform's own services (a swap leg of a route): queued
   * once per key. Failed for its minimum, the answer says what the pools would have given at the block that refused it.
   */
  @Handles(ChainSwap.contract)
  async swap(@RequestData() request: ChainSwap.Request): Promise<ChainSwap.Response> {
    const runtime = this.networks.get(environmentOf(request.environment), request.chain);
    const tokenOf = (field: 'fromToken' | 'toToken') => {
      const token = typeof request[field] === 'string' ? runtime.context.token(request[field]) : undefined;
      if (!token) throw invalidField(field, `must be a token of ${runtime.chain}`, 'UNSUPPORTED_TOKEN');
      return token;
    };
    const [fromToken, toToken] = [tokenOf('fromToken'), tokenOf('toToken')];
    const amountIn = tokenAmount(request.amountIn, 'amountIn', fromToken.decimals);
    // Never a minimum of 0: a swap that takes whatever the pools give gives it to whoever moves them first.
    if (typeof request.minimumOut === 'string' && /^0*(\.0*)?$/.test(request.minimumOut)) {
      throw invalidField('minimumOut', 'must be more than 0: a swap without a minimum gives whatever anyone who moves the pool first leaves it');
    }
    const minimumOut = tokenAmount(request.minimumOut, 'minimumOut', toToken.decimals);
    if (request.toWallet !== undefined && request.recipient !== undefined) throw invalidField('toWallet', 'not with recipient: one receives the output');
    // Into a wallet: its account, or for a forwarder wallet the hot wallet (which holds its funds).
    const into = request.toWallet === undefined ? undefined : await knownWalletOn(runtime, request.toWallet, 'toWallet');
    const to = into?.kind === 'account' ? into.address : recipientOn(runtime.context, request.recipient);
    if (request.fromWallet !== undefined && (await knownWalletOn(runtime, request.fromWallet, 'fromWallet')).kind === 'account')
      return this.swapFromWallet(runtime, request, { fromToken, toToken, amountIn, minimumOut, to });
    // From a forwarder wallet, whose funds were swept into the hot wallet: the hot wallet's swap, its fee already there.
    if (request.fee !== undefined && request.fromWallet === undefined)
      throw invalidField('fee', 'only a swap from a wallet (fromWallet) pays a fee in the same operation');
    const { send, amountOut } = await runtime.swaps.request(idempotencyKeyOf(request), {
      ...(into?.kind === 'account' && { toWallet: request.toWallet }),
      fromToken,
      toToken,
      amountIn,
      minimumOut,
      to,
      account: accountOf(request),
      paysOut: paysOutOf(request),
      organizationId: organizationOf(request),
    });
    const waiting = send.status === 'queued' ? await runtime.context.waitingOf(send) : undefined;
    const response: ChainSwap.Response = {
      status: send.status,
      transactionHash: send.status === 'queued' ? undefined : send.txHash,
      error: send.error,
      ...(waiting && { waiting }),
    };
    if (send.status === 'confirmed' && amountOut !== undefined) response.amountOut = fromBaseUnits(amountOut, toToken.decimals);
    if (send.status === 'failed') await wouldGiveOf(runtime, response, { fromToken, toToken, amountIn }, send.blockNumber);
    return response;
  }

  /** ChainSwap from a managed wallet's account: one sponsored UserOperation (approve, swap, fee), once per key. */
  private async swapFromWallet(
    runtime: ChainRuntime,
    request: ChainSwap.Request,
    terms: { fromToken: ChainToken; toToken: ChainToken; amountIn: string; minimumOut: string; to: Address },
  ): Promise<ChainSwap.Response> {
    const fromWallet = walletOf(request);
    const organizationId = sponsoredOrganizationOf(request);
    const fee = request.fee === undefined ? undefined : tokenAmount(request.fee, 'fee', terms.fromToken.decimals);
    const operation = await runtime.accounts.swap(idempotencyKeyOf(request), {
      ...terms,
      walletId: fromWallet,
      ...(fee !== undefined && { fee }),
      account: accountOf(request),
      paysOut: paysOutOf(request),
      organizationId,
    });
    const response: ChainSwap.Response = {
      status: operation.status,
      ...(operation.transactionHash && operation.status !== 'queued' && { transactionHash: operation.transactionHash }),
      ...(operation.userOperationHash && { userOperationHash: operation.userOperationHash }),
      ...(operation.amountOut !== undefined && { amountOut: fromBaseUnits(operation.amountOut, terms.toToken.decimals) }),
      ...(operation.error && { error: operation.error }),
    };
    if (operation.status === 'failed') await wouldGiveOf(runtime, response, terms, operation.transactionHash ? operation.blockNumber : undefined);
    return response;
  }

  /**
   * A bridge by intent between two local chains, for the platform's own services (a bridge leg of a route): the deposit
   * queued once per key, then filled (or refunded) by the relayer; every call answers where it is.
   */
  @Handles(ChainBridge.contract)
  async bridge(@RequestData() request: ChainBridge.Request): Promise<ChainBridge.Response> {
    const environment = environmentOf(request.environment);
    const [from, to] = [this.networks.get(environment, request.fromChain, 'fromChain'), this.networks.get(environment, request.toChain, 'toChain')];
    const token = typeof request.token === 'string' ? request.token : '';
    const [input, output] = [from.context.token(token), to.context.token(token)];
    if (!input || !output) throw invalidField('token', `must be a token of both ${from.chain} and ${to.chain}`, 'UNSUPPORTED_TOKEN');
    const amountIn = tokenAmount(request.amountIn, 'amountIn', input.decimals);
    const amountOut = tokenAmount(request.amountOut, 'amountOut', output.decimals);
    const recipient = recipientOn(to.context, request.recipient);
    if (typeof request.organizationId !== 'string' || request.organizationId.length === 0)
      throw invalidField('organizationId', 'must name the organization whose transaction this is');
    return this.networks.relayer.request(from.context, idempotencyKeyOf(request), {
      to: to.context,
      token,
      amountIn,
      amountOut,
      recipient,
      account: accountOf(request),
      organizationId: request.organizationId,
      paysOut: paysOutOf(request),
    });
  }

  /** Pauses or resumes a chain's outbound sends (the ledger's reconciliation, when the books and the chain drift apart). */
  @Handles(ChainSendsPause.contract)
  async pauseSends(@RequestData() request: ChainSendsPause.Request): Promise<ChainSendsPause.Response> {
    const runtime = this.networks.get(environmentOf(request.environment), request.chain);
    if (typeof request.paused !== 'boolean') throw invalidField('paused', 'must be true or false');
    if (request.paused && (typeof request.reason !== 'string' || request.reason.length === 0 || request.reason.length > 2000))
      throw invalidField('reason', 'must say why, in 1 to 2000 characters');
    await runtime.context.setPause(request.paused ? request.reason : undefined);
    return { chain: runtime.chain, paused: request.paused, ...(request.paused && { reason: request.reason }) };
  }

  /** Test keys only: the sandbox's relayer switch, holding or releasing the fills of the caller's organization's deposits. */
  @Handles(RelayerPause.contract)
  async pauseRelayer(@RequestData() request: RelayerPause.Request, @CallerTenant() tenant: Tenant): Promise<RelayerPause.Response> {
    sandboxOnly(tenant.environment, request.environment);
    if (typeof request.paused !== 'boolean') throw invalidField('paused', 'must be true or false');
    if (typeof request.organizationId !== 'string' || request.organizationId.length === 0) throw invalidField('organizationId', 'must name an organization');
    await this.networks.relayer.pause('test', request.organizationId, request.paused);
    return { paused: request.paused };
  }
}

/**
 * A swap failed for its minimum: what the pools would have given, at the block that reverted it (refused before it
 * was sent: the latest), added to its answer.
 */
async function wouldGiveOf(
  runtime: ChainRuntime,
  response: ChainSwap.Response,
  terms: { fromToken: ChainToken; toToken: ChainToken; amountIn: string },
  blockNumber: bigint | undefined,
): Promise<void> {
  if (!/INSUFFICIENT_OUTPUT_AMOUNT/.test(response.error ?? '')) return;
  const wouldGive = await runtime.swaps.quote(terms, blockNumber).catch((error: unknown) => {
    // A pool that cannot price it at all (emptied): no figure, the reason says enough. Otherwise try again later.
    if (isRevert(error)) return undefined;
    throw new AppError('SERVICE_UNAVAILABLE', `The ${runtime.chain} pools could not be read: ${revertReasonOf(error)}`);
  });
  if (wouldGive !== undefined) response.wouldGive = fromBaseUnits(wouldGive, terms.toToken.decimals);
}

/** The wallet a request spends from (`fromWallet`): a managed wallet's id. */
function walletOf(request: { fromWallet?: unknown }): string {
  if (typeof request.fromWallet !== 'string' || !WALLET_ID.test(request.fromWallet)) throw invalidField('fromWallet', 'must be a wallet id');
  return request.fromWallet;
}

const WALLET_ID = /^wal_[0-9A-Za-z]{10,40}$/;
/** ChainWalletBalances' page: by default, and at most. */
const WALLET_PAGE = 200;
const WALLET_PAGE_MAX = 500;

type WalletOnChain = { address: Address; kind: 'forwarder' | 'account' };

/** A managed wallet's address on the chain and its kind, or undefined for a wallet the chain never gave one; `field` must be a wallet id. */
async function walletOn(runtime: ChainRuntime, walletId: unknown, field: string): Promise<WalletOnChain | undefined> {
  if (typeof walletId !== 'string' || !WALLET_ID.test(walletId)) throw invalidField(field, 'must be a wallet id');
  return runtime.deposits.given(`wallet:${walletId}`);
}

/**
 * walletOn, INVALID_REQUEST naming `field` for a wallet the chain never gave an address (nothing is moved, from the hot
 * wallet least of all, for a wallet it does not know).
 */
async function knownWalletOn(runtime: ChainRuntime, walletId: unknown, field: string): Promise<WalletOnChain> {
  const given = await walletOn(runtime, walletId, field);
  if (!given) throw invalidField(field, `${String(walletId)} is not a managed wallet on ${runtime.chain}`);
  return given;
}

/** An amount of a token sent on chain: a positive decimal with at most its decimals, that a uint256 can hold. */
function tokenAmount(raw: unknown, field: string, decimals: number): string {
  const amount = parseAmount(raw, field, decimals).toFixed();
  if (toBaseUnits(amount, decimals) > maxUint256) throw invalidField(field, 'is more than any token can hold');
  return amount;
}

/** Who receives a send's output on `chain`: the address given, or the hot wallet when none is. */
function recipientOn(chain: ChainContext, raw: unknown): Address {
  return raw === undefined ? chain.hot.sender : (getAddress(parseAddress(chain.chain as ChainName, raw, 'recipient')) as Address);
}

/** The idempotency key of a request of another service: 1 to 200 characters. */
function idempotencyKeyOf(request: { idempotencyKey?: unknown }): string {
  const key = request.idempotencyKey;
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) throw invalidField('idempotencyKey', 'must be a string of 1 to 200 characters');
  return key;
}

/** The organization a request names (optional), checked for its shape. */
/**
 * The organization an operation from a wallet's account is sponsored for (its gas booked against it, judged against
 * its budget, CHAIN_SPONSORED_GAS_BUDGETS): required, so that no operation escapes the budget by naming none.
 */
function sponsoredOrganizationOf(request: { organizationId?: unknown }): string {
  const organizationId = organizationOf(request);
  if (organizationId === undefined) throw invalidField('organizationId', "must name the organization an operation from a wallet's account is sponsored for");
  return organizationId;
}

function organizationOf(request: { organizationId?: unknown }): string | undefined {
  if (request.organizationId === undefined) return undefined;
  if (typeof request.organizationId !== 'string' || request.organizationId.length === 0 || request.organizationId.length > 100)
    throw invalidField('organizationId', 'must name an organization');
  return request.organizationId;
}

/**
 * What a send pays out (`paysOut`): the transaction whose hold or ledger entry it settles; a refund without one pays out
 * the deposit it gives back. Required: the chain service moves nothing it cannot tie to the books.
 */
function paysOutOf(request: { paysOut?: unknown; refundOf?: unknown }): string {
  const paysOut = request.paysOut ?? request.refundOf;
  if (typeof paysOut !== 'string' || paysOut.length === 0 || paysOut.length > 200)
    throw invalidField('paysOut', 'must name the transaction whose hold or ledger entry the send pays out');
  return paysOut;
}

/** The ledger account a movement is booked against, by name (`offramp-deposits`, `route-execution`). */
function accountOf(request: { account?: unknown }): string {
  if (typeof request.account !== 'string' || !/^[a-z][a-z0-9-]{0,40}$/.test(request.account))
    throw invalidField('account', 'must be a ledger account name, like offramp-deposits');
  return request.account;
}

/** Base units as a decimal string, negative ones included (a drift the other way must show, not throw). */
function fromBaseUnitsSigned(units: bigint, decimals: number): string {
  return units < 0n ? `-${fromBaseUnits(-units, decimals)}` : fromBaseUnits(units, decimals);
}

function environmentOf(raw: unknown): Environment {
  if (!(ENVIRONMENTS as readonly unknown[]).includes(raw)) throw invalidField('environment', `must be one of ${ENVIRONMENTS.join(', ')}`);
  return raw as Environment;
}
