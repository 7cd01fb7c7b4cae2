import { Controller, Get, Inject, Injectable, Res } from '@nestjs/common';
import { withTimeout } from '@ramp/observability';
import type { FastifyReply } from 'fastify';

export type HealthCheck = () => Promise<void>;

export interface HealthCheckOptions {
  /**
   * false for a dependency the service can serve without (the gateway's Redis: rate limiting fails open). Its failure
   * shows in the checks and turns the status to `degraded`, but readiness stays 200 so that Kubernetes does not pull
   * every replica out of the Service because of it.
   */
  critical?: boolean;
}

/** Readiness checks of a service's own dependencies; each throws when its dependency is unusable. */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, { check: HealthCheck; critical: boolean }>();
  private shuttingDown = false;

  add(name: string, check: HealthCheck, options: HealthCheckOptions = {}): void {
    this.checks.set(name, { check, critical: options.critical ?? true });
  }

  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  async readiness(): Promise<{ ready: boolean; degraded: boolean; checks: Record<string, string> }> {
    const results: Record<string, string> = {};
    let ready = !this.shuttingDown;
    let degraded = false;
    await Promise.all(
      [...this.checks].map(async ([name, { check, critical }]) => {
        try {
          await withTimeout(check(), 2000);
          results[name] = 'ok';
        } catch (error) {
          results[name] = error instanceof Error && error.message ? error.message : 'failed';
          if (critical) ready = false;
          else degraded = true;
        }
      }),
    );
    if (this.shuttingDown) results['shutdown'] = 'shutting down';
    return { ready, degraded, checks: results };
  }

  /** The readiness probe's answer, wherever it is served (the service's port, the gateway's OPS_PORT). */
  async answer(): Promise<{ httpStatus: 200 | 503; body: { status: 'ok' | 'degraded' | 'unavailable'; checks: Record<string, string> } }> {
    const { ready, degraded, checks } = await this.readiness();
    return { httpStatus: ready ? 200 : 503, body: { status: ready ? (degraded ? 'degraded' : 'ok') : 'unavailable', checks } };
  }
}

/**
 * `/health/live`: the process answers. `/health/ready`: its critical dependencies answer too (503 otherwise);
 * a non-critical one that fails gives 200 with status `degraded`. Their OpenAPI description is the gateway's
 * (apps/gateway/src/openapi/operations.ts): no other service loads @nestjs/swagger.
 */
@Controller('health')
export class HealthController {
  constructor(@Inject(HealthRegistry) private readonly registry: HealthRegistry) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ status: string; checks: Record<string, string> }> {
    const { httpStatus, body } = await this.registry.answer();
    reply.status(httpStatus);
    return body;
  }
}
