import { AppError } from '@ramp/contracts';
import { parseAddress, parseChain, parseToken } from './parse';
import { PRIMARY_CHAINS } from './registry';

function rejectionOf(work: () => unknown): { field?: string; message: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_REQUEST') return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected an INVALID_REQUEST');
}

describe('parseChain', () => {
  it('reads any of the seven chains by default', () => {
    expect(parseChain('solana', 'toChain')).toBe('solana');
    expect(parseChain('avalanche', 'toChain')).toBe('avalanche');
  });

  it('reads a chain among those allowed', () => {
    expect(parseChain('bsc', 'chain', PRIMARY_CHAINS)).toBe('bsc');
  });

  it.each(['ethereum', 'solana', 'BASE', '', 56, undefined, null])('refuses %p where only primary chains are allowed, listing them', (raw) => {
    expect(rejectionOf(() => parseChain(raw, 'fromChain', PRIMARY_CHAINS))).toEqual({
      field: 'fromChain',
      message: 'fromChain: must be one of base, bsc',
    });
  });

  it('lists all seven chains when all are allowed', () => {
    expect(rejectionOf(() => parseChain('tron', 'toChain')).message).toBe('toChain: must be one of base, bsc, ethereum, polygon, arbitrum, avalanche, solana');
  });
});

describe('parseToken', () => {
  it('reads a token of the chain', () => {
    expect(parseToken('bsc', 'USDT', 'tokenSymbol')).toMatchObject({ symbol: 'USDT', chain: 'bsc', decimals: 18 });
    expect(parseToken('base', 'cbBTC', 'fromToken').decimals).toBe(8);
  });

  it('names the chain a token is missing from', () => {
    expect(rejectionOf(() => parseToken('base', 'BNB', 'toToken'))).toEqual({
      field: 'toToken',
      message: 'toToken: BNB is not available on base; see GET /transfer/chains',
    });
    expect(rejectionOf(() => parseToken('base', 'usdc', 'tokenSymbol')).message).toBe('tokenSymbol: usdc is not available on base; see GET /transfer/chains');
  });

  it('echoes at most 20 characters of an unknown symbol', () => {
    expect(rejectionOf(() => parseToken('base', 'X'.repeat(5000), 'token')).message).toBe(
      `token: ${'X'.repeat(20)} is not available on base; see GET /transfer/chains`,
    );
  });

  it.each([7, '', null, undefined, ['USDC']])('refuses %p, which is not a symbol', (raw) => {
    expect(rejectionOf(() => parseToken('base', raw, 'tokenSymbol')).message).toBe(
      'tokenSymbol: must be a token symbol string, like "USDC"; see GET /transfer/chains',
    );
  });
});

describe('parseAddress', () => {
  it('returns a valid address unchanged', () => {
    expect(parseAddress('base', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'destinationAddress')).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(parseAddress('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'destinationAddress')).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
  });

  it.each([
    ['arbitrum', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    ['base', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'],
    ['bsc', 12345],
  ] as const)('refuses on %s the address %p with the EVM rule', (chain, raw) => {
    expect(rejectionOf(() => parseAddress(chain, raw, 'destinationAddress'))).toEqual({
      field: 'destinationAddress',
      message: 'destinationAddress: must be an EVM address (0x followed by 40 hex digits, EIP-55 checksummed or lowercase)',
    });
  });

  it('refuses an EVM address on solana with the Solana rule', () => {
    expect(rejectionOf(() => parseAddress('solana', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'destinationAddress')).message).toBe(
      'destinationAddress: must be a Solana address (base58, 32 to 44 characters, decoding to a 32-byte public key)',
    );
  });
});
