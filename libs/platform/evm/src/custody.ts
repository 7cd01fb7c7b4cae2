import type { Address, Hex, TransactionSerializable } from 'viem';
import { createHash, pbkdf2Sync } from 'crypto';
import { english, hdKeyToAccount, HDKey, mnemonicToAccount, toAccount, type HDAccount, type LocalAccount } from 'viem/accounts';
import { SecretBox } from '@ramp/keys';

/**
 * The port through which the platform signs: the chain service holds one per (chain, role). This implementation
 * derives keys from one master seed; production can plug a KMS or MPC signer behind the same two members.
 */
export interface Signer {
  readonly address: Address;
  signTransaction(transaction: TransactionSerializable): Promise<Hex>;
  /**
   * The EIP-191 signature of a 32-byte hash (`personal_sign` of its bytes): what a smart account's owner signs for a
   * UserOperation, and the verifying paymaster's signer for its sponsorship.
   */
  signHash(hash: Hex): Promise<Hex>;
}

/** Only what a Signer is: no private key, no seed reachable from the object handed out. */
function signerOf(account: HDAccount): Signer {
  return Object.freeze({
    address: account.address,
    signTransaction: (transaction: TransactionSerializable) => account.signTransaction(transaction),
    signHash: async (hash: Hex) => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error('signHash signs a 32-byte hash only');
      return account.signMessage({ message: { raw: hash } });
    },
  });
}

/**
 * A Signer as viem's account, for a WalletClient that sends its transactions (deploying the paymaster): it signs
 * transactions and hashes, nothing else.
 */
export function accountOfSigner(signer: Signer): LocalAccount {
  const refuse = async (): Promise<never> => {
    throw new Error('a custody signer signs transactions and 32-byte hashes only');
  };
  return toAccount({
    address: signer.address,
    signTransaction: (transaction) => signer.signTransaction(transaction),
    signMessage: async ({ message }) => {
      if (typeof message === 'object' && typeof message.raw === 'string' && message.raw.length === 66) return signer.signHash(message.raw as Hex);
      return refuse();
    },
    signTypedData: refuse,
  });
}

/**
 * The path of the key that owns the smart account of managed wallet `walletId` (CHAIN.md section 5): one key per
 * wallet, never a hot wallet's, the same on every chain (so the account has one address on base and bsc). The two last
 * indexes are 62 bits of the id's SHA-256, under the account 4337'.
 */
export function accountOwnerPath(walletId: string): EvmPath {
  const digest = createHash('sha256').update(`smart-account-owner:${walletId}`).digest();
  return evmPath(`m/44'/60'/4337'/${digest.readUInt32BE(0) & 0x7fffffff}/${digest.readUInt32BE(4) & 0x7fffffff}`);
}

/** A BIP-44 path of an EVM key, as viem takes it. */
export type EvmPath = `m/44'/60'/${string}`;

const PATH = /^m\/44'\/60'(\/\d+'?){1,3}$/;

export function evmPath(raw: string): EvmPath {
  if (!PATH.test(raw)) throw new Error(`not a BIP-44 EVM derivation path (m/44'/60'/…): "${raw}"`);
  return raw as EvmPath;
}

/**
 * The development master seed: documented, never holding real value, so a developer's local chains work with no
 * configuration. It is not anvil's mnemonic, so the hot wallets are not anvil's prefunded accounts.
 */
export const DEVELOPMENT_MNEMONIC = 'casual mad major limit office cricket tunnel conduct beyond fuel inch glare';

/**
 * Seeds that are public, and so never a live seed: anvil's and Hardhat's default mnemonic (the local test chains'
 * faucet and deployer, LOCAL_CHAIN_ACCOUNTS; every tutorial's), and the BIP-39 test vectors' all-`abandon` one. A key
 * from any of them is swept by bots the moment it holds value on a real chain.
 */
const PUBLIC_MNEMONICS: readonly string[] = [
  'test test test test test test test test test test test junk',
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
];

/**
 * What is wrong with a BIP-39 mnemonic (English wordlist), or undefined when it is one: 12 to 24 words (a multiple of
 * 3), each of the list, whose last bits are the checksum of the entropy (SHA-256). A mistyped word is found here,
 * before it seals a seed whose keys nobody could derive again from the written-down words.
 */
export function mnemonicProblem(mnemonic: string): string | undefined {
  const words = mnemonic.trim().split(/\s+/).filter(Boolean);
  if (![12, 15, 18, 21, 24].includes(words.length)) return `a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, not ${words.length}`;
  const indexes = words.map((word) => english.indexOf(word));
  const unknown = indexes.findIndex((index) => index < 0);
  if (unknown >= 0) return `word ${unknown + 1} is not in the BIP-39 English wordlist`;
  const bits = indexes.map((index) => index.toString(2).padStart(11, '0')).join('');
  const checksumBits = words.length / 3;
  const entropyBits = bits.slice(0, bits.length - checksumBits);
  const entropy = Buffer.from(entropyBits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const expected = createHash('sha256').update(entropy).digest()[0]!.toString(2).padStart(8, '0').slice(0, checksumBits);
  if (expected !== bits.slice(bits.length - checksumBits)) return 'its checksum does not match: a word is mistyped or out of order';
  return undefined;
}

/**
 * A signer of a well-known development mnemonic's account (a local test chain's faucet or deployer): public keys of
 * chains that never hold value, never a custody key.
 */
export function developmentSigner(mnemonic: string, addressIndex: number): Signer {
  return signerOf(mnemonicToAccount(mnemonic, { addressIndex }));
}

/**
 * Keys derived from one master seed. The seed is given sealed (with CUSTODY_SEALING_KEY, a key of the chain service
 * alone, apart from the SECRETS_ENCRYPTION_KEY the other services seal their secrets with) and opened only here; it is never logged, returned or kept anywhere but in this object's closure.
 */
export class HdCustody {
  private readonly signers = new Map<string, Signer>();
  private readonly derive: (path: EvmPath) => Signer;

  private constructor(mnemonic: string) {
    // BIP-39's seed (PBKDF2-HMAC-SHA512, 2,048 rounds) once, not per key: a wallet's owner key is derived on demand.
    const master = HDKey.fromMasterSeed(pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512'));
    this.derive = (path) => signerOf(hdKeyToAccount(master, { path }));
  }

  /** From a seed sealed with the custody's SecretBox (`npm run custody:seal` prints one). */
  static sealed(sealedMnemonic: string, box: SecretBox): HdCustody {
    return new HdCustody(openMnemonic(sealedMnemonic, box, 'the custody seed'));
  }

  /** The development seed: never holds value. */
  static development(): HdCustody {
    return new HdCustody(DEVELOPMENT_MNEMONIC);
  }

  /**
   * The custody of each environment, from the settings (seeds sealed with CUSTODY_SEALING_KEY, which only the chain
   * service holds), refusing what would let one key sign for both or anyone read a live key:
   * - live chains configured: CUSTODY_SEED is required, and is neither the development seed (whatever NODE_ENV says)
   *   nor the test seed;
   * - test chains: TEST_CUSTODY_SEED, or the development seed outside production;
   * - no hot wallet address of one environment may be one of the other's (overlapping paths of one seed, or the same
   *   seed twice).
   */
  static forEnvironments(settings: {
    testSeed: string;
    liveSeed: string;
    box: SecretBox;
    production: boolean;
    testPaths: readonly EvmPath[];
    livePaths: readonly EvmPath[];
  }): { test: HdCustody; live: HdCustody | undefined } {
    const { box, production, testPaths, livePaths } = settings;
    if (settings.testSeed === '' && production && testPaths.length > 0) {
      throw new Error("TEST_CUSTODY_SEED is required in production: the test chains' master seed sealed with CUSTODY_SEALING_KEY (npm run custody:seal)");
    }
    const testMnemonic = settings.testSeed ? openMnemonic(settings.testSeed, box, 'TEST_CUSTODY_SEED') : DEVELOPMENT_MNEMONIC;
    const test = new HdCustody(testMnemonic);
    if (livePaths.length === 0) return { test, live: undefined };
    if (!settings.liveSeed)
      throw new Error("CUSTODY_SEED is required when LIVE_CHAINS is set: the live chains' master seed sealed with CUSTODY_SEALING_KEY (npm run custody:seal)");
    const liveMnemonic = openMnemonic(settings.liveSeed, box, 'CUSTODY_SEED');
    if (liveMnemonic === DEVELOPMENT_MNEMONIC)
      throw new Error('CUSTODY_SEED is the development seed, which anyone can read: live chains need a seed of their own');
    if (PUBLIC_MNEMONICS.includes(liveMnemonic))
      throw new Error(
        "CUSTODY_SEED is a public seed (anvil's and Hardhat's default, or a BIP-39 test vector), whose keys anyone holds: live chains need a seed of their own",
      );
    if (liveMnemonic === testMnemonic)
      throw new Error('CUSTODY_SEED and TEST_CUSTODY_SEED are the same seed: test and live keys must come from different seeds');
    const live = new HdCustody(liveMnemonic);
    const testAddresses = new Set(testPaths.map((path) => test.signer(path).address));
    const shared = livePaths.find((path) => testAddresses.has(live.signer(path).address));
    if (shared) throw new Error(`the live hot wallet at ${shared} is also a test hot wallet: test and live chains must not share an address`);
    return { test, live };
  }

  /** The signer at `path`, kept: the chain's hot wallet, lanes, faucet and paymaster keys. */
  signer(path: EvmPath): Signer {
    let signer = this.signers.get(path);
    if (!signer) {
      signer = this.derive(path);
      this.signers.set(path, signer);
    }
    return signer;
  }

  /** The signer at `path`, not kept: one of many (each managed wallet's account owner, accountOwnerPath). */
  derived(path: EvmPath): Signer {
    return this.signers.get(path) ?? this.derive(path);
  }

  /** Keeps the seed out of any log line or JSON that would print this object. */
  toJSON(): string {
    return '[HdCustody]';
  }
}

/** A sealed seed opened, and refused unless it is a BIP-39 mnemonic (its words and its checksum). */
function openMnemonic(sealed: string, box: SecretBox, name: string): string {
  const mnemonic = box.open(sealed).trim().split(/\s+/).join(' ');
  const problem = mnemonicProblem(mnemonic);
  if (problem) throw new Error(`${name} is not a BIP-39 mnemonic: ${problem}`);
  return mnemonic;
}
