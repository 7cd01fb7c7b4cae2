import { decodeBase58, isValidAddress, isValidEvmAddress, isValidSolanaAddress, toChecksumAddress } from './addresses';

function hex(bytes: Uint8Array | undefined): string | undefined {
  return bytes && Buffer.from(bytes).toString('hex');
}

function flipCase(text: string, index: number): string {
  const char = text[index];
  const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
  return text.slice(0, index) + flipped + text.slice(index + 1);
}

// The examples of EIP-55 itself.
const EIP55_MIXED_CASE = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];
const EIP55_ALL_CAPS = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50516107C3'];
const EIP55_ALL_LOWER = ['0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26'];

describe('EVM addresses', () => {
  it.each(EIP55_MIXED_CASE)('checksums %s as EIP-55 does', (address) => {
    expect(toChecksumAddress(address.toLowerCase())).toBe(address);
    expect(toChecksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(address);
  });

  it.each([...EIP55_MIXED_CASE, ...EIP55_ALL_CAPS, ...EIP55_ALL_LOWER])('accepts %s', (address) => {
    expect(isValidEvmAddress(address)).toBe(true);
  });

  it('accepts any EIP-55 address written all lowercase', () => {
    for (const address of EIP55_MIXED_CASE) expect(isValidEvmAddress(address.toLowerCase())).toBe(true);
  });

  it.each(EIP55_MIXED_CASE)('refuses %s with any one letter in the wrong case', (address) => {
    for (let i = 2; i < address.length; i++) {
      if (!/[a-fA-F]/.test(address[i])) continue;
      expect(isValidEvmAddress(flipCase(address, i))).toBe(false);
    }
  });

  it.each([
    ['39 hex digits', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'],
    ['41 hex digits', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed0'],
    ['no 0x', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['an upper-case 0X', '0X5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED'],
    ['a non-hex letter', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg'],
    ['a Solana key', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    ['nothing', ''],
  ])('refuses an address with %s', (_case, address) => {
    expect(isValidEvmAddress(address)).toBe(false);
  });
});

describe('base58', () => {
  it.each([
    ['', ''],
    ['1', '00'],
    ['z', '39'],
    ['21', '3a'],
    ['2g', '61'],
    ['a3gV', '626262'],
    ['aPEr', '636363'],
    ['2cFupjhnEsSn59qHXstmK2ffpLv2', Buffer.from('simply a long string').toString('hex')],
    ['1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L', '00eb15231dfceb60925886b67d065299925915aeb172c06647'],
    ['11233QC4', '0000287fb4cd'],
  ])('decodes %p to %s', (text, expected) => {
    expect(hex(decodeBase58(text))).toBe(expected);
  });

  it.each(['0', 'O', 'I', 'l', '+', ' '])('refuses %p, outside the bitcoin alphabet', (char) => {
    expect(decodeBase58(`abc${char}def`)).toBeUndefined();
  });
});

describe('Solana addresses', () => {
  it.each([
    ['the USDC mint', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    ['the USDT mint', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'],
    ['the token program', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'],
    ['the system program (32 zero bytes)', '11111111111111111111111111111111'],
  ])('accepts %s', (_case, address) => {
    expect(isValidSolanaAddress(address)).toBe(true);
  });

  it.each([
    ['33 bytes of zeros', '1'.repeat(33)],
    ['a 33-byte value', 'z'.repeat(44)],
    ['a value too short for 32 bytes', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGG'],
    ['more than 44 characters', `${'1'.repeat(32)}${'2'.repeat(13)}`],
    ['a zero', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10'],
    ['an upper-case o', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtOv'],
    ['an upper-case i', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtIv'],
    ['a lower-case L', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtlv'],
    ['an EVM address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['nothing', ''],
  ])('refuses %s', (_case, address) => {
    expect(isValidSolanaAddress(address)).toBe(false);
  });
});

describe('isValidAddress', () => {
  it('checks an address by the family of its chain', () => {
    expect(isValidAddress('base', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(true);
    expect(isValidAddress('avalanche', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(true);
    expect(isValidAddress('solana', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false);
    expect(isValidAddress('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(isValidAddress('bsc', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(false);
  });
});
