import { keccak_256 } from '@noble/hashes/sha3';
import { chainFamily, type ChainName } from './registry';

/** The bitcoin base58 alphabet, which Solana uses: no 0, O, I or l. */
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_VALUE: ReadonlyMap<string, number> = new Map([...BASE58_ALPHABET].map((char, value) => [char, value]));

const SOLANA_PUBLIC_KEY_BYTES = 32;
/** A 32-byte key is 32 to 44 base58 characters; refusing longer text first bounds the decoding work. */
const SOLANA_ADDRESS_LENGTH = { min: 32, max: 44 } as const;

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Decodes base58 text to bytes (big-endian, each leading "1" a leading zero byte); undefined when a character is
 * outside the alphabet.
 */
export function decodeBase58(text: string): Uint8Array | undefined {
  const littleEndian: number[] = [];
  for (const char of text) {
    let carry = BASE58_VALUE.get(char);
    if (carry === undefined) return undefined;
    for (let i = 0; i < littleEndian.length; i++) {
      carry += littleEndian[i] * 58;
      littleEndian[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      littleEndian.push(carry & 0xff);
      carry >>= 8;
    }
  }
  for (const char of text) {
    if (char !== '1') break;
    littleEndian.push(0);
  }
  return Uint8Array.from(littleEndian.reverse());
}

/** EIP-55: a hex letter is upper case exactly when the matching nibble of keccak256(lowercase hex) is 8 or more. */
export function toChecksumAddress(address: string): string {
  if (!EVM_ADDRESS.test(address)) throw new Error(`not an EVM address: "${address}"`);
  const lower = address.slice(2).toLowerCase();
  const hash = keccak_256(lower);
  let checksummed = '0x';
  for (let i = 0; i < lower.length; i++) {
    const hashByte = hash[i >> 1];
    const nibble = i % 2 === 0 ? hashByte >> 4 : hashByte & 0x0f;
    checksummed += nibble >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return checksummed;
}

/**
 * `0x` and 40 hex digits: all lowercase or all uppercase (no checksum to check), otherwise exactly the EIP-55
 * checksum, so that a mistyped mixed-case address is refused rather than sent funds.
 */
export function isValidEvmAddress(address: string): boolean {
  if (!EVM_ADDRESS.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return toChecksumAddress(address) === address;
}

/** A Solana address is the base58 text of a 32-byte public key. */
export function isValidSolanaAddress(address: string): boolean {
  if (address.length < SOLANA_ADDRESS_LENGTH.min || address.length > SOLANA_ADDRESS_LENGTH.max) return false;
  return decodeBase58(address)?.length === SOLANA_PUBLIC_KEY_BYTES;
}

export function isValidAddress(chain: ChainName, address: string): boolean {
  return chainFamily(chain) === 'solana' ? isValidSolanaAddress(address) : isValidEvmAddress(address);
}
