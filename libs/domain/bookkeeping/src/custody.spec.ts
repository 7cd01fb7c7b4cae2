import {
  chainAccount,
  custodyDrift,
  depositsAccount,
  significantDrifts,
  sponsoredGasAccount,
  sponsoredGasAccountOf,
  uncoveredLiabilities,
  walletDrift,
} from './custody';
import { dec } from '@ramp/money';
import { assetOf, move } from './journal';

describe('custody - the books of what the platform holds on a chain, against the chain', () => {
  it('names one account per environment and chain, and per owner kind of deposits', () => {
    expect(chainAccount('test', 'base')).toBe('external:chain-test-base');
    expect(depositsAccount('offramp', 'live', 'bsc')).toBe('external:offramp-deposits-live-bsc');
    // A deposit to a wallet moves from the chain account: its balance goes to minus what is held.
    expect(move(chainAccount('test', 'base'), 'wallet:wal_1', assetOf('base', 'USDC'), '5')[0]).toEqual({
      account: 'external:chain-test-base',
      asset: 'base:USDC',
      amount: '-5',
    });
  });

  it('finds nothing when the chain holds exactly what the books say, to the base unit', () => {
    const balances = new Map([
      ['base:USDC', '-120.000001'],
      ['base:ETH', '-0.999979'],
    ]);
    expect(
      custodyDrift('base', balances, [
        { tokenSymbol: 'USDC', amount: '120.000001' },
        { tokenSymbol: 'ETH', amount: '0.999979' },
        { tokenSymbol: 'CNGN', amount: '0' },
      ]),
    ).toEqual([]);
  });

  it('reports every token that differs, either way, with the books, the chain and the drift', () => {
    const balances = new Map([
      ['base:USDC', '-100'],
      ['base:cbBTC', '-0.5'],
      ['bsc:USDT', '-7'], // another chain's: not this comparison's
    ]);
    expect(
      custodyDrift('base', balances, [
        { tokenSymbol: 'USDC', amount: '99.999999' },
        { tokenSymbol: 'ETH', amount: '0.000000000000000001' },
      ]),
    ).toEqual([
      { chain: 'base', tokenSymbol: 'ETH', books: '0', onchain: '0.000000000000000001', drift: '0.000000000000000001' },
      { chain: 'base', tokenSymbol: 'USDC', books: '100', onchain: '99.999999', drift: '-0.000001' },
      { chain: 'base', tokenSymbol: 'cbBTC', books: '0.5', onchain: '0', drift: '-0.5' },
    ]);
  });
});

describe("custody - each managed wallet's balances against its smart account", () => {
  const wallet = { walletId: 'wal_01JZ0000000000000000000000', address: '0x00000000000000000000000000000000000000A1' };

  it('finds nothing when the account holds its available and held amounts together, to the base unit', () => {
    const balances = new Map([['base:USDC', '180.000001']]);
    expect(walletDrift('base', wallet, balances, [{ tokenSymbol: 'USDC', amount: '180.000001' }])).toEqual([]);
  });

  it('names the wallet, its account and each token that differs either way; another chain is not compared', () => {
    const balances = new Map([
      ['base:USDC', '80'],
      ['base:CNGN', '5000'],
      ['bsc:USDT', '3'],
    ]);
    expect(
      walletDrift('base', wallet, balances, [
        { tokenSymbol: 'USDC', amount: '79.999999' },
        { tokenSymbol: 'CNGN', amount: '5000' },
        { tokenSymbol: 'ETH', amount: '1' },
      ]),
    ).toEqual([
      { ...wallet, chain: 'base', tokenSymbol: 'ETH', books: '0', onchain: '1', drift: '1' },
      { ...wallet, chain: 'base', tokenSymbol: 'USDC', books: '80', onchain: '79.999999', drift: '-0.000001' },
    ]);
  });
});

describe('custody - the sponsored gas of each organization', () => {
  it('names its account by environment, chain and organization, and reads them back from it; any other account is not one', () => {
    const account = sponsoredGasAccount('test', 'base', 'org_01JZ0000000000000000000000');
    expect(account).toBe('external:sponsored-gas-test-base-org_01JZ0000000000000000000000');
    expect(sponsoredGasAccountOf(account)).toEqual({ environment: 'test', chain: 'base', organizationId: 'org_01JZ0000000000000000000000' });
    expect(sponsoredGasAccountOf('external:gas-test-base')).toBeUndefined();
  });
});

describe('reconciliation - which drifts pause a chain, and which balances the chain does not back', () => {
  const drift = (tokenSymbol: string, books: string, onchain: string) => ({
    chain: 'base',
    tokenSymbol,
    books,
    onchain,
    drift: dec(onchain).sub(books).toFixed(),
  });

  it('a drift of a share of the holdings is significant; the gas of a re-mined send is not', () => {
    const gas = drift('ETH', '99.998258526714454298', '99.99828715945087776');
    const drained = drift('USDC', '1000000', '750000');
    expect(significantDrifts([gas, drained], '0.001')).toEqual([drained]);
    // Holdings the books do not know at all, or books the chain does not hold at all: significant.
    expect(significantDrifts([drift('CNGN', '0', '5'), drift('USDT', '5', '0')], '0.001')).toHaveLength(2);
    expect(significantDrifts([], '0.001')).toEqual([]);
  });

  it("finds customers' balances the chain does not back", () => {
    const holdings = [
      { chain: 'base', tokenSymbol: 'USDC', amount: '100' },
      { chain: 'base', tokenSymbol: 'ETH', amount: '1' },
    ];
    const owed = [
      { chain: 'base', tokenSymbol: 'USDC', owed: '100' },
      { chain: 'base', tokenSymbol: 'ETH', owed: '1.5' },
      { chain: 'base', tokenSymbol: 'CNGN', owed: '3' },
    ];
    expect(uncoveredLiabilities(owed, holdings)).toEqual([
      { chain: 'base', tokenSymbol: 'ETH', owed: '1.5', held: '1' },
      { chain: 'base', tokenSymbol: 'CNGN', owed: '3', held: '0' },
    ]);
  });
});
