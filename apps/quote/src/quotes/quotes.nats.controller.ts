import { Inject, Injectable } from '@nestjs/common';
import { OfframpQuote, OnrampQuote, QuoteConsume, QuotePeek, SwapQuote, TransferQuote } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { QuotePricer } from './quote-pricer';
import { QuoteStore } from './quote-store';

/** NATS adapter of the quote use cases: price, store, consume. */
@Injectable()
export class QuotesNatsController {
  constructor(
    @Inject(QuotePricer) private readonly pricer: QuotePricer,
    @Inject(QuoteStore) private readonly store: QuoteStore,
  ) {}

  @RpcHandler(OnrampQuote.contract)
  async onramp(request: OnrampQuote.Request, { tenant }: RpcContext): Promise<OnrampQuote.Response> {
    return this.store.save(tenant, 'onramp', request, await this.pricer.onramp(request), new Date());
  }

  @RpcHandler(OfframpQuote.contract)
  async offramp(request: OfframpQuote.Request, { tenant }: RpcContext): Promise<OfframpQuote.Response> {
    return this.store.save(tenant, 'offramp', request, await this.pricer.offramp(request), new Date());
  }

  @RpcHandler(SwapQuote.contract)
  async swap(request: SwapQuote.Request, { tenant }: RpcContext): Promise<SwapQuote.Response> {
    return this.store.save(tenant, 'swap', request, await this.pricer.swap(request), new Date());
  }

  @RpcHandler(TransferQuote.contract)
  async transfer(request: TransferQuote.Request, { tenant }: RpcContext): Promise<TransferQuote.Response> {
    return this.store.save(tenant, 'transfer', request, await this.pricer.transfer(request), new Date());
  }

  @RpcHandler(QuoteConsume.contract)
  async consume(request: QuoteConsume.Request, { tenant }: RpcContext): Promise<QuoteConsume.Response> {
    return this.store.consume(tenant, request, new Date());
  }

  @RpcHandler(QuotePeek.contract)
  async peek(request: QuotePeek.Request, { tenant }: RpcContext): Promise<QuotePeek.Response> {
    return this.store.peek(tenant, request, new Date());
  }
}
