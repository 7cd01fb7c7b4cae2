export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * Who is calling. The data of a key is the data of its organization in its environment (DESIGN.md §4):
 * every service scopes reads and writes by (organizationId, environment, generation); keyId is kept for audit.
 */
export interface Tenant {
  organizationId: string;
  environment: Environment;
  keyId: string;
  /**
   * The sandbox generation of a test tenant: `POST /sandbox/reset` starts a new one, and data of earlier generations
   * is out of the tenant's scope from then on (the event logs keep it, append-only). Absent (0) for live keys and
   * before the first reset; transactions keep the generation they started in.
   */
  generation?: number;
}

/** The generation a tenant's data belongs to (0 when absent). */
export function generationOf(tenant: Pick<Tenant, 'generation'>): number {
  return tenant.generation ?? 0;
}

/** Whether `owner` (the tenant recorded with some data) is `caller`'s own: same organization, environment and generation. */
export function isSameTenant(owner: Omit<Tenant, 'keyId'>, caller: Omit<Tenant, 'keyId'>): boolean {
  return owner.organizationId === caller.organizationId && owner.environment === caller.environment && generationOf(owner) === generationOf(caller);
}

/** The platform acting for itself (toward another service, or in its own events): no customer's key. */
export function platformTenant(environment: Environment, service: string): Tenant {
  return { organizationId: 'platform', environment, keyId: `system:${service}` };
}
