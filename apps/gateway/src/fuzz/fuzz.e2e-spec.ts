import fc from 'fast-check';
import { HTTP_STATUS_OF, isErrorCode } from '@ramp/contracts';
import {
  apiRoutes,
  createKey,
  hostileCases,
  rawRequest,
  startServices,
  stopAll,
  type ApiRoute,
  type HostileCase,
  type RawResponse,
  type ServiceProcess,
} from '@ramp/testing';
import { createGateway, servedRoutes } from '../main';

/** Runs per kind of hostile case and route: `npm test` a few, `npm run test:fuzz` (FUZZ_RUNS) many. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 15);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What is wrong with a response, if anything: every answer is an envelope, never a 5xx, never a stack trace. */
function problemsWith(response: RawResponse, testCase: HostileCase): string[] {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`status ${response.status}`);
  if (testCase.mustRefuse && (response.status < 400 || response.status >= 500)) problems.push(`status ${response.status} where a 4xx was due`);
  if (!String(response.headers['content-type'] ?? '').startsWith('application/json')) problems.push(`content-type ${response.headers['content-type']}`);
  if (!REQUEST_ID.test(String(response.headers['x-request-id'] ?? ''))) problems.push(`x-request-id ${JSON.stringify(response.headers['x-request-id'])}`);
  if (/\n\s+at |node_modules|\.[jt]s:\d+/.test(response.text)) problems.push('a stack trace');
  const body = response.body;
  if (response.status >= 400) {
    const error = body?.error;
    if (body?.success !== false || !isErrorCode(error?.code) || typeof error.message !== 'string' || error.message === '')
      problems.push('not an error envelope');
    // 413 and 431 are INVALID_REQUEST too: the body or the headers are too large.
    else if (
      HTTP_STATUS_OF[error.code as keyof typeof HTTP_STATUS_OF] !== response.status &&
      !(error.code === 'INVALID_REQUEST' && [413, 431].includes(response.status))
    ) {
      problems.push(`code ${error.code} with status ${response.status}`);
    }
  } else if (body?.success !== true || !('data' in body)) {
    problems.push('not a success envelope');
  }
  return problems;
}

describe('fuzz - every route of the gateway with malformed and hostile input', () => {
  let services: Map<string, ServiceProcess>;
  let routes: ApiRoute[];
  let served: Set<string>;
  let key: string;
  const tally = new Map<string, number>();

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], {
      // Error lines only: on a failure they say what broke inside (see below).
      LOG_LEVEL: 'error',
      // Requests without a valid key are limited per address: let them all reach the edge's checks.
      ANONYMOUS_RATE_PER_MINUTE: '100000000',
    });
    key = (await createKey({ plan: 'enterprise', extra: ['--rate-per-minute', '100000000', '--burst', '10000000'] })).apiKey;
    routes = await apiRoutes(services.get('gateway')!.url, { create: createGateway, routes: servedRoutes });
    served = new Set(routes.map((route) => `${route.method} ${route.path}`));
  });

  afterAll(async () => {
    await stopAll(services.values());
  });

  it('covers the whole route table', () => {
    expect(routes.length).toBeGreaterThanOrEqual(29);
    expect(routes.map((route) => `${route.method} ${route.path}`)).toContain('POST /v1/offramp/quote');
    expect(routes.filter((route) => route.method === 'POST').every((route) => route.body)).toBe(true);
  });

  it('answers every hostile request with an envelope: 4xx where it must refuse, never a 5xx', async () => {
    const gateway = services.get('gateway')!.url;
    let cases = 0;
    const failures: string[] = [];
    for (const route of routes) {
      for (const arbitrary of hostileCases(route, key, served)) {
        // One failure per kind and route is reported (with its seed and shrunk counterexample), and the others still run.
        await fc
          .assert(
            fc.asyncProperty(arbitrary, async (testCase) => {
              const response = await rawRequest(gateway, testCase).catch((error: Error) => {
                throw new Error(`${testCase.method} ${testCase.path.slice(0, 120)} (${testCase.label.slice(0, 60)}): no answer (${error.message})`);
              });
              cases += 1;
              const bucket = response.status >= 500 ? '5xx' : response.status >= 400 ? '4xx' : '2xx';
              tally.set(bucket, (tally.get(bucket) ?? 0) + 1);
              const problems = problemsWith(response, testCase);
              if (problems.length)
                throw new Error(
                  `${testCase.method} ${testCase.path.slice(0, 120)} (${testCase.label.slice(0, 60)}): ${problems.join('; ')}; got ${response.status} ${response.text.slice(0, 300)}`,
                );
            }),
            { numRuns: RUNS, seed: SEED },
          )
          .catch((error: Error) => {
            // fast-check's message holds the whole counterexample (bodies of 400 kB); keep the seed and the cause.
            const seed = /\{ seed: [^}]*\}/.exec(error.message)?.[0] ?? '';
            failures.push(`${(error.cause as Error | undefined)?.message ?? error.message.slice(0, 500)} ${seed}`);
          });
      }
    }
    // What the services logged as errors, for the failures' causes: a refusal is never logged at error level.
    const errors = [...services.values()].flatMap((service) =>
      service.logRecords.map(
        (line) =>
          `${service.app}: ${String(line['msg'])} ${JSON.stringify((line['err'] as { message?: string; stack?: string } | undefined)?.stack ?? '').slice(0, 600)}`,
      ),
    );
    expect({ failures, errors }).toEqual({ failures: [], errors: [] });
    // The services are all still up and ready, and a valid request is still served.
    for (const service of services.values()) expect((await fetch(`${service.url}/health/ready`)).status).toBe(200);
    const valid = await rawRequest(gateway, {
      method: 'GET',
      path: '/v1/transfer/chains',
      headers: [['x-api-key', key]],
    });
    expect(valid.status).toBe(200);
    process.stdout.write(
      `fuzz: ${cases} hostile requests over ${routes.length} routes (${RUNS} runs per kind and route): ${[...tally].map(([bucket, n]) => `${n} ${bucket}`).join(', ')}; every answer an envelope, 0 5xx, every service up\n`,
    );
    expect(tally.get('5xx') ?? 0).toBe(0);
  }, 900_000);
});
