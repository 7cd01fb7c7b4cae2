import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'crypto';

/** The development-only key: documented, so that a developer's database can be read by any developer's services. */
const DEVELOPMENT_KEY = createHash('sha256').update('ramp-platform development secrets key: never use in production').digest();

/**
 * Encrypts secrets at rest (API secrets, webhook secrets) with AES-256-GCM. Signing needs the plaintext later,
 * so these are encrypted rather than hashed. Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(base64Key: string | undefined, production: boolean) {
    if (!base64Key) {
      if (production) throw new Error('SECRETS_ENCRYPTION_KEY is required in production (base64 of 32 random bytes)');
      this.key = DEVELOPMENT_KEY;
      return;
    }
    const key = Buffer.from(base64Key, 'base64');
    if (key.length !== 32) throw new Error('SECRETS_ENCRYPTION_KEY must be base64 of exactly 32 bytes');
    this.key = key;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
