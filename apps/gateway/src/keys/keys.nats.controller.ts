import { Controller, Inject } from '@nestjs/common';
import { AppError, isIdOf, KeySigningSecret, type Tenant } from '@ramp/contracts';
import { KeyStore } from '@ramp/keys';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';

/** The gateway owns the keys: it hands the notifier the sealed API secret that signs a transaction's callbacks. */
@Controller()
export class KeysNatsController {
  constructor(@Inject(KeyStore) private readonly keys: KeyStore) {}

  @Handles(KeySigningSecret.contract)
  async signingSecret(@RequestData() request: KeySigningSecret.Request, @CallerTenant() tenant: Tenant): Promise<KeySigningSecret.Response> {
    const sealed = isIdOf('key', request.keyId) ? await this.keys.sealedSecretOf(request.keyId, tenant) : undefined;
    if (!sealed) throw new AppError('RESOURCE_NOT_FOUND', `Key ${String(request.keyId).slice(0, 40)} not found`);
    return { keyId: request.keyId, secretSealed: sealed };
  }
}
