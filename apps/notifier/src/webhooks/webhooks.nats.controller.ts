import { Controller, Inject } from '@nestjs/common';
import {
  WebhookCreate,
  WebhookDelete,
  WebhookDeliveries,
  WebhookList,
  WebhookRetry,
  WebhookTest,
  type DeliveryView,
  type Tenant,
  type WebhookView,
} from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { WebhookRegistry } from './webhook-registry';

@Controller()
export class WebhooksNatsController {
  constructor(@Inject(WebhookRegistry) private readonly registry: WebhookRegistry) {}

  @Handles(WebhookCreate.contract)
  create(@RequestData() request: WebhookCreate.Request, @CallerTenant() tenant: Tenant): Promise<WebhookView> {
    return this.registry.create(tenant, request);
  }

  @Handles(WebhookList.contract)
  list(@CallerTenant() tenant: Tenant): Promise<WebhookView[]> {
    return this.registry.list(tenant);
  }

  @Handles(WebhookDelete.contract)
  delete(@RequestData() request: WebhookDelete.Request, @CallerTenant() tenant: Tenant): Promise<{ id: string; deleted: true }> {
    return this.registry.delete(tenant, request.webhookId);
  }

  @Handles(WebhookDeliveries.contract)
  deliveries(@RequestData() request: WebhookDeliveries.Request, @CallerTenant() tenant: Tenant): Promise<WebhookDeliveries.Response> {
    return this.registry.deliveries(tenant, request);
  }

  @Handles(WebhookRetry.contract)
  retry(@RequestData() request: WebhookRetry.Request, @CallerTenant() tenant: Tenant): Promise<DeliveryView> {
    return this.registry.retry(tenant, request.webhookId, request.deliveryId);
  }

  @Handles(WebhookTest.contract)
  test(@RequestData() request: WebhookTest.Request, @CallerTenant() tenant: Tenant): Promise<DeliveryView> {
    return this.registry.test(tenant, request.webhookId);
  }
}
