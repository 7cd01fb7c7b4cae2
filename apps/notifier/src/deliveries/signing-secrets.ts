import { AppError, type Environment } from '@ramp/contracts';
import type { SecretBox } from '@ramp/keys';
import type { ClaimedDelivery } from './delivery-store';

/** The secret can never be had (the key is gone): the attempt fails with this message. */
export class SecretMissing extends Error {}

/** Asks the gateway for a key's sealed API secret (KeySigningSecret). */
export type SealedApiSecretSource = (tenant: { organizationId: string; environment: Environment; keyId: string }) => Promise<string>;

const CALLBACK_SECRET_TTL_MS = 5 * 60_000;

/**
 * The secret that signs a delivery (DESIGN.md §4): a webhook's own `whsec_` secret, opened from its sealed copy; for a
 * per-transaction callback, the API secret of the key that initiated the transaction, fetched sealed from the gateway
 * and cached for a few minutes. Plain secrets live only in memory, never in a log or a table.
 */
export class SigningSecrets {
  private readonly apiSecrets = new Map<string, { sealed: string; until: number }>();

  constructor(
    private readonly box: SecretBox,
    private readonly fetchSealedApiSecret: SealedApiSecretSource,
  ) {}

  async secretFor(delivery: ClaimedDelivery): Promise<string> {
    if (delivery.webhookId) {
      if (!delivery.secretSealed) throw new SecretMissing('the webhook has no secret');
      return this.open(delivery.secretSealed);
    }
    const keyId = delivery.keyId;
    if (!keyId) throw new SecretMissing('the callback has no signing key');
    const cached = this.apiSecrets.get(keyId);
    if (cached && cached.until > Date.now()) return this.open(cached.sealed);
    let sealed: string;
    try {
      sealed = await this.fetchSealedApiSecret({ organizationId: delivery.organizationId, environment: delivery.environment, keyId });
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND')
        throw new SecretMissing(`the initiating key ${keyId} no longer exists, so the callback cannot be signed`);
      throw error;
    }
    if (this.apiSecrets.size > 10_000) this.apiSecrets.clear();
    this.apiSecrets.set(keyId, { sealed, until: Date.now() + CALLBACK_SECRET_TTL_MS });
    return this.open(sealed);
  }

  /** A secret that cannot be opened will never open (tampered, or SECRETS_ENCRYPTION_KEY differs): the attempt fails. */
  private open(sealed: string): string {
    try {
      return this.box.open(sealed);
    } catch {
      throw new SecretMissing('the signing secret cannot be decrypted (is SECRETS_ENCRYPTION_KEY the one it was sealed with?)');
    }
  }
}
