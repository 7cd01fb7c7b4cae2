import type { Pool, PoolClient } from 'pg';
import { getAddress, type Address, type Log } from 'viem';
import { AppError, invalidField, type ChainBridge, type Environment, type SendFinished } from '@ramp/contracts';
import { withTransaction } from '@ramp/database';
import { intentDepositCall, intentDepositIdOf, intentFillCall, intentRefundCall, intentSettleCall, type ChainLogger, type SendRecord } from '@ramp/evm';
import { bridgeMovement, bridgeOutcome, bridgeSendKey, bridgeStatusAfter, latestRefund, parseBridgeSendKey, type BridgeRole } from '@ramp/chains';
import { dec, toBaseUnits } from '@ramp/money';
import { CHAIN_SCHEMA } from '../context/chain-context';
import { advanceBridge, BRIDGE_COLUMNS, bridgeRow, bridgeRowOfSend, type BridgeRow, type BridgeTerms } from './bridge-rows';
import { bridgedTokenOn, intentPoolOf, type RelayChain } from './relay-chain';

/** A fill is not queued this close to its deadline (it could be mined after it, and revert). */
const FILL_MARGIN_SECONDS = 2;
/** A refund waits this long past the deadline (a block's timestamp may lag the clock a little). */
const REFUND_MARGIN_SECONDS = 2;
/** Most bridges each chain's pass moves along per kind (fills, repayments, refunds). */
const BATCH = 50;
/**
 * The relayer's part of a chain's pass runs at most this often (the passes run every CHAIN_POLL_MS, 10 ms by
 * default): a fill or a repayment waits at most this much longer, and the database is spared two queries per pass.
 */
const RELAYER_EVERY_MS = 200;

/** A refund that failed (a chain whose clock lags the deadline, say) is queued again this much later per failure. */
const REFUND_RETRY_SECONDS = 15;

/**
 * Whether the relayer may have work on the chain `$1`: a deposit bound for it not filled yet, or one made on it that is
 * filled or not final. Asked in the chain's pass's look (ChainRuntime); what tick selects is a part of it.
 */
export const RELAYER_WORK = `(exists (select 1 from ${CHAIN_SCHEMA}.bridges where to_chain = $1 and status = 'deposited')
  or exists (select 1 from ${CHAIN_SCHEMA}.bridges where from_chain = $1 and status in ('deposited', 'filled', 'unfilled')))`;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The platform's relayer of its intent bridge (IntentPool.sol on each local test chain; docs/chains.md, "Bridging"). A
 * bridge is a row of `chain.bridges` on its source chain, moved along by each chain's own pass (one replica runs a
 * chain at a time) and by the transaction that makes each of its sends final:
 *
 *   depositing ─deposit confirmed→ deposited ─fill queued (destination's pass)→ filling ─fill confirmed→ filled
 *   ─repayment queued (source's pass)→ settling → settled;
 *   deposited, or filling whose fill failed (unfilled) ─deadline passed (source's pass)→ refunding → refunded.
 *
 * Every step is a compare-and-set from the status it read, so a deposit is filled or refunded, never both (the contract
 * refuses a fill after the deadline and a refund before it as well), and every send has a key of its own
 * (`bridge:<key>:<role>`), so a pass repeated after a crash queues nothing twice.
 */
export class IntentRelayer {
  private readonly chains = new Map<string, RelayChain>();
  /** When each chain's relayer part last ran, by chain id. */
  private readonly lastTick = new Map<string, number>();

  constructor(
    private readonly options: {
      pool: Pool;
      logger: ChainLogger;
      /** Seconds from a bridge's request to its fill deadline. */
      fillSeconds: number;
    },
  ) {}

  /** Every chain the relayer works on: a row names its chains by id (`test-base`). */
  register(chain: RelayChain): void {
    this.chains.set(chain.id, chain);
  }

  /**
   * A bridge from `from`, once per key: the deposit (with the pool's approval of the token, once for good) is queued on
   * the first call; every call answers where the bridge is. IDEMPOTENCY_KEY_REUSED for the same key with other terms.
   */
  async request(from: RelayChain, key: string, terms: BridgeTerms): Promise<ChainBridge.Response> {
    const fromPool = intentPoolOf(from, 'fromChain');
    intentPoolOf(terms.to, 'toChain');
    if (terms.to.id === from.id) throw invalidField('toChain', 'must differ from fromChain');
    const [input, output] = [bridgedTokenOn(from, terms.token, 'token'), bridgedTokenOn(terms.to, terms.token, 'token')];
    const known = await bridgeRow(this.options.pool, key);
    if (known) return this.view(this.same(known, from, terms, key));
    const fillDeadline = nowSeconds() + this.options.fillSeconds;
    await withTransaction(this.options.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.bridges (from_chain, key, to_chain, organization_id, token, amount_in, amount_out, recipient, account, fill_deadline)
         values ($1, $2, $3, $4, $5, $6::numeric, $7::numeric, $8, $9, $10) on conflict do nothing`,
        [
          from.id,
          key,
          terms.to.id,
          terms.organizationId,
          terms.token,
          terms.amountIn,
          terms.amountOut,
          terms.recipient.toLowerCase(),
          terms.account,
          fillDeadline,
        ],
      );
      if (inserted.rowCount === 0) return;
      // Recorded with what it pays out; bridged to an address outside (not the destination's hot wallet), it leaves the
      // platform for good: it counts against the source chain's outflow limits.
      const outside = terms.recipient.toLowerCase() !== terms.to.hot.sender.toLowerCase();
      await from.outflows.record(tx, {
        sendKey: bridgeSendKey(key, 'deposit'),
        token: input,
        amount: terms.amountIn,
        paysOut: terms.paysOut,
        organizationId: terms.organizationId,
        counted: outside,
      });
      await from.approveSpender(tx, fromPool, input);
      const deposit = intentDepositCall(fromPool, {
        inputToken: input.address,
        inputAmount: toBaseUnits(terms.amountIn, input.decimals),
        destinationChainId: terms.to.network.chainId,
        outputToken: getAddress(output.address),
        outputAmount: toBaseUnits(terms.amountOut, output.decimals),
        recipient: terms.recipient,
        fillDeadline,
      });
      await from.enqueue(tx, 'bridge', bridgeSendKey(key, 'deposit'), deposit);
    });
    return this.view(this.same((await bridgeRow(this.options.pool, key))!, from, terms, key));
  }

  /** Test keys only: holds or releases the fills of one organization's deposits (the sandbox's relayer switch). */
  async pause(environment: Environment, organizationId: string, paused: boolean): Promise<void> {
    const sql = paused
      ? `insert into ${CHAIN_SCHEMA}.relayer_pauses (environment, organization_id) values ($1, $2) on conflict do nothing`
      : `delete from ${CHAIN_SCHEMA}.relayer_pauses where environment = $1 and organization_id = $2`;
    await this.options.pool.query(sql, [environment, organizationId]);
  }

  /**
   * The relayer's part of one chain's pass, when its look found work (RELAYER_WORK): fills of the deposits bound for it (unless their organization paused the
   * relayer, or their deadline is too close), repayments of the deposits made on it that were filled, and refunds of
   * those whose deadline passed unfilled.
   */
  async tick(chain: RelayChain): Promise<void> {
    const { pool } = this.options;
    const intents = chain.network.contracts.bridge?.pool as Address | undefined;
    if (!intents || Date.now() - (this.lastTick.get(chain.id) ?? 0) < RELAYER_EVERY_MS) return;
    this.lastTick.set(chain.id, Date.now());
    const now = nowSeconds();
    const { rows: fills } = await pool.query<BridgeRow>(
      `select ${BRIDGE_COLUMNS} from ${CHAIN_SCHEMA}.bridges b
        where to_chain = $1 and status = 'deposited' and fill_deadline > $2
          and not exists (select 1 from ${CHAIN_SCHEMA}.relayer_pauses p where p.environment = $3 and p.organization_id = b.organization_id)
        order by created_at limit ${BATCH}`,
      [chain.id, now + FILL_MARGIN_SECONDS, chain.environment],
    );
    for (const row of fills) {
      const origin = this.chains.get(row.from_chain);
      const token = chain.token(row.token);
      if (!origin || !token) continue;
      await withTransaction(pool, async (tx) => {
        // The pause is checked again here: one set since the select holds this fill too.
        if (!(await advanceBridge(tx, row, ['deposited'], 'filling', chain.environment))) return;
        await chain.approveSpender(tx, intents, token);
        const fill = intentFillCall(intents, origin.network.chainId, BigInt(row.deposit_id!), {
          outputToken: getAddress(token.address),
          outputAmount: toBaseUnits(dec(row.amount_out).toFixed(), token.decimals),
          recipient: getAddress(row.recipient),
          fillDeadline: Number(row.fill_deadline),
        });
        await chain.enqueue(tx, 'bridge', bridgeSendKey(row.key, 'fill'), fill);
      });
    }
    const { rows: mine } = await pool.query<BridgeRow>(
      `select ${BRIDGE_COLUMNS} from ${CHAIN_SCHEMA}.bridges
        where from_chain = $1 and (status = 'filled' or (status in ('deposited', 'unfilled') and fill_deadline < $2
          and (refund_attempts = 0 or updated_at < now() - make_interval(secs => $3 * refund_attempts))))
        order by created_at limit ${BATCH}`,
      [chain.id, now - REFUND_MARGIN_SECONDS, REFUND_RETRY_SECONDS],
    );
    for (const row of mine) {
      const settle = row.status === 'filled';
      const depositId = BigInt(row.deposit_id!);
      await withTransaction(pool, async (tx) => {
        if (!(await advanceBridge(tx, row, [row.status], settle ? 'settling' : 'refunding'))) return;
        const key = settle ? bridgeSendKey(row.key, 'settle') : bridgeSendKey(row.key, 'refund', row.refund_attempts);
        await chain.enqueue(tx, 'bridge', key, settle ? intentSettleCall(intents, depositId) : intentRefundCall(intents, depositId));
      });
      if (!settle)
        this.options.logger.info({ chain: chain.id, bridge: row.key, fillDeadline: row.fill_deadline }, 'bridge deposit unfilled past its deadline: refunding');
    }
  }

  /**
   * In the transaction that makes a send of `chain`'s hot wallet final: the bridge's next status, and what the send
   * moved for the books (send.finished). Undefined for a send that is not the bridge's, or that moved nothing.
   */
  async finished(tx: PoolClient, chain: RelayChain, send: SendRecord, logs: readonly Log[]): Promise<SendFinished['bridge']> {
    const parsed = parseBridgeSendKey(send.idempotencyKey);
    if (!parsed) return undefined;
    const { key, role } = parsed;
    const row = await bridgeRowOfSend(tx, chain, key, role);
    if (!row) return undefined;
    const confirmed = send.status === 'confirmed';
    const status = bridgeStatusAfter(role, confirmed, row.refund_attempts);
    const refundFailed = role === 'refund' && !confirmed;
    const depositId = role === 'deposit' && confirmed ? intentDepositIdOf(chain.network.contracts.bridge!.pool as Address, logs) : undefined;
    if (role === 'deposit' && confirmed && depositId === undefined)
      throw new Error(`bridge deposit ${key} (${send.txHash}) confirmed without a Deposited event`);
    await tx.query(
      `update ${CHAIN_SCHEMA}.bridges set status = $2, deposit_id = coalesce($3::numeric, deposit_id), error = coalesce($4, error),
              refund_attempts = refund_attempts + $5, updated_at = now() where key = $1`,
      [row.key, status, depositId?.toString() ?? null, confirmed ? null : (send.error ?? 'reverted'), refundFailed ? 1 : 0],
    );
    if (status === 'stuck')
      this.options.logger.error(
        { chain: chain.id, bridge: key, role, txHash: send.txHash, error: send.error },
        'a bridge repayment or refund failed for good: its deposit stays in the pool for an operator',
      );
    else if (refundFailed)
      this.options.logger.warn({ chain: chain.id, bridge: key, txHash: send.txHash, error: send.error }, 'a bridge refund failed: queued again later');
    return confirmed ? this.movement(chain, row, role) : undefined;
  }

  /** What a confirmed send of the bridge moved in or out of `chain`'s hot wallet (holdings, for sends not final yet). */
  async moved(chain: RelayChain, sendKey: string): Promise<{ symbol: string; units: bigint; direction: 'in' | 'out' } | undefined> {
    const parsed = parseBridgeSendKey(sendKey);
    if (!parsed) return undefined;
    const row = await bridgeRowOfSend(this.options.pool, chain, parsed.key, parsed.role);
    const role = parsed.role;
    const movement = row && this.movement(chain, row, role);
    if (!movement) return undefined;
    return { symbol: movement.tokenSymbol, units: toBaseUnits(movement.amount, chain.token(movement.tokenSymbol)!.decimals), direction: movement.direction };
  }

  private movement(chain: RelayChain, row: BridgeRow, role: BridgeRole): SendFinished['bridge'] {
    const moved = bridgeMovement(role, {
      amountIn: dec(row.amount_in).toFixed(),
      amountOut: dec(row.amount_out).toFixed(),
      fillsHotWallet: row.recipient === chain.hot.sender.toLowerCase(),
    });
    return moved && { role, tokenSymbol: row.token, account: row.account, ...moved };
  }

  /** Where the bridge is, for its caller: its sends' hashes on each chain, and its outcome once there is one. */
  private async view(row: BridgeRow): Promise<ChainBridge.Response> {
    const [from, to] = [this.chains.get(row.from_chain), this.chains.get(row.to_chain)];
    // A chain turned off (TEST_CHAINS) while the bridge was in flight: an operator's, and never a leg's failure, since
    // its deposit may still be filled.
    if (!from || !to)
      throw new AppError('SERVICE_UNAVAILABLE', `Bridge ${row.key} runs from ${row.from_chain} to ${row.to_chain}, which this chain service no longer runs`);
    const refunded = latestRefund(row.status, row.refund_attempts);
    const [deposit, fill, refund] = await Promise.all([
      from.hot.find(bridgeSendKey(row.key, 'deposit')),
      to.hot.find(bridgeSendKey(row.key, 'fill')),
      refunded === undefined ? undefined : from.hot.find(bridgeSendKey(row.key, 'refund', refunded)),
    ]);
    return {
      status: bridgeOutcome(row.status, fill?.status === 'confirmed'),
      fillDeadline: Number(row.fill_deadline),
      ...(deposit?.txHash && { depositHash: deposit.txHash }),
      ...(fill?.txHash && { fillHash: fill.txHash }),
      ...(refund?.txHash && { refundHash: refund.txHash }),
      ...(row.error !== null && { error: row.error }),
    };
  }

  private same(row: BridgeRow, from: RelayChain, terms: BridgeTerms, key: string): BridgeRow {
    const same =
      row.from_chain === from.id &&
      row.to_chain === terms.to.id &&
      row.token === terms.token &&
      dec(row.amount_in).eq(terms.amountIn) &&
      dec(row.amount_out).eq(terms.amountOut) &&
      row.recipient === terms.recipient.toLowerCase() &&
      row.account === terms.account;
    if (!same) throw new AppError('IDEMPOTENCY_KEY_REUSED', `Bridge ${key} was queued with other terms`);
    return row;
  }
}
