import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { HealthController, MetricsController } from '@ramp/service-kit';

let described = false;

/**
 * The OpenAPI description of the routes every service serves at its root (the probes and the metrics), written here
 * rather than on their controllers in @ramp/service-kit: the gateway alone publishes the document, and the other
 * services then never load @nestjs/swagger (3 to 10 MiB of each one's idle memory). Applied once, before the document is
 * built (the tags' and produces' decorators add to what they find).
 */
export function describeOperations(): void {
  if (described) return;
  const operation = (controller: { prototype: object }, method: string, ...decorators: MethodDecorator[]) => {
    const descriptor = Object.getOwnPropertyDescriptor(controller.prototype, method);
    if (!descriptor) throw new Error(`${method} is not a route of its controller`);
    for (const decorator of decorators) decorator(controller.prototype, method, descriptor);
  };
  ApiTags('Operations')(HealthController);
  ApiTags('Operations')(MetricsController);
  operation(
    HealthController,
    'live',
    ApiOperation({
      operationId: 'getLiveness',
      summary: 'Liveness: the process answers (for probes; no key, not under /v1).',
      description: 'Always 200 `{ "status": "ok" }` while the process runs: for the liveness probe, which restarts a process that stops answering.',
    }),
  );
  operation(
    HealthController,
    'ready',
    ApiOperation({
      operationId: 'getReadiness',
      summary: 'Readiness: 200 when PostgreSQL, NATS and Redis answer, 503 otherwise and from SIGTERM on (no key, not under /v1).',
      description:
        "For the readiness probe: `{ status, checks }` with each dependency's result. 200 `ok` when every check passes, 200 `degraded` when only a non-critical one fails (at the gateway: Redis, whose rate limits then fail open, or the key cache's listener), 503 `unavailable` when a critical one fails and from SIGTERM on, so that the replica leaves the load balancer before it stops.",
    }),
  );
  operation(
    MetricsController,
    'scrape',
    ApiOperation({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics in the text exposition format (for scrapers inside the cluster; no key, not under /v1).',
      description: "The service's metrics for Prometheus to scrape, in its text format, with `cache-control: no-store`.",
    }),
    ApiProduces('text/plain'),
  );
  // Only once all of them applied: a route renamed throws at every build, never a document without them.
  described = true;
}
