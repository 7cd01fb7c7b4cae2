import { Inject, Injectable } from '@nestjs/common';
import { isIdOf, KeySigningSecret, notFound } from '@ramp/contracts';
import { KeyStore } from '@ramp/keys';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';

/** The gateway owns the keys: it hands the notifier the sealed API secret that signs a transaction's callbacks. */
@Injectable()
export class KeysNatsController {
  constructor(@Inject(KeyStore) private readonly keys: KeyStore) {}

  @RpcHandler(KeySigningSecret.contract)
  async signingSecret(request: KeySigningSecret.Request, { tenant }: RpcContext): Promise<KeySigningSecret.Response> {
    const sealed = isIdOf('key', request.keyId) ? await this.keys.sealedSecretOf(request.keyId, tenant) : undefined;
    if (!sealed) throw notFound(`Key ${String(request.keyId).slice(0, 40)} not found`);
    return { keyId: request.keyId, secretSealed: sealed };
  }
}
