import type { NatsConnection } from 'nats';
import { AppError, OfframpQuote, OnrampQuote, QuoteConsume, type Tenant } from '@ramp/contracts';
import { connectNats, NatsRpcClient, RpcClient } from '@ramp/messaging';
import { startServices, stopAll, type ServiceProcess, rpcFailure } from '@ramp/testing';

const tenant = (organizationId: string): Tenant => ({ organizationId, environment: 'test', keyId: 'key_test' });

describe('quote service - quotes are stored, scoped to a tenant, expire and are used once', () => {
  let services: Map<string, ServiceProcess>;
  let nc: NatsConnection;
  let rpc: RpcClient;
  const alice = tenant(`org_alice_${Date.now()}`);
  const bob = tenant(`org_bob_${Date.now()}`);

  beforeAll(async () => {
    services = await startServices(['quote'], { QUOTE_TTL_SECONDS: '2' });
    nc = await connectNats({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' }, 'quote-store-test');
    rpc = new RpcClient(new NatsRpcClient(nc, process.env.EVENTS_NAMESPACE), 5000);
  });

  afterAll(async () => {
    await nc.drain();
    await stopAll(services.values());
  });

  const onrampQuote = () => rpc.call(OnrampQuote.contract, alice, { amount: '10000', tokenSymbol: 'CNGN', chain: 'base' });

  it('lets exactly one of 20 concurrent consumers use a quote', async () => {
    const quote = await onrampQuote();
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => rpc.call(QuoteConsume.contract, alice, { quoteId: quote.quoteId, kind: 'onramp', consumer: `txn_${i}` })),
    );
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
    expect(lost.every((attempt) => attempt.reason instanceof AppError && attempt.reason.code === 'CONFLICT')).toBe(true);
    const winner = (won[0] as PromiseFulfilledResult<QuoteConsume.Response>).value;
    expect(winner.quote).toMatchObject({ quoteId: quote.quoteId, fiatAmount: '10000.00' });
  });

  it('stores every one of 100 concurrent quotes (written in groups) with its own figures', async () => {
    const amounts = Array.from({ length: 100 }, (_, i) => String(10_000 + i));
    const quotes = await Promise.all(amounts.map((amount) => rpc.call(OnrampQuote.contract, alice, { amount, tokenSymbol: 'CNGN', chain: 'base' })));
    expect(new Set(quotes.map((quote) => quote.quoteId)).size).toBe(100);
    const consumed = await Promise.all(
      quotes.map((quote) => rpc.call(QuoteConsume.contract, alice, { quoteId: quote.quoteId, kind: 'onramp', consumer: `txn_${quote.quoteId}` })),
    );
    consumed.forEach((used, i) => expect(used.quote).toEqual(quotes[i]));
    expect(consumed.map((used) => (used.quote as { fiatAmount: string }).fiatAmount)).toEqual(amounts.map((amount) => `${amount}.00`));
  });

  it('gives the quote again to the consumer that already used it (safe retries)', async () => {
    const quote = await onrampQuote();
    const first = await rpc.call(QuoteConsume.contract, alice, { quoteId: quote.quoteId, kind: 'onramp', consumer: 'txn_retry' });
    const again = await rpc.call(QuoteConsume.contract, alice, { quoteId: quote.quoteId, kind: 'onramp', consumer: 'txn_retry' });
    expect(again).toEqual(first);
  });

  it("hides another tenant's quote and refuses the wrong kind", async () => {
    const quote = await onrampQuote();
    expect((await rpcFailure(rpc.call(QuoteConsume.contract, bob, { quoteId: quote.quoteId, kind: 'onramp', consumer: 'x' }))).code).toBe('NOT_FOUND');
    const wrongKind = await rpcFailure(rpc.call(QuoteConsume.contract, alice, { quoteId: quote.quoteId, kind: 'offramp', consumer: 'x' }));
    expect(wrongKind.code).toBe('INVALID_REQUEST');
    expect(wrongKind.message).toContain('on-ramp quote');
    expect((await rpcFailure(rpc.call(QuoteConsume.contract, alice, { quoteId: 'qt_../../x', kind: 'onramp', consumer: 'x' }))).code).toBe('NOT_FOUND');
  });

  it('refuses an expired quote', async () => {
    const quote = await onrampQuote();
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const expired = await rpcFailure(rpc.call(QuoteConsume.contract, alice, { quoteId: quote.quoteId, kind: 'onramp', consumer: 'late' }));
    expect(expired.code).toBe('INVALID_REQUEST');
    expect(expired.message).toContain('expired');
  });

  it('answers a typed error for invalid input over NATS, never an internal error', async () => {
    const error = await rpcFailure(
      rpc.call(OfframpQuote.contract, alice, { amount: '1', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '1', chain: 'base' }),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.field).toBe('accountNumber');
  });
});
