import {
  chainAccount,
  custodyDrift,
  depositsAccount,
  inventoryOf,
  lowWaterOf,
  parseLowWaterMarks,
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

describe("treasury inventory - what the platform holds beyond its customers' balances, against its low-water marks", () => {
  const holdings = [
    { chain: 'base', tokenSymbol: 'CNGN', amount: '1000000' },
    { chain: 'base', tokenSymbol: 'USDC', amount: '250.5' },
    { chain: 'bsc', tokenSymbol: 'USDT', amount: '40' },
  ];
  const owed = [
    { chain: 'base', tokenSymbol: 'USDC', owed: '200' },
    { chain: 'base', tokenSymbol: 'USDC', owed: '0.5' },
    { chain: 'bsc', tokenSymbol: 'USDT', owed: '45' },
    { chain: 'bsc', tokenSymbol: 'ETH', owed: '0.1' },
  ];

  it('is what is held less what is owed, per chain and token, to the unit, negative where customers are owed more', () => {
    expect(inventoryOf(owed, holdings)).toEqual([
      { chain: 'base', tokenSymbol: 'CNGN', held: '1000000', owed: '0', free: '1000000' },
      { chain: 'base', tokenSymbol: 'USDC', held: '250.5', owed: '200.5', free: '50' },
      { chain: 'bsc', tokenSymbol: 'USDT', held: '40', owed: '45', free: '-5' },
      { chain: 'bsc', tokenSymbol: 'ETH', held: '0', owed: '0.1', free: '-0.1' },
    ]);
  });

  it('holds each marked token of a reconciled chain against its mark, one neither held nor owed included, and names the marks of chains not run', () => {
    const marks = parseLowWaterMarks({
      'live-base': { CNGN: '1000000', USDC: '50.01', CBBTC: '0.5' },
      'live-bsc': { USDT: '0' },
      'live-arbitrum': { USDC: '1' },
      'test-base': { USDC: '1000' },
    });
    const inventory = inventoryOf(owed, holdings);
    expect(lowWaterOf('live', ['base', 'bsc'], inventory, marks)).toEqual({
      marked: [
        { chain: 'base', tokenSymbol: 'CNGN', held: '1000000', owed: '0', free: '1000000', mark: '1000000', below: false },
        { chain: 'base', tokenSymbol: 'USDC', held: '250.5', owed: '200.5', free: '50', mark: '50.01', below: true },
        { chain: 'base', tokenSymbol: 'CBBTC', held: '0', owed: '0', free: '0', mark: '0.5', below: true },
        { chain: 'bsc', tokenSymbol: 'USDT', held: '40', owed: '45', free: '-5', mark: '0', below: true },
      ],
      unrun: ['live-arbitrum'],
    });
    // Another environment's marks are not this one's.
    expect(lowWaterOf('live', ['bsc'], inventory, { 'test-bsc': { USDT: '1' } })).toEqual({ marked: [], unrun: [] });
  });

  it('refuses marks that are not decimal strings of a chain id and token, naming the setting', () => {
    expect(parseLowWaterMarks(undefined)).toEqual({});
    expect(() => parseLowWaterMarks([])).toThrow('TREASURY_LOW_WATER_MARKS must be an object of chains');
    expect(() => parseLowWaterMarks({ base: { USDC: '1' } })).toThrow('TREASURY_LOW_WATER_MARKS.base is not a chain');
    expect(() => parseLowWaterMarks({ 'live-bsc2': { USDT: '1' } })).toThrow('TREASURY_LOW_WATER_MARKS.live-bsc2 is not a chain');
    expect(() => parseLowWaterMarks({ 'live-base': { USDC: 1000 } })).toThrow('TREASURY_LOW_WATER_MARKS.live-base.USDC must be a decimal string');
    expect(() => parseLowWaterMarks({ 'live-base': { USDC: '-1' } })).toThrow('must be a decimal string');
    expect(() => parseLowWaterMarks({ 'live-base': 'USDC' })).toThrow('TREASURY_LOW_WATER_MARKS.live-base must be an object of token symbols');
  });
});
