export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * Who is calling. The data of a key is the data of its organization in its environment (DESIGN.md §4):
 * every service scopes reads and writes by (organizationId, environment); keyId is kept for audit.
 */
export interface Tenant {
  organizationId: string;
  environment: Environment;
  keyId: string;
}
