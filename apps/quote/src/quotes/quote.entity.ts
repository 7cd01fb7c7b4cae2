import { EntitySchema } from '@mikro-orm/core';
import type { Environment, QuoteKind } from '@ramp/contracts';

export interface QuoteRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  generation: number;
  kind: QuoteKind;
  request: object;
  response: object;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
  consumedBy: string | null;
}

export const QuoteSchema = new EntitySchema<QuoteRecord>({
  name: 'Quote',
  tableName: 'quotes',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string', fieldName: 'organization_id' },
    environment: { type: 'string' },
    generation: { type: 'integer' },
    kind: { type: 'string' },
    request: { type: 'json' },
    response: { type: 'json' },
    createdAt: { type: 'Date', fieldName: 'created_at' },
    expiresAt: { type: 'Date', fieldName: 'expires_at' },
    consumedAt: { type: 'Date', fieldName: 'consumed_at', nullable: true },
    consumedBy: { type: 'string', fieldName: 'consumed_by', nullable: true },
  },
});
