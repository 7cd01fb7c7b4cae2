import { readdirSync, readFileSync } from 'fs';
import { join, relative } from 'path';
import { DECORATORS } from '@nestjs/swagger';
import { ERROR_DESCRIPTIONS, ErrorBodySchema } from './envelopes';

const ROOT = join(__dirname, '../../../..');

/** Where the messages clients see are written: the apps and libraries, not tests, clients (SDK, load) or this document. */
const SKIPPED = /(^|\/)(node_modules|dist|generated|platform-e2e|sdk|testing|load|openapi)(\/|$)|\.(spec|int-spec|e2e-spec|generated)\.ts$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (SKIPPED.test(relative(ROOT, path))) return [];
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every string literal of the sources as a pattern: a template's `${…}` parts match any text. Templates with less than
 * ten characters of their own (`${field}: ${rule}`) would match nearly anything and are left out.
 */
function messagePatterns(): RegExp[] {
  const patterns: RegExp[] = [];
  const literal = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;
  for (const file of [...sourceFiles(join(ROOT, 'apps')), ...sourceFiles(join(ROOT, 'libs'))]) {
    for (const match of readFileSync(file, 'utf8').matchAll(literal)) {
      const text = (match[1] ?? match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
      const parts = match[3] !== undefined ? text.split(/\$\{[^}]*\}/) : [text];
      if (parts.join('').length < 10) continue;
      patterns.push(new RegExp(`^${parts.map(escape).join('.+')}$`));
    }
  }
  return patterns;
}

/** A message as written in the code: whole, or for a field `<field>: <rule>` (invalidField) with the rule written whole. */
function producedByCode(patterns: RegExp[], message: string, field?: string): boolean {
  const rule = field !== undefined && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : undefined;
  return patterns.some((pattern) => pattern.test(message) || (rule !== undefined && pattern.test(rule)));
}

describe('Error examples - messages the platform really sends', () => {
  const patterns = messagePatterns();

  it('finds the messages it knows are there (the search itself works)', () => {
    expect(patterns.length).toBeGreaterThan(200);
    expect(producedByCode(patterns, 'The x-api-key header is missing')).toBe(true);
    expect(producedByCode(patterns, 'Wallet wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V was not found')).toBe(true);
    expect(producedByCode(patterns, 'amount must be greater than zero', 'amount')).toBe(false);
    expect(producedByCode(patterns, 'This Idempotency-Key was used with a different request body')).toBe(false);
  });

  it.each(Object.entries(ERROR_DESCRIPTIONS))('%s: its example message is written in the code', (code, { example }) => {
    expect(example.code).toBe(code);
    const field = 'field' in example ? example.field : undefined;
    if (field !== undefined) expect(example.message.startsWith(`${field}: `)).toBe(true);
    expect({ message: example.message, producedByCode: producedByCode(patterns, example.message, field) }).toEqual({
      message: example.message,
      producedByCode: true,
    });
  });

  it('ErrorBodySchema: its message example is written in the code too', () => {
    const properties = (name: string) => Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, ErrorBodySchema.prototype, name) as { example: string };
    const field = properties('field').example;
    const message = properties('message').example;
    expect(producedByCode(patterns, message, field)).toBe(true);
  });
});
