// `npm run docs:openapi`: writes docs/openapi.json, the OpenAPI document exactly as the gateway serves it at
// GET /v1/openapi.json. The gateway is built in-process (it needs PostgreSQL, NATS and Redis, as `npm start` does),
// asked for the document through Fastify's injector, and closed.
import { writeFileSync } from 'fs';
import { createGateway } from '../../apps/gateway/src/main';
import { formatOpenApi, OPENAPI_FILE } from '../../libs/sdk/scripts/codegen';

async function exportOpenApi(): Promise<void> {
  const app = await createGateway();
  try {
    const response = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/v1/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${response.statusCode}: ${response.body}`);
    writeFileSync(OPENAPI_FILE, formatOpenApi(JSON.parse(response.body)));
  } finally {
    await app.close();
  }
  process.stdout.write(`${OPENAPI_FILE} written\n`);
}

// Exits explicitly: a client library of the gateway's may keep a socket or timer open after close.
exportOpenApi()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`docs:openapi failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
