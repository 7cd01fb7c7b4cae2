import type { Address, Hex, TransactionSerializable } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { SecretBox } from '@ramp/keys';

/**
 * The port through which the platform signs: the chain service holds one per (chain, role). This implementation
 * derives keys from one master seed; production can plug a KMS or MPC signer behind the same two members.
 */
export interface Signer {
  readonly address: Address;
  signTransaction(transaction: TransactionSerializable): Promise<Hex>;
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
 * A signer of a well-known development mnemonic's account (a local test chain's faucet or deployer): public keys of
 * chains that never hold value, never a custody key.
 */
export function developmentSigner(mnemonic: string, addressIndex: number): Signer {
  const account = mnemonicToAccount(mnemonic, { addressIndex });
  return Object.freeze({ address: account.address, signTransaction: (transaction: TransactionSerializable) => account.signTransaction(transaction) });
}

/**
 * Keys derived from one master seed. The seed is given sealed (SECRETS_ENCRYPTION_KEY, as the other secrets at rest)
 * and opened only here; it is never logged, returned or kept anywhere but in this object's closure.
 */
export class HdCustody {
  private readonly signers = new Map<string, Signer>();
  private readonly derive: (path: EvmPath) => Signer;

  private constructor(mnemonic: string) {
    this.derive = (path) => {
      const account = mnemonicToAccount(mnemonic, { path });
      // Only what a Signer is: no private key, no seed reachable from the object handed out.
      return Object.freeze({ address: account.address, signTransaction: (transaction: TransactionSerializable) => account.signTransaction(transaction) });
    };
  }

  /** From a seed sealed with the platform's SecretBox (`npm run custody:seal` prints one). */
  static sealed(sealedMnemonic: string, box: SecretBox): HdCustody {
    return new HdCustody(box.open(sealedMnemonic));
  }

  /** The development seed: never holds value. */
  static development(): HdCustody {
    return new HdCustody(DEVELOPMENT_MNEMONIC);
  }

  /**
   * The custody of the settings: CUSTODY_SEED opened with the platform's SecretBox; the development seed when it is
   * empty, which production refuses (a service must not start signing with a seed anyone can read).
   */
  static fromSettings(sealedSeed: string, box: SecretBox, production: boolean): HdCustody {
    if (sealedSeed) return HdCustody.sealed(sealedSeed, box);
    if (production) throw new Error('CUSTODY_SEED is required in production: the master seed sealed with SECRETS_ENCRYPTION_KEY (npm run custody:seal)');
    return HdCustody.development();
  }

  signer(path: EvmPath): Signer {
    let signer = this.signers.get(path);
    if (!signer) {
      signer = this.derive(path);
      this.signers.set(path, signer);
    }
    return signer;
  }

  /** Keeps the seed out of any log line or JSON that would print this object. */
  toJSON(): string {
    return '[HdCustody]';
  }
}
