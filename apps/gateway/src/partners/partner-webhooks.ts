import type { FastifyInstance } from 'fastify';
import { PartnerEventReceive, platformTenant } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import type { Logger } from '@ramp/service-kit';
import { sendError } from '../edge/error.filter';

/** The bank partners' event routes: outside `/v1`, without an API key (the edge lets them through: PARTNER_ROUTES). */
export const PARTNER_ROUTES = /^\/partners\/[a-z]+\/webhook(\?|$)/;

/** Each partner's route and the header its signature comes in. */
const PARTNERS = { paystack: 'x-paystack-signature', flutterwave: 'verif-hash' } as const;

export interface PartnerWebhookOptions {
  rpc: Pick<RpcClient, 'call'>;
  logger: Logger;
}

/**
 * `POST /partners/paystack/webhook` and `POST /partners/flutterwave/webhook`: a bank partner's event, its body kept as the exact bytes that arrived (in a
 * scope of its own, with no JSON parser: the signature is over the raw body), handed to the ramp service, which
 * verifies it, records it once and answers; 200 only once it is recorded, so the partner resends anything we have not
 * kept. A forged or unsigned event is 401 and nothing is recorded. The edge has already refused an address off
 * PARTNER_WEBHOOK_ALLOWED_IPS (403) and one over PARTNER_WEBHOOK_PER_MINUTE (429), before reading the body.
 */
export async function servePartnerWebhooks(fastify: FastifyInstance, options: PartnerWebhookOptions): Promise<void> {
  await fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    for (const [provider, header] of Object.entries(PARTNERS) as [keyof typeof PARTNERS, string][]) {
      scope.post(`/partners/${provider}/webhook`, async (request, reply) => {
        try {
          const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const signature = request.headers[header];
          const answer = await options.rpc.call(
            PartnerEventReceive.contract,
            platformTenant('live', 'gateway'),
            { provider, rawBody: raw.toString('utf8'), signature: typeof signature === 'string' ? signature : undefined },
            { requestId: request.ctx.requestId },
          );
          await reply.status(200).type('application/json; charset=utf-8').send({ success: true, data: answer });
        } catch (error) {
          sendError(error, request, reply, options.logger);
        }
      });
    }
  });
}
