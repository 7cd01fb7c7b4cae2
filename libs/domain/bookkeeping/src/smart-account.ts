import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils';
import { toChecksumAddress } from '@ramp/chains';

/**
 * The sandbox's smart-account factory on each primary chain, and the hash of the account's init code. A managed
 * wallet's address is the CREATE2 address the factory would deploy it at, salted with the wallet id: deterministic
 * (the same wallet always has the same address, on every replica, before any deployment) and distinct per wallet.
 */
export const SMART_ACCOUNT_FACTORY: Readonly<Record<'base' | 'bsc', string>> = {
  base: '0x0000000000400CdFef5E2714E63d8040b700BC24',
  bsc: '0x0000000000400CdFef5E2714E63d8040b700BC24',
};
const INIT_CODE_HASH = keccak_256(utf8ToBytes('ramp-platform smart account v1'));

/** A managed wallet's address: CREATE2 by the chain's factory, salted with keccak256(`<chain>:<walletId>`). */
export function smartAccountAddress(chain: 'base' | 'bsc', walletId: string): string {
  return create2Address(SMART_ACCOUNT_FACTORY[chain], keccak_256(utf8ToBytes(`${chain}:${walletId}`)), INIT_CODE_HASH);
}

/** EIP-1014: keccak256(0xff ++ deployer ++ salt ++ keccak256(initCode))[12:], EIP-55 checksummed. */
export function create2Address(deployer: string, salt: Uint8Array, initCodeHash: Uint8Array): string {
  const preimage = new Uint8Array(1 + 20 + 32 + 32);
  preimage[0] = 0xff;
  preimage.set(hexToBytes(deployer.slice(2).toLowerCase()), 1);
  preimage.set(salt, 21);
  preimage.set(initCodeHash, 53);
  return toChecksumAddress(`0x${bytesToHex(keccak_256(preimage).slice(12))}`);
}
