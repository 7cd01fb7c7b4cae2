import { AppError } from '@ramp/contracts';
import { Decimal } from '@ramp/money';
import { SandboxPriceFeed } from './price-feed';

describe('SandboxPriceFeed', () => {
  const feed = new SandboxPriceFeed();

  it('quotes 1,500 Naira per dollar by default', async () => {
    expect((await feed.ngnPerUsd()).toFixed()).toBe('1500');
  });

  it.each([
    ['USDC', '1'],
    ['USDT', '1'],
    ['ETH', '3200'],
    ['cbBTC', '95000'],
    ['BNB', '650'],
    ['POL', '0.4'],
    ['AVAX', '28'],
    ['SOL', '180'],
  ])('prices %s at %s dollars', async (symbol, usd) => {
    expect((await feed.usdPrice(symbol)).toFixed()).toBe(usd);
  });

  it('charges the 0.5% spread above the mid rate when the user buys, and pays it below when the user sells', async () => {
    expect((await feed.ngnRate('USDC', 'buy')).toFixed()).toBe('1507.5');
    expect((await feed.ngnRate('USDC', 'sell')).toFixed()).toBe('1492.5');
    // 3200 × 1500 = 4,800,000; × 1.005 and × 0.995
    expect((await feed.ngnRate('ETH', 'buy')).toFixed()).toBe('4824000');
    expect((await feed.ngnRate('ETH', 'sell')).toFixed()).toBe('4776000');
    // 0.40 × 1500 × 0.995, exact to the last digit
    expect((await feed.ngnRate('POL', 'sell')).toFixed()).toBe('597');
  });

  it('prices CNGN at exactly one Naira both ways, without a spread', async () => {
    expect((await feed.ngnRate('CNGN', 'buy')).toFixed()).toBe('1');
    expect((await feed.ngnRate('CNGN', 'sell')).toFixed()).toBe('1');
  });

  it('prices CNGN in dollars as one Naira', async () => {
    const cngnUsd = await feed.usdPrice('CNGN');
    expect(cngnUsd).toBeInstanceOf(Decimal);
    expect(cngnUsd.mul(1500).toDecimalPlaces(40).toFixed()).toBe('1');
  });

  it('takes the exchange rate, spread and prices from its options', async () => {
    const custom = new SandboxPriceFeed({ ngnPerUsd: '1600', spread: '0.01', usdPrices: { ETH: '4000', DOGE: '0.2' } });
    expect((await custom.ngnRate('ETH', 'buy')).toFixed()).toBe('6464000');
    expect((await custom.ngnRate('USDC', 'sell')).toFixed()).toBe('1584');
    expect((await custom.usdPrice('DOGE')).toFixed()).toBe('0.2');
    expect((await custom.usdPrice('CNGN')).mul(1600).toDecimalPlaces(40).toFixed()).toBe('1');
  });

  it.each(['DOGE', 'usdc', '', 'constructor', '__proto__', 'toString'])('refuses %p, which has no price', async (symbol) => {
    await expect(feed.usdPrice(symbol)).rejects.toBeInstanceOf(AppError);
    await expect(feed.ngnRate(symbol, 'buy')).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'tokenSymbol',
      message: `tokenSymbol: ${symbol} has no price`,
    });
  });

  it.each([[{ ngnPerUsd: '0' }], [{ ngnPerUsd: '-1500' }], [{ spread: '-0.01' }], [{ spread: '1' }]])('refuses the nonsensical options %j', (options) => {
    expect(() => new SandboxPriceFeed(options)).toThrow(Error);
  });
});
