import { readFileSync } from 'fs';
import { join } from 'path';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { PathItemObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelopeSchema, PaginationMetaSchema } from './envelopes';
import { describeOperations } from './operations';
import { API_TAGS } from './tags';
import {
  OFFRAMP_COMPLETED_EVENT,
  OFFRAMP_PAYOUT_REVERSED_EVENT,
  OfframpWebhookEventSchema,
  WALLET_DEPOSIT_REVERSED_EVENT,
  WalletWebhookEventSchema,
  webhookExtensions,
  WebhookEventSchema,
} from './webhook-events';

/** The OpenAPI 3 document, generated from the controllers and DTOs of the gateway. */
export function buildOpenApi(app: INestApplication): OpenAPIObject {
  describeOperations();
  const builder = new DocumentBuilder()
    .setTitle('Ramp, Swap and Cross-Chain Transfer API')
    .setVersion('1.0.0')
    .setDescription(
      [
        'On-ramp (buy crypto with NGN), off-ramp (sell crypto for NGN paid to a bank account), swaps and cross-chain transfers.',
        'Every request carries `x-api-key`. Amounts are decimal strings. Every response is an envelope: `{ success: true, data }`',
        'or `{ success: false, error: { code, reason, message, field? } }` (`reason`: a stable name of the cause to branch on). Every response carries `X-RateLimit-Policy` (the per-minute limit',
        'and the per-second burst), `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (the limit that refused a 429,',
        'otherwise the tighter of the two), and `x-request-id`. POST requests accept `Idempotency-Key`.',
      ].join(' '),
    )
    .addServer('/v1', 'This server')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'service_test_… (sandbox) or service_live_… (production).' }, 'apiKey');
  for (const [name, description] of Object.entries(API_TAGS)) builder.addTag(name, description);
  const { examples, xWebhooks } = webhookExtensions();
  builder.addExtension('x-webhooks', xWebhooks);
  // Tags come from each operation (ApiEndpoint), never from a controller's name.
  const document = SwaggerModule.createDocument(app, builder.build(), {
    ignoreGlobalPrefix: true,
    autoTagControllers: false,
    extraModels: [ErrorEnvelopeSchema, PaginationMetaSchema, WebhookEventSchema, WalletWebhookEventSchema, OfframpWebhookEventSchema],
  });
  const schemas = document.components?.schemas ?? {};
  schemas['WebhookEvent'] = { ...schemas['WebhookEvent'], example: OFFRAMP_COMPLETED_EVENT };
  schemas['WalletWebhookEvent'] = { ...schemas['WalletWebhookEvent'], example: WALLET_DEPOSIT_REVERSED_EVENT };
  schemas['OfframpWebhookEvent'] = { ...schemas['OfframpWebhookEvent'], example: OFFRAMP_PAYOUT_REVERSED_EVENT };
  document.components = { ...document.components, schemas, examples };
  // Probes and metrics are served at the root, not under the /v1 server, and need no key.
  for (const [path, item] of Object.entries(document.paths)) {
    const operations = Object.values(item).filter(
      (operation): operation is { tags?: string[]; security?: unknown[] } => typeof operation === 'object' && operation !== null && 'responses' in operation,
    );
    if (!operations.some((operation) => operation.tags?.includes('Operations'))) continue;
    for (const operation of operations) operation.security = [];
    document.paths[path] = { ...item, servers: [{ url: '/', description: 'The root of this server' }] };
  }
  Object.assign(document.paths, PARTNER_WEBHOOKS);
  return document;
}

function partnerError(description: string, code: string, reason: string) {
  const example = { success: false, error: { code, reason, message: description } };
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeSchema' }, example } } };
}

/** A bank partner's event route (servePartnerWebhooks: a Fastify route of its own, so not in Nest's document). */
function partnerWebhook(partner: { operationId: string; name: string; header: string; signature: string; example: string }): PathItemObject {
  return {
    servers: [{ url: '/', description: 'The root of this server' }],
    post: {
      operationId: partner.operationId,
      tags: ['Partners'],
      security: [],
      summary: `${partner.name}'s events about the platform's payouts and collections`,
      description:
        `${partner.name} POSTs its events here (set as the webhook URL of the live ${partner.name} integration). \`${partner.header}\` must be ${partner.signature}, ` +
        'or the answer is 401 (PARTNER_SIGNATURE_INVALID) and nothing is recorded. A valid event is recorded once (a resend of the same event, reference and status is recognised) and answered 200; ' +
        `anything else, such as 503 while the ramp service is down, makes ${partner.name} send it again. With PARTNER_WEBHOOK_ALLOWED_IPS set, another source address is 403 (IP_NOT_ALLOWED).`,
      parameters: [{ name: partner.header, in: 'header', required: true, description: partner.signature, schema: { type: 'string' } }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['event', 'data'],
              properties: { event: { type: 'string', example: partner.example }, data: { type: 'object', additionalProperties: true } },
            },
          },
        },
      },
      responses: {
        '200': { description: 'Recorded (`recorded: false`: a resend, recorded before).' },
        '401': partnerError('The signature is missing or wrong: nothing recorded.', 'UNAUTHORIZED', 'PARTNER_SIGNATURE_INVALID'),
        '403': partnerError("The source address is not one of the partner's.", 'FORBIDDEN', 'IP_NOT_ALLOWED'),
        '503': partnerError('Not recorded now: the partner sends it again.', 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE'),
      },
    },
  };
}

const PARTNER_WEBHOOKS: Record<string, PathItemObject> = {
  '/partners/paystack/webhook': partnerWebhook({
    operationId: 'receivePaystackEvent',
    name: 'Paystack',
    header: 'x-paystack-signature',
    signature: 'the hex HMAC-SHA512 of the raw body, keyed with the Paystack secret key',
    example: 'transfer.success',
  }),
  '/partners/flutterwave/webhook': partnerWebhook({
    operationId: 'receiveFlutterwaveEvent',
    name: 'Flutterwave',
    header: 'verif-hash',
    signature: "the secret hash set in Flutterwave's dashboard (FLUTTERWAVE_WEBHOOK_HASH)",
    example: 'transfer.completed',
  }),
};

const SWAGGER_UI = join(require.resolve('swagger-ui-dist/package.json'), '..');

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ramp API reference</title>
<link rel="stylesheet" href="/v1/docs/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="/v1/docs/swagger-ui-bundle.js"></script>
<script src="/v1/docs/init.js"></script></body></html>`;

const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#docs', deepLinking: true });`;

/** Serves the document at /v1/openapi.json and a readable reference at /v1/docs, with no key and no CDN. */
export function serveOpenApi(fastify: FastifyInstance, document: OpenAPIObject): void {
  const json = JSON.stringify(document);
  fastify.get('/v1/openapi.json', async (_request, reply) => reply.type('application/json').send(json));
  fastify.get('/v1/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(DOCS_PAGE));
  fastify.get('/v1/docs/init.js', async (_request, reply) => reply.type('application/javascript').send(DOCS_INIT));
  for (const [file, type] of [
    ['swagger-ui.css', 'text/css'],
    ['swagger-ui-bundle.js', 'application/javascript'],
  ] as const) {
    const content = readFileSync(join(SWAGGER_UI, file));
    fastify.get(`/v1/docs/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=86400').send(content));
  }
}

/** The query parameters each `/v1` operation documents, keyed `METHOD /v1/path/:param` as Fastify names its routes. */
export function queryParametersOf(document: OpenAPIObject): Map<string, string[]> {
  const documented = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (item.servers?.[0]?.url === '/') continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const names = (operation.parameters ?? []).flatMap((parameter) => ('in' in parameter && parameter.in === 'query' ? [parameter.name] : []));
      documented.set(`${method.toUpperCase()} /v1${path.replace(/\{(\w+)\}/g, ':$1')}`, names);
    }
  }
  return documented;
}
