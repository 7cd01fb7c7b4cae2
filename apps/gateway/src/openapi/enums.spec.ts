import 'reflect-metadata';
import { readFileSync } from 'fs';
import { join } from 'path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { CHAIN_NAMES, OFFRAMP_TOKENS, PRIMARY_CHAINS } from '@ramp/chains';
import {
  CHAIN_TYPES,
  DELIVERY_STATUSES,
  ERROR_CODES,
  ERROR_REASON_NAMES,
  FAILURE_REASON_NAMES,
  FIAT_CURRENCY,
  RAMP_HASH_STEPS,
  SETTLEMENTS,
  INTEGRATION_EVENT_NAMES,
  WEBHOOK_EVENT_NAMES,
  WALLET_EVENT_NAMES,
  OFFRAMP_EVENT_NAMES,
  ROUTE_STEP_KINDS,
  ROUTE_STEP_STATUSES,
  TRANSACTION_OUTCOMES,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
} from '@ramp/contracts';
import { GatewayModule } from '../gateway.module';
import { buildOpenApi } from './openapi';

type Json = Record<string, unknown>;

/**
 * The gateway's OpenAPI document as it serves it, built without PostgreSQL, NATS or Redis: Nest's preview mode reads
 * the modules, controllers and DTOs but runs no provider's factory.
 */
async function servedDocument(): Promise<OpenAPIObject> {
  const app = await NestFactory.create(GatewayModule, new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    return buildOpenApi(app);
  } finally {
    await app.close();
  }
}

/** Every `enum` of the document, by where it is (`components.schemas.Wallet.properties.chain`, `GET /transactions ?status`). */
function enumsOf(document: OpenAPIObject): Map<string, unknown[]> {
  const found = new Map<string, unknown[]>();
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((item, index) => visit(item, `${at}[${index}]`));
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === 'enum' && Array.isArray(value)) found.set(at, value);
      else if (key !== 'example' && key !== 'examples') visit(value, at ? `${at}.${key}` : key);
    }
  };
  visit(document.components, 'components');
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      for (const parameter of ((operation as Json)?.['parameters'] ?? []) as Json[])
        visit(parameter['schema'], `${method.toUpperCase()} ${path} ?${String(parameter['name'])}`);
      visit((operation as Json)?.['requestBody'], `${method.toUpperCase()} ${path} body`);
    }
  }
  return found;
}

const schema = (name: string, property: string, items = false) => `components.schemas.${name}.properties.${property}${items ? '.items' : ''}`;
const query = (path: string, name: string) => `GET ${path} ?${name}`;

/** Where the reference lists the values of a field, and the list of the code it must be. */
const EXPECTED: [where: string, list: readonly unknown[]][] = [
  [schema('OnrampQuoteRequest', 'chain'), PRIMARY_CHAINS],
  [schema('OfframpQuoteRequest', 'chain'), PRIMARY_CHAINS],
  [schema('OfframpQuoteRequest', 'tokenSymbol'), OFFRAMP_TOKENS],
  [schema('SwapQuoteRequest', 'fromChain'), PRIMARY_CHAINS],
  [schema('SwapQuoteRequest', 'toChain'), PRIMARY_CHAINS],
  [schema('TransferQuoteRequest', 'fromChain'), PRIMARY_CHAINS],
  [schema('TransferQuoteRequest', 'toChain'), CHAIN_NAMES],
  [schema('OnrampQuoteSchema', 'fiatCurrency'), [FIAT_CURRENCY]],
  [schema('OfframpQuoteSchema', 'fiatCurrency'), [FIAT_CURRENCY]],
  [schema('WalletCreateRequest', 'chain'), PRIMARY_CHAINS],
  [schema('WalletSchema', 'chain'), PRIMARY_CHAINS],
  [schema('WalletFundSchema', 'chain'), PRIMARY_CHAINS],
  [schema('ChainSchema', 'type'), CHAIN_TYPES],
  [schema('ChainSchema', 'settlement'), SETTLEMENTS],
  [schema('TransactionSchema', 'type'), TRANSACTION_TYPES],
  [schema('TransactionSchema', 'status'), TRANSACTION_STATUSES],
  [schema('TransactionSchema', 'failureReason'), FAILURE_REASON_NAMES],
  [schema('InitiatedTransactionSchema', 'type'), TRANSACTION_TYPES],
  [schema('InitiatedTransactionSchema', 'status'), TRANSACTION_STATUSES],
  [schema('InitiatedTransactionSchema', 'failureReason'), FAILURE_REASON_NAMES],
  [schema('RampDetailsSchema', 'fiatCurrency'), [FIAT_CURRENCY]],
  [schema('RouteStepSchema', 'kind'), ROUTE_STEP_KINDS],
  [schema('RouteStepSchema', 'status'), ROUTE_STEP_STATUSES],
  [schema('RouteStepSchema', 'settlement'), SETTLEMENTS],
  [schema('RampHashSchema', 'step'), RAMP_HASH_STEPS],
  [schema('RampHashSchema', 'settlement'), SETTLEMENTS],
  [query('/transactions', 'type'), TRANSACTION_TYPES],
  [query('/transactions', 'status'), TRANSACTION_STATUSES],
  [query('/transactions', 'chain'), CHAIN_NAMES],
  [schema('WebhookCreateRequest', 'events', true), [...WEBHOOK_EVENT_NAMES, '*']],
  [schema('DeliverySchema', 'status'), DELIVERY_STATUSES],
  [query('/webhooks/{webhookId}/deliveries', 'status'), DELIVERY_STATUSES],
  [schema('WebhookEvent', 'event'), INTEGRATION_EVENT_NAMES],
  [schema('WalletWebhookEvent', 'event'), WALLET_EVENT_NAMES],
  [schema('OfframpWebhookEvent', 'event'), OFFRAMP_EVENT_NAMES],
  [schema('OfframpWebhookEventData', 'status'), TRANSACTION_STATUSES],
  [schema('OfframpWebhookEventData', 'fiatCurrency'), [FIAT_CURRENCY]],
  [schema('WebhookEventData', 'type'), TRANSACTION_TYPES],
  [schema('WebhookEventData', 'status'), TRANSACTION_OUTCOMES],
  [schema('ErrorBodySchema', 'code'), ERROR_CODES],
  [schema('ErrorBodySchema', 'reason'), ERROR_REASON_NAMES],
];

/** One-value enums: a constant of the answer (`success: true`) rather than a list of the code. */
const CONSTANTS = [[true], [false], ['test'], ['pending'], ['offramp']];

describe('OpenAPI enums - the reference lists exactly the values of the code', () => {
  let enums: Map<string, unknown[]>;

  beforeAll(async () => {
    enums = enumsOf(await servedDocument());
  });

  it.each(EXPECTED)("%s lists the code's values, in its order", (where, list) => {
    expect({ where, values: enums.get(where) }).toEqual({ where, values: [...list] });
  });

  it("has no enum the code does not know: each is one of the code's lists or a constant of the answer", () => {
    const lists = [...EXPECTED.map(([, list]) => JSON.stringify(list)), ...CONSTANTS.map((values) => JSON.stringify(values))];
    const unknown = [...enums].filter(([, values]) => !lists.includes(JSON.stringify(values))).map(([where, values]) => ({ where, values }));
    expect(unknown).toEqual([]);
    const checked = new Set(EXPECTED.map(([where]) => where));
    const unchecked = [...enums].filter(
      ([where, values]) => !checked.has(where) && !CONSTANTS.some((constant) => JSON.stringify(constant) === JSON.stringify(values)),
    );
    expect(unchecked.map(([where]) => where)).toEqual([]);
  });

  it('agrees with the committed docs/openapi.json (npm run docs:openapi when it does not)', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '../../../../docs/openapi.json'), 'utf8')) as OpenAPIObject;
    expect(Object.fromEntries(enumsOf(committed))).toEqual(Object.fromEntries(enums));
  });
});
