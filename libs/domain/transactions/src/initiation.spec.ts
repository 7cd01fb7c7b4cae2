import type { OfframpQuote, OnrampQuote, SwapQuote, TransferQuote, WalletView } from '@ramp/contracts';
import { AllowedHosts } from '@ramp/webhooks';
import { checkWalletSide, parseInitiation, walletTermsOf, type InitiationRequest } from './initiation';

const hosts = new AllowedHosts([]);
const QUOTE = 'qt_01M82JKS0653T6WKTARA9RFX7D';
const WALLET = 'wal_01M82JKS0653T6WKTARA9RFX7D';
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const wallet = (balances: Record<string, string> = {}, chain: 'base' | 'bsc' = 'base'): WalletView => ({
  walletId: WALLET,
  chain,
  address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  label: null,
  balances: Object.entries(balances).map(([tokenSymbol, available]) => ({ tokenSymbol, available, held: '0' })),
  createdAt: '2026-11-22T10:00:00.000Z',
});

const offramp = { chain: 'base', tokenSymbol: 'USDC', cryptoAmount: '100' } as OfframpQuote.Response;
const onramp = { chain: 'base', tokenSymbol: 'USDC', cryptoAmount: '33.1' } as OnrampQuote.Response;
const swap = { fromChain: 'base', fromToken: 'USDC', fromAmount: '100', toChain: 'base', toToken: 'ETH' } as SwapQuote.Response;
const transfer = { fromChain: 'bsc', fromToken: 'USDT', fromAmount: '50', toChain: 'base', toToken: 'USDT' } as TransferQuote.Response;

/** The refusal a call makes: its field, reason and message, as the envelope shows them. */
function refusalOf(call: () => unknown) {
  try {
    call();
  } catch (error) {
    const { code, field, reason, message } = error as { code: string; field?: string; reason?: string; message: string };
    return { code, field, reason, message };
  }
  throw new Error('expected a refusal');
}

describe("initiation from a quote - the request's fields, checked before the quote is read", () => {
  it('reads the fields every kind has, absent ones as null', () => {
    expect(parseInitiation('swap', { quoteId: QUOTE, walletId: WALLET, reference: 'order-1' }, hosts)).toEqual({
      quoteId: QUOTE,
      walletId: WALLET,
      address: undefined,
      reference: 'order-1',
      callbackUrl: null,
    });
    expect(
      parseInitiation('offramp', { quoteId: QUOTE, sourceAddress: ADDRESS, reference: '', callbackUrl: 'https://payments.example.com/cb' }, hosts),
    ).toMatchObject({
      walletId: undefined,
      address: ADDRESS,
      reference: null,
      callbackUrl: 'https://payments.example.com/cb',
    });
  });

  it('requires the quote first', () => {
    expect(refusalOf(() => parseInitiation('onramp', { walletId: WALLET }, hosts))).toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'quoteId',
      message: 'quoteId: is required',
    });
    expect(refusalOf(() => parseInitiation('swap', { quoteId: 7, walletId: WALLET }, hosts))).toMatchObject({ field: 'quoteId' });
  });

  it('takes a wallet or the address that stands in for it, not both, on an on-ramp and an off-ramp', () => {
    expect(refusalOf(() => parseInitiation('onramp', { quoteId: QUOTE, walletId: WALLET, destinationAddress: ADDRESS }, hosts))).toMatchObject({
      field: 'walletId',
      message: 'walletId: give walletId (a managed wallet) or destinationAddress, not both',
    });
    expect(refusalOf(() => parseInitiation('offramp', { quoteId: QUOTE }, hosts))).toMatchObject({
      field: 'walletId',
      message: 'walletId: is required unless sourceAddress is given (non-custodial)',
    });
    expect(parseInitiation('onramp', { quoteId: QUOTE, destinationAddress: ADDRESS }, hosts).address).toBe(ADDRESS);
  });

  it("always requires the paying wallet of a swap and a transfer; a swap's destination address comes besides it", () => {
    expect(refusalOf(() => parseInitiation('swap', { quoteId: QUOTE, destinationAddress: ADDRESS }, hosts)).message).toBe(
      'walletId: is required: the managed wallet the swap is paid from',
    );
    expect(refusalOf(() => parseInitiation('transfer', { quoteId: QUOTE }, hosts)).message).toBe(
      'walletId: is required: the managed wallet the transfer is paid from',
    );
    expect(parseInitiation('swap', { quoteId: QUOTE, walletId: WALLET, destinationAddress: ADDRESS }, hosts)).toMatchObject({
      walletId: WALLET,
      address: ADDRESS,
    });
    // A transfer's destination is its quote's: a destinationAddress in the request is not its to take.
    expect(parseInitiation('transfer', { quoteId: QUOTE, walletId: WALLET, destinationAddress: ADDRESS }, hosts).address).toBeUndefined();
  });

  it('refuses fields of the wrong type and a callback URL the notifier must not call, naming the field', () => {
    expect(refusalOf(() => parseInitiation('offramp', { quoteId: QUOTE, walletId: 42 }, hosts))).toMatchObject({
      field: 'walletId',
      message: 'walletId: must be a string',
    });
    expect(refusalOf(() => parseInitiation('swap', { quoteId: QUOTE, walletId: WALLET, destinationAddress: ['x'] }, hosts))).toMatchObject({
      field: 'destinationAddress',
    });
    expect(refusalOf(() => parseInitiation('swap', { quoteId: QUOTE, walletId: WALLET, reference: {} }, hosts))).toMatchObject({ field: 'reference' });
    expect(
      refusalOf(() => parseInitiation('onramp', { quoteId: QUOTE, walletId: WALLET, callbackUrl: 'http://payments.example.com/cb' }, hosts)),
    ).toMatchObject({
      field: 'callbackUrl',
      reason: 'WEBHOOK_TARGET_REFUSED',
    });
    expect(
      refusalOf(() => parseInitiation('onramp', { quoteId: QUOTE, walletId: WALLET, callbackUrl: 'https://169.254.169.254/latest' }, hosts)),
    ).toMatchObject({ field: 'callbackUrl' });
  });
});

describe('initiation from a quote - the wallet (or the address instead) checked against the quote, before it is used', () => {
  const request = (fields: Partial<InitiationRequest> = {}): InitiationRequest => ({
    quoteId: QUOTE,
    walletId: WALLET,
    reference: null,
    callbackUrl: null,
    ...fields,
  });

  it("knows what each kind's wallet does: an on-ramp's receives, the others' pay the quoted amount", () => {
    expect(walletTermsOf('onramp', onramp)).toEqual({ chain: 'base' });
    expect(walletTermsOf('offramp', offramp)).toEqual({ chain: 'base', pays: { tokenSymbol: 'USDC', amount: '100' } });
    expect(walletTermsOf('swap', swap)).toEqual({ chain: 'base', pays: { tokenSymbol: 'USDC', amount: '100' } });
    expect(walletTermsOf('transfer', transfer)).toEqual({ chain: 'bsc', pays: { tokenSymbol: 'USDT', amount: '50' } });
  });

  it('holds the quoted amount of a wallet that pays and has it available', () => {
    expect(checkWalletSide('offramp', request(), offramp, wallet({ USDC: '100.00' }))).toEqual({
      address: null,
      hold: { walletId: WALLET, tokenSymbol: 'USDC', amount: '100' },
    });
    expect(checkWalletSide('transfer', request(), transfer, wallet({ USDT: '60' }, 'bsc'))).toEqual({
      address: null,
      hold: { walletId: WALLET, tokenSymbol: 'USDT', amount: '50' },
    });
  });

  it('refuses a paying wallet short of the amount, or on another chain, with the reason integrators branch on', () => {
    expect(refusalOf(() => checkWalletSide('swap', request(), swap, wallet({ USDC: '99.99' })))).toEqual({
      code: 'INVALID_REQUEST',
      field: 'walletId',
      reason: 'INSUFFICIENT_BALANCE',
      message: 'walletId: has 99.99 USDC available; the quote needs 100',
    });
    expect(refusalOf(() => checkWalletSide('offramp', request(), offramp, wallet({})))).toMatchObject({
      reason: 'INSUFFICIENT_BALANCE',
      message: 'walletId: has 0 USDC available; the quote needs 100',
    });
    expect(refusalOf(() => checkWalletSide('offramp', request(), offramp, wallet({ USDC: '500' }, 'bsc')))).toMatchObject({
      field: 'walletId',
      reason: 'CHAIN_MISMATCH',
      message: 'walletId: is on bsc; the quote is for base',
    });
  });

  it("holds nothing in an on-ramp's wallet, which only has to be on the quote's chain", () => {
    expect(checkWalletSide('onramp', request(), onramp, wallet({}))).toEqual({ address: null, hold: null });
    expect(refusalOf(() => checkWalletSide('onramp', request(), onramp, wallet({}, 'bsc')))).toMatchObject({ reason: 'CHAIN_MISMATCH' });
  });

  it("checks the address given instead of a wallet on the quote's chain", () => {
    expect(checkWalletSide('offramp', request({ walletId: undefined, address: ADDRESS }), offramp, undefined)).toEqual({ address: ADDRESS, hold: null });
    expect(
      refusalOf(() => checkWalletSide('onramp', request({ walletId: undefined, address: ADDRESS.toLowerCase().replace('0x5a', '0x5A') }), onramp, undefined)),
    ).toMatchObject({
      field: 'destinationAddress',
      reason: 'INVALID_ADDRESS',
    });
    expect(refusalOf(() => checkWalletSide('offramp', request({ walletId: undefined, address: 'nope' }), offramp, undefined))).toMatchObject({
      field: 'sourceAddress',
    });
  });
});
