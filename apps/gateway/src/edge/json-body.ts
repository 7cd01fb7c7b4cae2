import { invalidField } from '@ramp/contracts';

/** Request bodies are flat objects; anything nested deeper than this is refused before validation walks it. */
export const MAX_BODY_DEPTH = 16;

/**
 * Parses a request body as JSON and refuses what JSON.parse alone would let through:
 * - anything but an object (`null`, `[]`, `"text"`, `1`);
 * - a key given twice in one object (`{"amount":"1","amount":"1000"}`): parsers disagree on which one counts (a log,
 *   a proxy and the service could each read another value), so neither is taken;
 * - `__proto__` as a key anywhere (prototype pollution of whatever merges the value later);
 * - nesting deeper than `maxDepth` (validation walks values recursively: a deep one would exhaust the stack);
 * - text PostgreSQL cannot store (U+0000, lone surrogates): refused here rather than failing in a service.
 * Every refusal is INVALID_REQUEST naming `body`, or the field holding the bad text.
 */
export function parseJsonBody(text: string, maxDepth = MAX_BODY_DEPTH): unknown {
  if (text.trim() === '') throw invalidField('body', 'must be a JSON object, and it is empty', 'MALFORMED_REQUEST');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidField('body', 'is not valid JSON', 'MALFORMED_REQUEST');
  }
  // A body is an object: `null`, an array or a bare value is no request, whatever the route (only an absent body counts as {}).
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidField('body', 'must be a JSON object', 'MALFORMED_REQUEST');
  inspect(text, maxDepth);
  const bad = badText(value);
  if (bad !== undefined) throw invalidField(bad || 'body', TEXT_RULE);
  return value;
}

export const TEXT_RULE = 'must be valid Unicode text without NUL characters (U+0000)';

/** Text PostgreSQL cannot store as given: U+0000, or a lone surrogate (not Unicode at all). */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path (`label`, `events.2`) of the first string, key included, that is not storable text; undefined when none. */
function badText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (!isStorableText(key)) return path || 'body';
    const bad = badText(item, at);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/** One pass over text that is valid JSON: nesting depth, and the keys of each object. */
function inspect(text: string, maxDepth: number): void {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '{' || char === '[') {
      open.push(char === '{' ? new Set() : null);
      if (open.length > maxDepth) throw invalidField('body', `is nested deeper than ${maxDepth} levels`, 'MALFORMED_REQUEST');
      expectKey = char === '{';
    } else if (char === '}' || char === ']') {
      open.pop();
      expectKey = false;
    } else if (char === ',') {
      expectKey = open[open.length - 1] instanceof Set;
    } else if (char === '"') {
      const end = closingQuote(text, i);
      if (expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        const keys = open[open.length - 1] as Set<string>;
        if (key === '__proto__') throw invalidField('body', 'may not have a key named __proto__');
        if (keys.has(key)) throw invalidField('body', `has the key ${JSON.stringify(key)} twice in one object`);
        keys.add(key);
        expectKey = false;
      }
      i = end;
    }
  }
}

/** The index of the quote that closes the string opening at `start` (the text is valid JSON). */
function closingQuote(text: string, start: number): number {
  for (let i = start + 1; ; i++) {
    if (text[i] === '\\') i += 1;
    else if (text[i] === '"') return i;
  }
}
