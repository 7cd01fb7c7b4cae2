import { ApiProperty, ApiPropertyOptional, ApiSchema, type ExampleObject } from '@nestjs/swagger';
import {
  INTEGRATION_EVENT_NAMES,
  OFFRAMP_EVENT_NAMES,
  FIAT_CURRENCY,
  TRANSACTION_OUTCOMES,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  WALLET_EVENT_NAMES,
  type OfframpPayoutReversedEvent,
  type WalletDepositReversedEvent,
} from '@ramp/contracts';
import { deliveryHeaders, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '@ramp/webhooks';

// What a webhook receiver gets, for the served reference (docs/api/webhooks.md states the same facts, and
// webhook-events.spec.ts holds the two together): the payload as a schema with examples, the headers, the retry
// schedule and how to verify a signature.

@ApiSchema({ name: 'WebhookEventMetadata' })
export class WebhookEventMetadataSchema {
  @ApiProperty({
    description: "The event's id, also sent as `x-service-event-id`: the same for every webhook and on every attempt.",
    example: '3433cb0e-1369-4c96-b823-2d9e6e99388c',
  })
  eventId!: string;
}

@ApiSchema({ name: 'WebhookEventData', description: 'The transaction as it ended. A field without a value is absent (never null).' })
export class WebhookEventDataSchema {
  @ApiProperty({ example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) transactionId!: string;
  @ApiPropertyOptional({ description: 'Your reference from the initiation.', example: 'payout-7781' }) reference?: string;
  @ApiProperty({ enum: TRANSACTION_TYPES }) type!: string;
  @ApiProperty({ enum: TRANSACTION_OUTCOMES }) status!: string;
  @ApiProperty({ description: 'The crypto amount (for swaps and transfers: the source side).', example: '100' }) amount!: string;
  @ApiProperty({ description: 'For swaps and transfers: the source token.', example: 'USDC' }) tokenSymbol!: string;
  @ApiProperty({ description: 'For swaps and transfers: the source chain.', example: 'base' }) chain!: string;
  @ApiPropertyOptional({
    description: 'The latest on-chain hash of the transaction, once there is one.',
    example: '0xd5fe3d774d59b2bbfea67d095d6b0a0b8b87ded76e86c482d1abc239478ee96d',
  })
  transactionHash?: string;
  @ApiPropertyOptional({ description: 'On-ramps and off-ramps: the NGN amount.', example: '149250.00' }) fiatAmount?: string;
  @ApiPropertyOptional({ description: 'On-ramps and off-ramps.', example: 'NGN' }) fiatCurrency?: string;
  @ApiPropertyOptional({ description: 'Off-ramps: the NGN the bank account receives (fiatAmount less the fees).', example: '149010.75' }) payoutAmount?: string;
  @ApiPropertyOptional({ description: 'The managed wallet, when one was used.', example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) walletId?: string;
  @ApiProperty({ type: WebhookEventMetadataSchema }) metadata!: WebhookEventMetadataSchema;
  @ApiPropertyOptional({
    description: 'Failed events: what happened, for people.',
    example: 'The bank payout was rejected: the beneficiary bank rejected the credit (sandbox magic account)',
  })
  errorMessage?: string;
  @ApiPropertyOptional({
    description: 'Failed events: a stable name of the cause, for programs to branch on (for example PAYOUT_REJECTED, SLIPPAGE_EXCEEDED).',
    example: 'PAYOUT_REJECTED',
  })
  failureReason?: string;
}

@ApiSchema({
  name: 'WebhookEvent',
  description:
    'The body of a webhook delivery and of a per-transaction callback: one event of a transaction that ended (see the Webhooks tag for headers, signatures and retries).',
})
export class WebhookEventSchema {
  @ApiProperty({ enum: INTEGRATION_EVENT_NAMES }) event!: string;
  @ApiProperty({ format: 'date-time', description: 'When the transaction ended.', example: '2026-11-23T10:00:20.000Z' }) timestamp!: string;
  @ApiProperty({ type: WebhookEventDataSchema }) data!: WebhookEventDataSchema;
}

@ApiSchema({ name: 'WalletWebhookEventMetadata' })
export class WalletWebhookEventMetadataSchema {
  @ApiProperty({ description: "The event's id, also sent as `x-service-event-id`.", example: '5c1d2e4a-7b0f-4c52-9a51-1f0e8d6f7a21' }) eventId!: string;
  @ApiProperty({ description: 'The deposit: `<environment>:<chain>:<transaction hash>:<log index>`.', example: 'test:base:0x8f2a…:3' }) depositId!: string;
}

@ApiSchema({ name: 'WalletWebhookEventData', description: 'The deposit whose credit was taken back.' })
export class WalletWebhookEventDataSchema {
  @ApiProperty({ example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) walletId!: string;
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({ description: "The wallet's address, where the deposit had arrived.", example: '0x4bD3a0A1bF8F6D1B8c4F0E3a2E6a5f8C7b9D0e1F' }) address!: string;
  @ApiProperty({ example: 'USDC' }) tokenSymbol!: string;
  @ApiProperty({ description: 'What had been credited, and is taken back.', example: '250' }) amount!: string;
  @ApiProperty({
    description: "The deposit's transaction, which the chain no longer holds.",
    example: '0x8f2a6c1e0d3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f',
  })
  transactionHash!: string;
  @ApiProperty({ description: 'Who had sent it.', example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }) from!: string;
  @ApiProperty({ description: 'The block it had been in.', example: '18231044' }) blockNumber!: string;
  @ApiProperty({ type: WalletWebhookEventMetadataSchema }) metadata!: WalletWebhookEventMetadataSchema;
}

@ApiSchema({
  name: 'WalletWebhookEvent',
  description:
    "A managed wallet's event, only to webhooks that list it by name in `events` (`*` does not take it, see Versioning): `wallet.deposit_reversed` when a reorganisation of the chain removed a deposit already credited to the wallet. Its credit is taken back from the available balance; what the wallet no longer held is recorded as owed to the platform (the balance never goes below zero). If the chain takes the same transfer back in, it is credited again.",
})
export class WalletWebhookEventSchema {
  @ApiProperty({ enum: WALLET_EVENT_NAMES }) event!: string;
  @ApiProperty({ format: 'date-time', description: 'When the reversal was found.', example: '2026-11-23T10:04:12.000Z' }) timestamp!: string;
  @ApiProperty({ type: WalletWebhookEventDataSchema }) data!: WalletWebhookEventDataSchema;
}

/** A deposit of 250 USDC to a wallet on base, removed by a reorganisation after its credit. */
export const WALLET_DEPOSIT_REVERSED_EVENT: WalletDepositReversedEvent = {
  event: 'wallet.deposit_reversed',
  timestamp: '2026-11-23T10:04:12.000Z',
  data: {
    walletId: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
    chain: 'base',
    address: '0x4bD3a0A1bF8F6D1B8c4F0E3a2E6a5f8C7b9D0e1F',
    tokenSymbol: 'USDC',
    amount: '250',
    transactionHash: '0x8f2a6c1e0d3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f',
    from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    blockNumber: '18231044',
    metadata: { eventId: '5c1d2e4a-7b0f-4c52-9a51-1f0e8d6f7a21', depositId: 'test:base:0x8f2a6c1e0d3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f:3' },
  },
};

@ApiSchema({ name: 'OfframpWebhookEventMetadata' })
export class OfframpWebhookEventMetadataSchema {
  @ApiProperty({ description: "The event's id, also sent as `x-service-event-id`.", example: '0b7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b' }) eventId!: string;
}

@ApiSchema({ name: 'OfframpWebhookEventData', description: 'The off-ramp whose payout the bank sent back.' })
export class OfframpWebhookEventDataSchema {
  @ApiProperty({ example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) transactionId!: string;
  @ApiProperty({ required: false, description: 'Your reference from the initiation; present when you gave one.', example: 'order-1042' }) reference?: string;
  @ApiProperty({ enum: ['offramp'] }) type!: string;
  @ApiProperty({ enum: TRANSACTION_STATUSES, description: "The off-ramp's status, which the reversal does not change.", example: 'completed' })
  status!: string;
  @ApiProperty({ description: 'The NGN the bank sent back: the payout.', example: '149010.75' }) payoutAmount!: string;
  @ApiProperty({ enum: [FIAT_CURRENCY] }) fiatCurrency!: string;
  @ApiProperty({ description: "The payout's reference at the bank partner.", example: 'txn_01jd7x3q9z8k4m2n6p5r7s9t1v-payout-1' }) payoutReference!: string;
  @ApiProperty({ type: OfframpWebhookEventMetadataSchema }) metadata!: OfframpWebhookEventMetadataSchema;
}

@ApiSchema({
  name: 'OfframpWebhookEvent',
  description:
    "An off-ramp's event after its end, only to webhooks that list it by name in `events` (`*` does not take it, see Versioning), never to a `callbackUrl`: `offramp.payout_reversed` when the bank sent back the Naira of a live off-ramp that was paid out. The off-ramp stays `completed`; its payout is held for the platform's operators, who pay it again or settle it with you.",
})
export class OfframpWebhookEventSchema {
  @ApiProperty({ enum: OFFRAMP_EVENT_NAMES }) event!: string;
  @ApiProperty({ format: 'date-time', description: 'When the reversal was recorded.', example: '2026-11-24T08:15:02.000Z' }) timestamp!: string;
  @ApiProperty({ type: OfframpWebhookEventDataSchema }) data!: OfframpWebhookEventDataSchema;
}

/** A live off-ramp's payout of 149,010.75 NGN, sent back by the bank after it was paid. */
export const OFFRAMP_PAYOUT_REVERSED_EVENT: OfframpPayoutReversedEvent = {
  event: 'offramp.payout_reversed',
  timestamp: '2026-11-24T08:15:02.000Z',
  data: {
    transactionId: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
    reference: 'order-1042',
    type: 'offramp',
    status: 'completed',
    payoutAmount: '149010.75',
    fiatCurrency: 'NGN',
    payoutReference: 'txn_01jd7x3q9z8k4m2n6p5r7s9t1v-payout-1',
    metadata: { eventId: '0b7e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b' },
  },
};

/** A custodial off-ramp of 100 USDC on base, paid out. */
export const OFFRAMP_COMPLETED_EVENT = {
  event: 'offramp.completed',
  timestamp: '2026-11-23T10:00:20.000Z',
  data: {
    transactionId: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
    reference: 'payout-7781',
    type: 'offramp',
    status: 'completed',
    amount: '100',
    tokenSymbol: 'USDC',
    chain: 'base',
    transactionHash: '0xd5fe3d774d59b2bbfea67d095d6b0a0b8b87ded76e86c482d1abc239478ee96d',
    fiatAmount: '149250.00',
    fiatCurrency: 'NGN',
    payoutAmount: '149010.75',
    walletId: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
    metadata: { eventId: '3433cb0e-1369-4c96-b823-2d9e6e99388c' },
  },
};

/** A custodial off-ramp whose payout the bank rejected: the tokens went back to the wallet. */
export const OFFRAMP_FAILED_EVENT = {
  event: 'offramp.failed',
  timestamp: '2026-11-23T10:00:24.000Z',
  data: {
    transactionId: 'txn_01JD7X4B2C8K4M2N6P5R7S9T1W',
    type: 'offramp',
    status: 'failed',
    amount: '100',
    tokenSymbol: 'USDC',
    chain: 'base',
    transactionHash: '0x9f2c6a1d3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
    fiatAmount: '149250.00',
    fiatCurrency: 'NGN',
    payoutAmount: '149010.75',
    walletId: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
    metadata: { eventId: 'bc37f2aa-24fc-4917-bba8-eb2e4b34fca0' },
    errorMessage: 'The bank payout was rejected: the beneficiary bank rejected the credit (sandbox magic account)',
    failureReason: 'PAYOUT_REJECTED',
  },
};

/** The secret of the POST /webhooks example: the header examples are real signatures of OFFRAMP_COMPLETED_EVENT under it. */
export const EXAMPLE_WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/0Bc4Mr7j8c=';

/** What the first attempt of OFFRAMP_COMPLETED_EVENT carries, its body being the compact JSON of it. */
const EXAMPLE_HEADERS = deliveryHeaders({
  deliveryId: 'dlv_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  eventId: OFFRAMP_COMPLETED_EVENT.data.metadata.eventId,
  attempt: 1,
  now: new Date(OFFRAMP_COMPLETED_EVENT.timestamp),
  rawBody: JSON.stringify(OFFRAMP_COMPLETED_EVENT),
  secret: EXAMPLE_WEBHOOK_SECRET,
});

const HEADER_VALUES: Record<string, string> = {
  'x-service-signature':
    "Lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's `whsec_` secret as written (a per-transaction callback: the API secret, `service_secret_…`, of the key that initiated the transaction).",
  'x-service-event-id': "The event's id (`data.metadata.eventId`): the same for every webhook and on every attempt.",
  'x-service-delivery-attempt': `1 for the first attempt, up to ${MAX_ATTEMPTS}.`,
  'webhook-id': "Standard Webhooks: the delivery's id (`dlv_…`), the same on every attempt.",
  'webhook-timestamp': 'Standard Webhooks: when this attempt was sent, in Unix seconds; refuse replays older than a few minutes.',
  'webhook-signature':
    "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes the secret's base64 part decodes to (a callback: the API secret's UTF-8 bytes), so the `standardwebhooks` libraries verify it as is.",
};

/** The headers of every delivery attempt (besides content type and user agent), in the order deliveryHeaders sends them. */
export const DELIVERY_HEADERS = Object.entries(EXAMPLE_HEADERS).map(([name, example]) => ({ name, description: HEADER_VALUES[name] ?? '', example }));

/** "1 minute", "2 hours": how the reference writes the retry delays. */
function duration(ms: number): string {
  const [amount, unit] = ms % 3_600_000 === 0 ? [ms / 3_600_000, 'hour'] : [ms / 60_000, 'minute'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/** The retry delays as a sentence: "1 minute, 5 minutes, …, 2 hours and 24 hours". */
export const RETRY_SCHEDULE = `${RETRY_DELAYS_MS.slice(0, -1).map(duration).join(', ')} and ${duration(RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1]!)}`;

/** Verifies `x-service-signature`: run as is by webhook-events.spec.ts, so that the reference never shows a snippet that fails. */
export const VERIFY_SNIPPET = `const crypto = require('crypto');

// rawBody: the request body exactly as received (a Buffer), before any JSON parsing.
// secret: the whsec_… returned when the webhook was registered (a callback: your API secret).
const expected = crypto.createHmac('sha256', secret).update(rawBody).digest();
const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
const valid = given.length === expected.length && crypto.timingSafeEqual(given, expected);`;

const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** The Webhooks tag's description: markdown, shown at the head of the Webhooks section of /v1/docs. */
export const WEBHOOKS_DESCRIPTION = [
  'Register an HTTPS URL for a list of event names (or `*`) with `POST /webhooks`; at most 10 per API key. Each event is then POSTed to it as JSON',
  '(`Content-Type: application/json`), the **WebhookEvent** schema (under Schemas below): `{ event, timestamp, data }`. Events: ' +
    `${INTEGRATION_EVENT_NAMES.map((name) => `\`${name}\``).join(', ')}. ` +
    "A `callbackUrl` given at initiation receives that transaction's events in the same way, signed with the API secret of the key that initiated it.",
  '',
  '`data` holds `transactionId`, `reference`, `type`, `status`, `amount`, `tokenSymbol`, `chain` (for swaps and transfers: the source side), `transactionHash`,',
  '`fiatAmount` and `fiatCurrency` (ramps), `payoutAmount` (off-ramps), `walletId`, and `metadata.eventId`; failed events add `errorMessage` (for people)',
  'and `failureReason` (for programs). A field without a value is absent. `POST /webhooks/{webhookId}/test` sends',
  '`{ event: "webhook.test", timestamp, data: { webhookId, message, metadata: { test: true } } }` to one webhook, signed and retried like any delivery.',
  '',
  '**Headers** of every attempt:',
  '',
  '| Header | Value |',
  '|---|---|',
  ...DELIVERY_HEADERS.map((header) => `| \`${header.name}\` | ${header.description} |`),
  '',
  '**Verify** the signature over the raw body, in constant time (Node.js), and answer 400 when it does not match:',
  '',
  '```js',
  VERIFY_SNIPPET,
  '```',
  '',
  `**Delivery and retries.** A delivery succeeds on a 2xx answer within 30 seconds. Anything else (timeout, refused connection, TLS error, 3xx: redirects are never followed, 4xx, 5xx) is retried ${RETRY_SCHEDULE} after the failed attempt;`,
  `when the fifth retry (attempt ${MAX_ATTEMPTS}) fails, the delivery is \`failed\` and the transactions endpoints still have the outcome.`,
  '`GET /webhooks/{webhookId}/deliveries` shows every attempt; `POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry` sends one again now.',
  '',
  '**At least once.** An event may arrive more than once: deduplicate by `data.transactionId` plus `event` (or by `x-service-event-id`).',
  '',
  'A completed off-ramp:',
  '',
  '```json',
  json(OFFRAMP_COMPLETED_EVENT),
  '```',
  '',
  `Sent as its compact JSON (\`JSON.stringify\` of it) to a webhook whose secret is \`${EXAMPLE_WEBHOOK_SECRET}\`, its first attempt carries these headers (a test vector for your verification):`,
  '',
  '```',
  ...DELIVERY_HEADERS.map((header) => `${header.name}: ${header.example}`),
  '```',
  '',
  'A failed one (the bank rejected the payout; the tokens went back to the wallet):',
  '',
  '```json',
  json(OFFRAMP_FAILED_EVENT),
  '```',
  '',
  `**Wallet events.** ${WALLET_EVENT_NAMES.map((name) => `\`${name}\``).join(', ')}, the **WalletWebhookEvent** schema, only to webhooks that list it by name (\`*\` does not take it), signed, sent and retried the same way:`,
  'a reorganisation of the chain removed a deposit already credited to a managed wallet, and its credit is taken back from the available balance (what the wallet no longer held is recorded',
  'as owed to the platform: the balance never goes below zero). If the chain takes the same transfer back in, it is credited again. Deduplicate by `x-service-event-id`.',
  '',
  '```json',
  json(WALLET_DEPOSIT_REVERSED_EVENT),
  '```',
  '',
  `**Off-ramp events.** ${OFFRAMP_EVENT_NAMES.map((name) => `\`${name}\``).join(', ')}, the **OfframpWebhookEvent** schema, only to webhooks that list it by name (\`*\` does not take it; a \`callbackUrl\` never does), signed, sent and retried the same way:`,
  "the bank sent back the Naira of a live off-ramp that was paid out. The off-ramp stays `completed`; its payout is held for the platform's operators, who pay it again or settle it with you.",
  '',
  '```json',
  json(OFFRAMP_PAYOUT_REVERSED_EVENT),
  '```',
].join('\n');

/**
 * The delivery as an operation your server receives, in Redoc's `x-webhooks` convention (OpenAPI 3.0 has no
 * webhooks), with its examples in `components.examples`.
 */
export function webhookExtensions(): { examples: Record<string, ExampleObject>; xWebhooks: Record<string, unknown> } {
  const examples = {
    OfframpCompletedEvent: { summary: 'offramp.completed', value: OFFRAMP_COMPLETED_EVENT },
    OfframpFailedEvent: { summary: 'offramp.failed (payout rejected)', value: OFFRAMP_FAILED_EVENT },
    WalletDepositReversedEvent: { summary: 'wallet.deposit_reversed', value: WALLET_DEPOSIT_REVERSED_EVENT },
    OfframpPayoutReversedEvent: { summary: 'offramp.payout_reversed', value: OFFRAMP_PAYOUT_REVERSED_EVENT },
  };
  const xWebhooks = {
    transactionEvent: deliveryOperation('A transaction ended: the event POSTed to your webhook URL or callbackUrl', 'WebhookEvent', {
      completed: 'OfframpCompletedEvent',
      failed: 'OfframpFailedEvent',
    }),
    walletEvent: deliveryOperation("A managed wallet's event (a deposit's credit taken back): POSTed to your webhook URL", 'WalletWebhookEvent', {
      reversed: 'WalletDepositReversedEvent',
    }),
    offrampEvent: deliveryOperation("An off-ramp's event after its end (its payout sent back by the bank): POSTed to your webhook URL", 'OfframpWebhookEvent', {
      reversed: 'OfframpPayoutReversedEvent',
    }),
  };
  return { examples, xWebhooks };
}

/** One kind of delivery as an operation your server receives: its headers, its body's schema and its examples (by name). */
function deliveryOperation(summary: string, schema: string, examples: Record<string, string>) {
  return {
    post: {
      tags: ['Webhooks'],
      // We call you: no API key of ours is involved (the signature headers authenticate the delivery).
      security: [],
      summary,
      description: `Answer 2xx within 30 seconds; anything else is retried ${RETRY_SCHEDULE} after the failed attempt.`,
      parameters: DELIVERY_HEADERS.map((header) => ({
        name: header.name,
        in: 'header',
        required: true,
        description: header.description,
        schema: { type: 'string' },
        example: header.example,
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: `#/components/schemas/${schema}` },
            examples: Object.fromEntries(Object.entries(examples).map(([name, example]) => [name, { $ref: `#/components/examples/${example}` }])),
          },
        },
      },
      responses: { '2XX': { description: 'Received. Any other answer, or none within 30 seconds, is retried.' } },
    },
  };
}
