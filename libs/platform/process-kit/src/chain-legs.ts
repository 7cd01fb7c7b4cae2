import { AppError, ChainBridge, ChainSwap, ChainTransfer, FaucetSend, platformTenant, type ChainNetwork, type Environment } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import { dec } from '@ramp/money';
import type { LegResult } from '@ramp/providers';
import { venuesOf, type Venues } from '@ramp/routing';
import { ChainNetworksReader } from '@ramp/service-kit';
import { finishedLeg } from './finished-legs';
import { finalOrPending, StepPending } from './step-pending';

/**
 * A leg's step asks the chain service once and, while the send is on its way, ends pending: its job slot is free for
 * other transactions while a block is mined. The chain service's `send.finished` event wakes the job (ChainSendWakes);
 * without it (the event late, a bridge's relayer at work) the job looks again after LEG_LOOK_AGAIN_MS. The same key
 * finds the same send every time.
 */
const LEG_LOOK_AGAIN_MS = 5_000;
/** How long a restock's request may take (it does not wait for the faucet to sign). */
const FAUCET_TIMEOUT_MS = 20_000;
/** When a restock the faucet has not signed yet is asked about again (the faucet's queue signs within a block or so). */
const RESTOCK_RETRY_MS = 500;

/**
 * The legs are the chain service's requests as they are: a swap's `idempotencyKey` is `<transaction id>:leg:<index>`
 * (`:reverse:<index>` for the way back); omitted, `recipient` leaves the output in the hot wallet (a wallet's credit,
 * the next leg's input); `account` is the ledger account its chain's side is booked against (ChainBooks).
 */
export type ChainSwapLeg = ChainSwap.Request;
/** A transfer names the transaction it pays out always (a refund's is its `refundOf`), e.g. `<transaction id>:settle`. */
export type ChainTransferLeg = ChainTransfer.Request & { paysOut: string };
/** A managed wallet's amount moved between its account and the hot wallet (fundFromWallet, giveBackToWallet). */
export type WalletFunding = Pick<
  ChainTransferLeg,
  'environment' | 'chain' | 'idempotencyKey' | 'tokenSymbol' | 'amount' | 'account' | 'paysOut' | 'organizationId' | 'fee'
> & {
  walletId: string;
};
/** A bridge by intent; `organizationId` is the transaction's (the sandbox's relayer switch holds its fills). */
export type ChainBridgeLeg = ChainBridge.Request;

/**
 * The steps of a transaction that run on chain, executed by the chain service from the hot wallets: swaps through the
 * platform's pools on its local test chains (ChainSwap), bridges by intent between them (ChainBridge), transfers
 * (ChainTransfer), and the sandbox issuer's mints into a hot wallet (FaucetSend). Each is sent once per key and answered
 * once final; StepPending while it is on its way. Knows which chains have pools and intent pools (ChainNetworksReader:
 * the chain service's networks, kept a minute, and the last known kept while the chain service does not answer).
 */
export class ChainLegs {
  private readonly networks: ChainNetworksReader;

  /** `service`: the calling service, named as the platform's caller toward the chain service. */
  constructor(
    private readonly rpc: Pick<RpcClient, 'call'>,
    private readonly service: string,
  ) {
    this.networks = new ChainNetworksReader(rpc);
  }

  private tenant(environment: Environment) {
    return platformTenant(environment, this.service);
  }

  /** The DEX and the intent bridge of each chain that has them for an environment. */
  async venues(environment: Environment): Promise<Venues> {
    return venuesOf(await this.chains(environment));
  }

  /** The chain service's networks of an environment; SERVICE_UNAVAILABLE while it has never answered. */
  async chains(environment: Environment): Promise<ChainNetwork[]> {
    try {
      return await this.networks.networks(this.tenant(environment));
    } catch (error) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `The chain service is not answering, so where the transaction runs cannot be decided: try again in a moment (${(error as Error).message})`,
      );
    }
  }

  /** An environment's network of a chain, or undefined when the chain service runs none there. */
  async network(environment: Environment, chain: string): Promise<ChainNetwork | undefined> {
    return (await this.chains(environment)).find((candidate) => candidate.chain === chain);
  }

  /**
   * A swap through the pools, once per key: its outcome once final (confirmed with what it gave; reverted or refused
   * with the reason, and for a minimum the pools could not meet, what they would have given). StepPending while it is
   * on its way (woken by the send's `send.finished`).
   */
  async swap(leg: ChainSwapLeg): Promise<LegResult> {
    const key = leg.idempotencyKey;
    // Woken by the swap's own send.finished: what it told is the answer (the same key finds the same swap).
    const told = finishedLeg('swap', key, leg);
    if (told?.amountOut !== undefined) return { ok: true, amountOut: told.amountOut, transactionHash: told.transactionHash, ...userOperationOf(told) };
    const answer = finalOrPending(
      await refusable(this.rpc.call(ChainSwap.contract, this.tenant(leg.environment), leg)),
      (value) => 'ok' in value || (value.status === 'confirmed' && value.amountOut !== undefined) || value.status === 'failed',
      (value) =>
        'ok' in value ? '' : `the swap ${key} is ${value.status} (${value.transactionHash ?? `not signed yet${value.waiting ? `: ${value.waiting}` : ''}`})`,
      LEG_LOOK_AGAIN_MS,
    );
    if ('ok' in answer) return answer;
    if (answer.status === 'confirmed')
      return {
        ok: true,
        amountOut: answer.amountOut!,
        transactionHash: answer.transactionHash!,
        ...userOperationOf(answer),
      };
    const reason = answer.transactionHash ? `${answer.error ?? 'reverted'} (reverted on chain)` : `${answer.error ?? 'refused'} (refused before it was sent)`;
    return {
      ok: false,
      reason,
      ...(answer.wouldGive !== undefined && { wouldGive: answer.wouldGive }),
      ...(answer.transactionHash !== undefined && { transactionHash: answer.transactionHash }),
    };
  }

  /**
   * A bridge by intent, once per key: filled on the destination (its fill's hash there, the leg's planned output), or
   * failed once the deposit was refunded after its deadline (the refund's hash) or the deposit itself failed.
   * StepPending while the relayer is at work (woken by its sends' `send.finished`).
   */
  async bridge(leg: ChainBridgeLeg): Promise<LegResult> {
    const { idempotencyKey: key, fromChain, toChain, amountOut } = leg;
    const answer = finalOrPending(
      await refusable(this.rpc.call(ChainBridge.contract, this.tenant(leg.environment), leg)),
      (value) => 'ok' in value || value.status !== 'pending',
      (value) =>
        'ok' in value
          ? ''
          : `the bridge ${key} is on its way (deposit ${value.depositHash ?? 'not signed yet'}, fill deadline ${new Date(value.fillDeadline * 1000).toISOString()})`,
      LEG_LOOK_AGAIN_MS,
    );
    if ('ok' in answer) return answer;
    if (answer.status === 'filled') return { ok: true, amountOut, transactionHash: answer.fillHash! };
    if (answer.status === 'refunded') {
      const deadline = new Date(answer.fillDeadline * 1000).toISOString();
      return {
        ok: false,
        reason: `the relayer did not fill the deposit on ${toChain} before its deadline (${deadline}); it was refunded on ${fromChain}`,
        transactionHash: answer.refundHash!,
      };
    }
    // The deposit failed (nothing left the hot wallet but gas), or its refunds did (an operator recovers the pool).
    return {
      ok: false,
      reason: `the bridge from ${fromChain} failed: ${answer.error ?? 'reverted'}`,
      ...((answer.refundHash ?? answer.depositHash) !== undefined && { transactionHash: (answer.refundHash ?? answer.depositHash)! }),
    };
  }

  /**
   * A transfer from the hot wallet, once per key: its hash once confirmed at the chain's depth, or the failure (reverted,
   * with its reason; refused before it was sent). StepPending while it is on its way.
   */
  async transfer(leg: ChainTransferLeg): Promise<LegResult> {
    const { idempotencyKey: key, amount } = leg;
    // Woken by the transfer's send.finished (a netted one's for each settlement it carried): what it told is the answer.
    const told = finishedLeg('transfer', key, leg);
    if (told?.amount !== undefined && dec(told.amount).eq(amount))
      return { ok: true, amountOut: amount, transactionHash: told.transactionHash, ...userOperationOf(told) };
    const answer = finalOrPending(
      await refusable(this.rpc.call(ChainTransfer.contract, this.tenant(leg.environment), leg)),
      (value) => 'ok' in value || value.status === 'confirmed' || value.status === 'failed',
      (value) =>
        'ok' in value
          ? ''
          : `the transfer ${key} is ${value.status} (${value.transactionHash ?? `not signed yet${value.waiting ? `: ${value.waiting}` : ''}`})`,
      LEG_LOOK_AGAIN_MS,
    );
    if ('ok' in answer) return answer;
    if (answer.status === 'confirmed')
      return {
        ok: true,
        amountOut: amount,
        transactionHash: answer.transactionHash!,
        ...userOperationOf(answer),
      };
    return {
      ok: false,
      reason: `the transfer ${key} failed on chain: ${answer.error ?? 'reverted'}`,
      ...(answer.transactionHash !== undefined && { transactionHash: answer.transactionHash }),
    };
  }

  /**
   * A managed wallet's held amount moved to the chain's hot wallet before a step that spends from there (a bridge's
   * deposit, the sandbox's rails, a CNGN off-ramp's settlement), once per key: from the wallet's own account in one
   * sponsored operation, with the fees kept at the source (`fee`), when its address is one; for a forwarder wallet,
   * whose funds the hot wallet holds, nothing moves (confirmed at once). Asked again, the same key answers that
   * transfer's outcome, never a second one. Undefined where the chain service runs no such chain (a wallet with a
   * simulated address: nothing of it is on chain).
   */
  async fundFromWallet(leg: WalletFunding): Promise<LegResult | undefined> {
    const network = await this.network(leg.environment, leg.chain);
    if (!network) return undefined;
    const { walletId, fee, ...transfer } = leg;
    return this.transfer({ ...transfer, fromWallet: walletId, to: network.hotWallet, ...(fee !== undefined && dec(fee).gt(0) && { fee }) });
  }

  /**
   * What fundFromWallet (or a first swap from the wallet) took, given back whole from the hot wallet to the wallet's
   * account before its hold is released (`toWallet`; for a forwarder wallet nothing moves), so that the account holds
   * what the books say. A failure on chain is thrown for an operator: the step is tried again, never skipped.
   */
  async giveBackToWallet(leg: Omit<WalletFunding, 'fee' | 'organizationId'>): Promise<void> {
    const { walletId, ...transfer } = leg;
    const back = await this.transfer({ ...transfer, toWallet: walletId });
    if (!back.ok) throw new Error(`giving ${leg.paysOut}'s funds back to its wallet failed on chain: ${back.reason}; an operator must look`);
  }

  /**
   * The sandbox issuer's mint of a test token into a local test chain's hot wallet (its faucet, once per key): what an
   * issuer does when it is paid (CNGN for Naira). Its hash once signed; the chain service books it as the treasury's
   * deposit when it is final.
   */
  async restock(leg: {
    environment: Environment;
    chain: string;
    idempotencyKey: string;
    tokenSymbol: string;
    amount: string;
  }): Promise<{ transactionHash: string }> {
    const network = await this.network(leg.environment, leg.chain);
    if (!network?.faucet) throw new Error(`${leg.chain} has no faucet in ${leg.environment}: nothing can restock its hot wallet`);
    const request: FaucetSend.Request = {
      chain: leg.chain,
      address: network.hotWallet,
      tokenSymbol: leg.tokenSymbol,
      amount: leg.amount,
      idempotencyKey: leg.idempotencyKey,
    };
    // Answered at once: a mint the faucet has not signed yet releases the step's slot and is asked for again (the same
    // key finds the same transfer), instead of holding the slot while the faucet's queue signs.
    const sent = await this.rpc.call(FaucetSend.contract, this.tenant(leg.environment), { ...request, waitMs: 0 }, { timeoutMs: FAUCET_TIMEOUT_MS });
    if ('queued' in sent) throw new StepPending(`the ${leg.chain} faucet has not signed ${leg.idempotencyKey} yet`, RESTOCK_RETRY_MS);
    return { transactionHash: sent.transactionHash };
  }
}

/** A leg's UserOperation hash, when a wallet's account sent it. */
function userOperationOf(leg: { userOperationHash?: string }): { userOperationHash?: string } {
  return leg.userOperationHash !== undefined ? { userOperationHash: leg.userOperationHash } : {};
}

/**
 * The chain service's answer, or the leg's failure when it refused the terms (INVALID_REQUEST; a reused key is a
 * CONFLICT): nothing was queued, and asking again would be refused again, so the leg fails and the route unwinds.
 * Anything else (the chain service down, say) is thrown, and the step is tried again later.
 */
async function refusable<T>(call: Promise<T>): Promise<T | LegResult> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_REQUEST') return { ok: false, reason: error.message };
    throw error;
  }
}
