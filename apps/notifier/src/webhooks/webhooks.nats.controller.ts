import { Inject, Injectable } from '@nestjs/common';
import { WebhookCreate, WebhookDelete, WebhookDeliveries, WebhookList, WebhookRetry, WebhookTest, type DeliveryView, type WebhookView } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { WebhookRegistry } from './webhook-registry';

@Injectable()
export class WebhooksNatsController {
  constructor(@Inject(WebhookRegistry) private readonly registry: WebhookRegistry) {}

  @RpcHandler(WebhookCreate.contract)
  create(request: WebhookCreate.Request, { tenant }: RpcContext): Promise<WebhookView> {
    return this.registry.create(tenant, request);
  }

  @RpcHandler(WebhookList.contract)
  list(_request: unknown, { tenant }: RpcContext): Promise<WebhookView[]> {
    return this.registry.list(tenant);
  }

  @RpcHandler(WebhookDelete.contract)
  delete(request: WebhookDelete.Request, { tenant }: RpcContext): Promise<{ id: string; deleted: true }> {
    return this.registry.delete(tenant, request.webhookId);
  }

  @RpcHandler(WebhookDeliveries.contract)
  deliveries(request: WebhookDeliveries.Request, { tenant }: RpcContext): Promise<WebhookDeliveries.Response> {
    return this.registry.deliveries(tenant, request);
  }

  @RpcHandler(WebhookRetry.contract)
  retry(request: WebhookRetry.Request, { tenant }: RpcContext): Promise<DeliveryView> {
    return this.registry.retry(tenant, request.webhookId, request.deliveryId);
  }

  @RpcHandler(WebhookTest.contract)
  test(request: WebhookTest.Request, { tenant }: RpcContext): Promise<DeliveryView> {
    return this.registry.test(tenant, request.webhookId);
  }
}
