import { INTEGRATION_HEADERS, type Tenant } from '@ramp/contracts';
import type { EventMetadata, StoredEvent } from '@ramp/event-store';
import type { AnyTransactionKind, TransactionView } from '@ramp/transactions';
import { integrationMessageOf } from './integration-message';

// A transaction kind reduced to what the message needs: the view's fields, and the outcome of the last event.
const SWAP: AnyTransactionKind = {
  type: 'swap',
  initialState: { status: 'pending' },
  evolve: (_state, event) => ({ status: event.type === 'swap.completed' ? 'completed' : event.type === 'swap.failed' ? 'failed' : 'pending' }),
  view: (state) =>
    ({
      id: 'txn_01M81B5HNS9G2WGC1EBG9TJYS7',
      type: 'swap',
      status: (state as { status: TransactionView['status'] }).status,
      chain: 'base',
      amount: '10',
      tokenSymbol: 'USDC',
      walletId: 'wal_01M81B5HSVDC0FWSK7PNP5EWYM',
      errorMessage: 'Slippage exceeded',
      failureReason: 'SLIPPAGE_EXCEEDED',
    }) as TransactionView,
};

const INITIATOR: Tenant = { organizationId: 'org_1', environment: 'live', keyId: 'key_initiator' };
const OPERATOR: Tenant = { organizationId: 'org_1', environment: 'live', keyId: 'key_operator' };

function stored(version: number, type: string, data: unknown, metadata: Partial<EventMetadata> = {}): StoredEvent {
  return {
    globalPosition: String(version),
    eventId: `00000000-0000-4000-8000-00000000000${version}`,
    streamId: 'swap-txn_01M81B5HNS9G2WGC1EBG9TJYS7',
    streamVersion: version,
    type,
    data,
    metadata: { correlationId: 'txn_01M81B5HNS9G2WGC1EBG9TJYS7', causationId: 'c', actor: 'system:swap-transfer', tenant: INITIATOR, ...metadata },
    transactionId: String(100 + version),
    createdAt: `2026-11-22T10:00:0${version}.000Z`,
  };
}

describe('integrationMessageOf', () => {
  it('builds nothing for an event that does not end the transaction', () => {
    const history = [stored(1, 'swap.initiated', {}), stored(2, 'swap.fundsHeld', {})];
    expect(integrationMessageOf([SWAP], history, history[1]!)).toBeUndefined();
  });

  it('takes the tenant, callback URL and request id of the initiating event, whoever caused the terminal one', () => {
    const history = [
      stored(1, 'swap.initiated', { callbackUrl: 'https://payments.example.com/cb' }, { requestId: 'req_1', actor: 'key:key_initiator' }),
      stored(2, 'swap.failed', {}, { tenant: OPERATOR, causationId: 'job:2' }),
    ];
    const message = integrationMessageOf([SWAP], history, history[1]!);
    expect(message?.headers).toEqual({
      [INTEGRATION_HEADERS.organizationId]: 'org_1',
      [INTEGRATION_HEADERS.environment]: 'live',
      [INTEGRATION_HEADERS.keyId]: 'key_initiator',
      [INTEGRATION_HEADERS.callbackUrl]: 'https://payments.example.com/cb',
      [INTEGRATION_HEADERS.correlationId]: 'txn_01M81B5HNS9G2WGC1EBG9TJYS7',
      [INTEGRATION_HEADERS.requestId]: 'req_1',
    });
    expect(message?.msgID).toBe(history[1]!.eventId);
    expect(message?.payload).toMatchObject({
      event: 'swap.failed',
      timestamp: history[1]!.createdAt,
      data: { status: 'failed', errorMessage: 'Slippage exceeded', metadata: { eventId: history[1]!.eventId } },
    });
  });

  it('leaves out the callback URL and request id when the initiating event has none', () => {
    const history = [stored(1, 'swap.initiated', { callbackUrl: null }), stored(2, 'swap.completed', {})];
    const message = integrationMessageOf([SWAP], history, history[1]!);
    expect(Object.keys(message!.headers)).toEqual([
      INTEGRATION_HEADERS.organizationId,
      INTEGRATION_HEADERS.environment,
      INTEGRATION_HEADERS.keyId,
      INTEGRATION_HEADERS.correlationId,
    ]);
    expect(message!.payload.data).not.toHaveProperty('errorMessage');
  });
});
