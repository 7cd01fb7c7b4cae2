import { createServer, type Server } from 'http';
import type { INestApplication } from '@nestjs/common';
import { Metrics } from '@ramp/observability';
import { HealthRegistry } from './health';

/**
 * The probes and metrics of a service on a port of their own (the gateway's OPS_PORT): `/health/live`,
 * `/health/ready` and `/metrics`, answered as on the service's main port, and nothing else. What may reach this port
 * (the kubelet, the scrape policy's Prometheus) is then apart from what may reach the API (the ingress controller), so
 * no pod let in to scrape can talk to the API as a trusted proxy.
 */
export async function serveOperations(app: INestApplication, port: number, host: string): Promise<Server> {
  const health = app.get(HealthRegistry);
  const metrics = app.get(Metrics);
  const server = createServer((request, response) => {
    const send = (status: number, contentType: string, body: string) => {
      response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : body);
    };
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'application/json', JSON.stringify({ status: 'method not allowed' }));
    if (path === '/health/live') return send(200, 'application/json', JSON.stringify({ status: 'ok' }));
    if (path === '/health/ready') {
      void health.answer().then(({ httpStatus, body }) => send(httpStatus, 'application/json', JSON.stringify(body)));
      return;
    }
    if (path === '/metrics') {
      void metrics.exposition().then(
        ({ contentType, body }) => send(200, contentType, body),
        () => send(500, 'text/plain', 'metrics unavailable'),
      );
      return;
    }
    send(404, 'application/json', JSON.stringify({ status: 'not found' }));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolveListen());
  });
  return server;
}
