import { carriedView, projectEvent, type ProjectedTransaction, type StreamEventEnvelope } from './projection';
import type { TransactionView } from './transaction-view';

const ID = 'txn_01M82JKS0653T6WKTARA9RFX7D';
const STREAM = `offramp-${ID}`;

const view = (status: TransactionView['status'], updatedAt: string): TransactionView => ({
  id: ID,
  type: 'offramp',
  status,
  chain: 'base',
  amount: '100',
  tokenSymbol: 'USDC',
  fees: { platformFee: '20.00', providerFee: '199.25', totalFee: '239.25' },
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt,
});

/** The event of `version` as the service published it: it carries the Transaction as it is after it. */
const event = (version: number, type: string, carried: TransactionView | undefined): StreamEventEnvelope => ({
  streamId: STREAM,
  streamVersion: version,
  type,
  metadata: carried === undefined ? {} : { view: carried },
});

const initiated = event(1, 'offramp.initiated', view('pending', '2026-11-22T10:00:00.000Z'));
const held = event(2, 'offramp.funds_held', view('pending', '2026-11-22T10:00:01.000Z'));
const completed = event(3, 'offramp.completed', view('completed', '2026-11-22T10:00:05.000Z'));

describe('transactions read model - applies the view each event carries, in stream-version order', () => {
  it('given nothing, when the first event arrives, then the row is its view at version 1', () => {
    expect(projectEvent(undefined, initiated)).toEqual({ kind: 'applied', projected: { version: 1, view: view('pending', '2026-11-22T10:00:00.000Z') } });
  });

  it("given a row, when each next event arrives, then its view replaces the row's", () => {
    let projected: ProjectedTransaction | undefined;
    for (const next of [initiated, held, completed]) {
      const outcome = projectEvent(projected, next);
      if (outcome.kind !== 'applied') throw new Error(`expected version ${next.streamVersion} to apply, got ${outcome.kind}`);
      projected = outcome.projected;
    }
    expect(projected).toEqual({ version: 3, view: view('completed', '2026-11-22T10:00:05.000Z') });
  });

  it('given a row at version 2, when an event it has applied comes again (a redelivery, a replay), then it is a duplicate', () => {
    expect(projectEvent({ version: 2 }, initiated)).toEqual({ kind: 'duplicate' });
    expect(projectEvent({ version: 2 }, held)).toEqual({ kind: 'duplicate' });
  });

  it('given a row, when an event comes before its predecessor, then it waits for the version expected', () => {
    expect(projectEvent({ version: 1 }, completed)).toEqual({ kind: 'gap', expected: 2 });
    expect(projectEvent(undefined, held)).toEqual({ kind: 'gap', expected: 1 });
  });

  it('ignores an event that carries no Transaction view', () => {
    expect(projectEvent(undefined, event(1, 'offramp.initiated', undefined))).toEqual({ kind: 'ignored' });
    expect(projectEvent(undefined, { streamId: STREAM, streamVersion: 1, type: 'offramp.initiated' })).toEqual({ kind: 'ignored' });
    expect(carriedView({ ...initiated, metadata: { view: { id: ID, type: 'refund', status: 'pending' } } })).toBeUndefined();
    expect(carriedView({ ...initiated, metadata: { view: 'pending' } })).toBeUndefined();
  });
});
