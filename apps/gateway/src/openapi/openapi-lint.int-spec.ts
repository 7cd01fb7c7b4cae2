import { execFile } from 'child_process';
import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { promisify } from 'util';
import { API_TAGS } from './tags';

/** The committed document, which the SDK's end-to-end test proves is byte for byte the one the gateway serves. */
const OPENAPI_FILE = join(__dirname, '../../../../docs/openapi.json');

type Json = any;

/**
 * The operationIds SDK generators name their methods after: changing one breaks integrators' generated clients, so
 * it takes changing this list too.
 */
const OPERATION_IDS: Record<string, string> = {
  'post /onramp/quote': 'quoteOnramp',
  'post /offramp/quote': 'quoteOfframp',
  'post /swap/quote': 'quoteSwap',
  'post /transfer/quote': 'quoteTransfer',
  'get /onramp/banks': 'listBanks',
  'post /onramp/banks/verify': 'verifyBankAccount',
  'get /transfer/chains': 'listChains',
  'post /wallets': 'createWallet',
  'get /wallets': 'listWallets',
  'get /wallets/{walletId}': 'getWallet',
  'post /sandbox/wallets/{walletId}/fund': 'sandboxFundWallet',
  'post /offramp/initiate': 'initiateOfframp',
  'get /offramp/{transactionId}': 'getOfframp',
  'post /sandbox/faucet': 'sandboxFaucet',
  'post /sandbox/offramp/{transactionId}/deposit': 'sandboxDepositOfframp',
  'post /onramp/initiate': 'initiateOnramp',
  'get /onramp/{transactionId}': 'getOnramp',
  'post /sandbox/onramp/{transactionId}/pay': 'sandboxPayOnramp',
  'post /sandbox/relayer': 'sandboxRelayer',
  'post /sandbox/reset': 'sandboxReset',
  'post /swap/initiate': 'initiateSwap',
  'get /swap/{transactionId}': 'getSwap',
  'post /transfer/initiate': 'initiateTransfer',
  'get /transfer/{transactionId}': 'getTransfer',
  'get /transactions': 'listTransactions',
  'get /transactions/{transactionId}': 'getTransaction',
  'post /webhooks': 'createWebhook',
  'get /webhooks': 'listWebhooks',
  'delete /webhooks/{webhookId}': 'deleteWebhook',
  'get /webhooks/{webhookId}/deliveries': 'listWebhookDeliveries',
  'post /webhooks/{webhookId}/deliveries/{deliveryId}/retry': 'retryWebhookDelivery',
  'post /webhooks/{webhookId}/test': 'testWebhook',
  'get /health/live': 'getLiveness',
  'get /health/ready': 'getReadiness',
  'get /metrics': 'getMetrics',
  'post /partners/paystack/webhook': 'receivePaystackEvent',
  'post /partners/flutterwave/webhook': 'receiveFlutterwaveEvent',
};

interface SpectralResult {
  code: string;
  message: string;
  path: string[];
  /** 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
}

/** Spectral's CLI, as `npx spectral lint` runs it, on the committed document. */
async function spectral(): Promise<SpectralResult[]> {
  const cli = join(dirname(require.resolve('@stoplight/spectral-cli/package.json')), 'dist/index.js');
  const args = [cli, 'lint', OPENAPI_FILE, '--ruleset', join(__dirname, 'spectral.yaml'), '--format', 'json', '--quiet', '--fail-severity', 'error'];
  // Exit code 1 means "found errors"; the results say which.
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { code?: number; stdout?: string; stderr?: string }) => {
      if (error.code === 1 && error.stdout) return { stdout: error.stdout };
      throw new Error(`spectral did not run: ${error.stderr ?? String(error)}`);
    },
  );
  return JSON.parse(stdout) as SpectralResult[];
}

const operationsOf = (document: Json): [string, Json][] =>
  Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Json>)
      .filter(([method]) => method !== 'servers')
      .map(([method, operation]) => [`${method} ${path}`, operation] as [string, Json]),
  );

describe("OpenAPI lint - docs/openapi.json passes Spectral's OpenAPI rules, with tags, descriptions and stable operation ids", () => {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));

  it('has no Spectral error (spectral:oas: examples valid against their schemas, operation ids unique, tags defined, …)', async () => {
    const results = await spectral();
    const errors = results.filter((result) => result.severity === 0).map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`);
    expect(errors).toEqual([]);
  });

  it('groups every operation under one declared tag, and describes every tag', () => {
    const declared = (document.tags as { name: string; description?: string }[]).map((tag) => tag.name);
    expect(declared).toEqual(Object.keys(API_TAGS));
    for (const tag of document.tags as { name: string; description?: string }[])
      expect({ tag: tag.name, described: (tag.description ?? '').length > 50 }).toEqual({ tag: tag.name, described: true });
    const used = new Set<string>();
    for (const [route, operation] of operationsOf(document)) {
      expect({ route, tags: operation.tags?.length, declared: declared.includes(operation.tags?.[0]) }).toEqual({ route, tags: 1, declared: true });
      used.add(operation.tags[0]);
    }
    expect([...used].sort()).toEqual([...declared].sort());
  });

  it('describes every operation: what it does, what it needs, its notable errors', () => {
    const short = operationsOf(document)
      .filter(([, operation]) => (operation.description ?? '').length < 80)
      .map(([route]) => route);
    expect(short).toEqual([]);
  });

  it("names every operation with the operationId integrators' generated clients rely on", () => {
    expect(Object.fromEntries(operationsOf(document).map(([route, operation]) => [route, operation.operationId]))).toEqual(OPERATION_IDS);
  });

  it("needs the API key everywhere except on the probes and metrics and the bank partners' events, and not on the webhooks we send", () => {
    for (const [route, operation] of operationsOf(document)) {
      const expected = ['Operations', 'Partners'].includes(operation.tags[0]) ? [] : [{ apiKey: [] }];
      expect({ route, security: operation.security }).toEqual({ route, security: expected });
    }
  });

  it('documents webhook deliveries in the served reference: payload schema with examples, headers, retries, verification', () => {
    const webhooks = (document.tags as { name: string; description: string }[]).find((tag) => tag.name === 'Webhooks')!.description;
    for (const text of ['WebhookEvent', 'x-service-signature', 'webhook-signature', 'retried 1 minute', 'crypto.timingSafeEqual'])
      expect(webhooks).toContain(text);
    expect(document.components.schemas.WebhookEvent.example).toMatchObject({ event: 'offramp.completed' });
    expect(document.components.examples.OfframpFailedEvent.value).toMatchObject({
      event: 'offramp.failed',
      data: { errorMessage: expect.any(String), failureReason: expect.any(String) },
    });
    for (const webhook of Object.values(document['x-webhooks']) as Json[]) expect(webhook.post.security).toEqual([]);
    expect(document['x-webhooks'].transactionEvent.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
  });
});
