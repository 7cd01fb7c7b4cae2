import { Controller, Inject } from '@nestjs/common';
import { OfframpQuote, OnrampQuote, QuoteConsume, QuotePeek, SwapQuote, TransferQuote, type Tenant } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { QuotePricer } from './quote-pricer';
import { QuoteStore } from './quote-store';

/** NATS adapter of the quote use cases: price, store, consume. */
@Controller()
export class QuotesNatsController {
  constructor(
    @Inject(QuotePricer) private readonly pricer: QuotePricer,
    @Inject(QuoteStore) private readonly store: QuoteStore,
  ) {}

  @Handles(OnrampQuote.contract)
  async onramp(@RequestData() request: OnrampQuote.Request, @CallerTenant() tenant: Tenant): Promise<OnrampQuote.Response> {
    return this.store.save(tenant, 'onramp', request, await this.pricer.onramp(request, tenant), new Date());
  }

  @Handles(OfframpQuote.contract)
  async offramp(@RequestData() request: OfframpQuote.Request, @CallerTenant() tenant: Tenant): Promise<OfframpQuote.Response> {
    return this.store.save(tenant, 'offramp', request, await this.pricer.offramp(request, tenant), new Date());
  }

  @Handles(SwapQuote.contract)
  async swap(@RequestData() request: SwapQuote.Request, @CallerTenant() tenant: Tenant): Promise<SwapQuote.Response> {
    return this.store.save(tenant, 'swap', request, await this.pricer.swap(request, tenant), new Date());
  }

  @Handles(TransferQuote.contract)
  async transfer(@RequestData() request: TransferQuote.Request, @CallerTenant() tenant: Tenant): Promise<TransferQuote.Response> {
    return this.store.save(tenant, 'transfer', request, await this.pricer.transfer(request, tenant), new Date());
  }

  @Handles(QuoteConsume.contract)
  async consume(@RequestData() request: QuoteConsume.Request, @CallerTenant() tenant: Tenant): Promise<QuoteConsume.Response> {
    return this.store.consume(tenant, request, new Date());
  }

  @Handles(QuotePeek.contract)
  async peek(@RequestData() request: QuotePeek.Request, @CallerTenant() tenant: Tenant): Promise<QuotePeek.Response> {
    return this.store.peek(tenant, request, new Date());
  }
}
