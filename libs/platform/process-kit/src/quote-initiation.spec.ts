import { AppError, type OfframpQuote, type OnrampQuote, type RpcContract, type Tenant, type WalletView } from '@ramp/contracts';
import { NothingRan } from '@ramp/messaging';
import { AllowedHosts } from '@ramp/webhooks';
import type { Fail, FundsHeld } from './ledger-steps';
import { QuoteInitiation, type Preparation } from './quote-initiation';

const TENANT: Tenant = { organizationId: 'org_1', environment: 'test', keyId: 'key_1' };
const QUOTE_ID = 'qt_01M82JKS0653T6WKTARA9RFX7D';
const WALLET_ID = 'wal_01M82JKS0653T6WKTARA9RFX7D';

const offrampQuote = { quoteId: QUOTE_ID, chain: 'base', tokenSymbol: 'USDC', cryptoAmount: '100' } as OfframpQuote.Response;
const onrampQuote = { quoteId: QUOTE_ID, chain: 'base', tokenSymbol: 'USDC', cryptoAmount: '33.1' } as OnrampQuote.Response;
const wallet = (available: string): WalletView => ({
  walletId: WALLET_ID,
  chain: 'base',
  address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  label: null,
  balances: [{ tokenSymbol: 'USDC', available, held: '0' }],
  createdAt: '2026-11-22T10:00:00.000Z',
});

type Command = { type: 'initiate'; data: unknown } | FundsHeld | Fail;

/**
 * The use case against fakes of what it calls: the quote service and the ledger (over request/reply), the
 * transaction's stream, and the ledger steps. Every call is recorded in order.
 */
function world(options: { quote: unknown; wallet?: WalletView; peek?: () => never; placeHold?: () => Promise<FundsHeld | Fail> }) {
  const calls: string[] = [];
  const applied: Command[] = [];
  const warnings: string[] = [];
  const rpc = {
    call: async (contract: RpcContract<unknown, unknown>, _tenant: Tenant, data: { kind?: string; consumer?: string }) => {
      calls.push(contract.subject);
      if (contract.subject === 'quote.v1.quote.peek') return options.peek ? options.peek() : { quoteId: QUOTE_ID, kind: data.kind, quote: options.quote };
      if (contract.subject === 'ledger.v1.wallets.get') return options.wallet;
      return { quoteId: QUOTE_ID, kind: data.kind, quote: options.quote, consumedAt: '2026-11-22T10:00:00.000Z' };
    },
  };
  const ledger = {
    placeHold: async () => {
      calls.push('placeHold');
      return options.placeHold ? options.placeHold() : ({ type: 'recordFundsHeld', at: '2026-11-22T10:00:00.000Z' } as const);
    },
  };
  const process = {
    apply: async (_transactionId: string, tenant: Tenant, command: Command) => {
      calls.push(`apply ${command.type}`);
      applied.push(command);
      return { initiated: { tenant }, commands: applied.map((each) => each.type) };
    },
  };
  const initiation = new QuoteInitiation(rpc as never, ledger, new AllowedHosts([]), { warn: (_fields, message) => warnings.push(message) });
  return { initiation, process, calls, applied, warnings };
}

const prepareOfframp = (preparation: Preparation<'offramp'>) => ({
  transactionId: preparation.transactionId,
  walletId: preparation.request.walletId ?? null,
  sourceAddress: preparation.side.address,
});

describe('initiation from a quote - every refusal before the quote is used, then one transaction', () => {
  it("reads the quote and the wallet, checks them, uses the quote, starts the stream and holds a paying wallet's funds at once", async () => {
    const { initiation, process, calls, applied } = world({ quote: offrampQuote, wallet: wallet('150') });
    const { transactionId, state } = await initiation.initiateFromQuote({
      kind: 'offramp',
      tenant: TENANT,
      request: { quoteId: QUOTE_ID, walletId: WALLET_ID },
      process,
      prepare: prepareOfframp,
    });
    expect(calls).toEqual(['quote.v1.quote.peek', 'ledger.v1.wallets.get', 'quote.v1.quote.consume', 'apply initiate', 'placeHold', 'apply recordFundsHeld']);
    expect(transactionId).toMatch(/^txn_[0-9A-Z]{26}$/);
    expect(applied[0]).toEqual({ type: 'initiate', data: { transactionId, walletId: WALLET_ID, sourceAddress: null } });
    expect(state.commands).toEqual(['initiate', 'recordFundsHeld']);
  });

  it('holds nothing for a wallet that receives (an on-ramp) nor for an address that stands in for the wallet', async () => {
    const onramp = world({ quote: onrampQuote, wallet: wallet('0') });
    await onramp.initiation.initiateFromQuote({
      kind: 'onramp',
      tenant: TENANT,
      request: { quoteId: QUOTE_ID, walletId: WALLET_ID },
      process: onramp.process,
      prepare: () => ({}),
    });
    expect(onramp.calls).toEqual(['quote.v1.quote.peek', 'ledger.v1.wallets.get', 'quote.v1.quote.consume', 'apply initiate']);

    const nonCustodial = world({ quote: offrampQuote });
    const request = { quoteId: QUOTE_ID, sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' };
    await nonCustodial.initiation.initiateFromQuote({ kind: 'offramp', tenant: TENANT, request, process: nonCustodial.process, prepare: prepareOfframp });
    expect(nonCustodial.calls).toEqual(['quote.v1.quote.peek', 'quote.v1.quote.consume', 'apply initiate']);
    expect(nonCustodial.applied[0]).toMatchObject({ data: { walletId: null, sourceAddress: request.sourceAddress } });
  });

  it("leaves the quote unused when the wallet cannot pay, or the kind's own checks refuse", async () => {
    const poor = world({ quote: offrampQuote, wallet: wallet('99') });
    const refused = poor.initiation.initiateFromQuote({
      kind: 'offramp',
      tenant: TENANT,
      request: { quoteId: QUOTE_ID, walletId: WALLET_ID },
      process: poor.process,
      prepare: prepareOfframp,
    });
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_REQUEST', field: 'walletId', reason: 'INSUFFICIENT_BALANCE' });
    expect(poor.calls).toEqual(['quote.v1.quote.peek', 'ledger.v1.wallets.get']);

    const picky = world({ quote: offrampQuote, wallet: wallet('150') });
    const prepare = () => {
      throw new AppError('INVALID_FIELD', 'destinationAddress: is required for a cross-chain swap', 'destinationAddress');
    };
    await expect(
      picky.initiation.initiateFromQuote({
        kind: 'offramp',
        tenant: TENANT,
        request: { quoteId: QUOTE_ID, walletId: WALLET_ID },
        process: picky.process,
        prepare,
      }),
    ).rejects.toMatchObject({
      field: 'destinationAddress',
    });
    expect(picky.calls).not.toContain('quote.v1.quote.consume');
  });

  it('refuses a malformed request before calling anyone', async () => {
    const { initiation, process, calls } = world({ quote: offrampQuote });
    await expect(
      initiation.initiateFromQuote({ kind: 'offramp', tenant: TENANT, request: { walletId: WALLET_ID }, process, prepare: prepareOfframp }),
    ).rejects.toMatchObject({ field: 'quoteId' });
    expect(calls).toEqual([]);
  });

  it('says nothing ran when the quote service is down, so that the request can be sent again as it is', async () => {
    const down = world({
      quote: offrampQuote,
      peek: () => {
        throw new AppError('SERVICE_UNAVAILABLE', 'The quote service is not running; retry with exponential backoff.');
      },
    });
    const initiated = down.initiation.initiateFromQuote({
      kind: 'offramp',
      tenant: TENANT,
      request: { quoteId: QUOTE_ID, walletId: WALLET_ID },
      process: down.process,
      prepare: prepareOfframp,
    });
    await expect(initiated).rejects.toBeInstanceOf(NothingRan);
    expect(down.calls).toEqual(['quote.v1.quote.peek']);
  });

  it('answers with the initiated transaction when the hold cannot be placed now: its job places it shortly', async () => {
    const slow = world({
      quote: offrampQuote,
      wallet: wallet('150'),
      placeHold: async () => {
        throw new AppError('SERVICE_UNAVAILABLE', 'The ledger service did not answer in time; retry with exponential backoff.');
      },
    });
    const { state } = await slow.initiation.initiateFromQuote({
      kind: 'offramp',
      tenant: TENANT,
      request: { quoteId: QUOTE_ID, walletId: WALLET_ID },
      process: slow.process,
      prepare: prepareOfframp,
    });
    expect(state.commands).toEqual(['initiate']);
    expect(slow.warnings).toEqual(['hold not placed at initiation; its job places it']);
  });
});
