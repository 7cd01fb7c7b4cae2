import fc from 'fast-check';
import { exampleEntries, type ApiRoute as RouteUnderTest } from './route-table';

/**
 * Generators of malformed and hostile requests for the gateway's fuzz test, built from a route (method, path with
 * `:params`) and its documented body schema. Each case says whether the gateway must refuse it (`mustRefuse`: a 4xx)
 * or may accept it (hostile content in a field that takes any text, a header it ignores): either way the answer must
 * be an envelope and never a 5xx.
 */

/** Well-formed ids of each kind that belong to nobody: what a test asks for to be told NOT_FOUND. */
export const UNKNOWN_IDS = {
  quote: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  wallet: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  transaction: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  webhook: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  delivery: 'dlv_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
} as const;

export interface HostileCase {
  /** What was done to the request, for the failure message and the tally. */
  label: string;
  method: string;
  path: string;
  headers: [string, string][];
  body?: string | Buffer;
  mustRefuse: boolean;
}

/** Strings that have broken parsers, validators, routers, logs and databases. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'null',
  'undefined',
  '../../../../etc/passwd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '..\\..\\windows\\win.ini',
  '/etc/passwd%00.json',
  "' OR '1'='1' --",
  '"; DROP TABLE ramp.events; --',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '\u202egnp.exe',
  'zero\u200bwidth',
  '💸💸💸',
  '１０００', // full-width digits
  '١٠٠', // Arabic-Indic digits
  'ｕｓｄｃ',
  '\ud800',
  '1e3',
  '1E-7',
  '-1',
  '+1',
  '0x10',
  'NaN',
  'Infinity',
  '1,000',
  '1_000',
  ' 100',
  '100 ',
  '000100',
  '0.',
  '.5',
  '0',
  '0.000000000000000000000000000001',
  '9'.repeat(400),
  `1.${'0'.repeat(300)}1`,
  '__proto__',
  'constructor',
  'txn_00000000000000000000000000',
  'wal_../../admin',
  'qt_' + 'Z'.repeat(26),
  'wh_%00',
  'https://169.254.169.254/latest/meta-data/',
  'https://[::1]/hook',
  'https://localhost/hook',
  'http://example.com/hook',
  'A'.repeat(10_000),
];

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
);

/** Number literals written into the body text as they are (JSON.stringify could not produce some of them). */
const RAW_NUMBERS = [
  '0',
  '-0',
  '-1',
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '0.1',
  '5e-324',
  '1.7976931348623157e308',
  '9007199254740993',
];

type Hostile = { json: unknown } | { raw: string };

function deep(depth: number, leaf: string): string {
  return `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
}

/** A JSON value (as text) of any shape: what a field meant to hold a string or a number must refuse when it is the wrong type. */
const hostileValue: fc.Arbitrary<Hostile> = fc.oneof(
  hostileString.map((value) => ({ json: value })),
  fc.constantFrom(...RAW_NUMBERS).map((raw) => ({ raw })),
  fc.double().map((value) => ({ raw: Number.isFinite(value) ? String(value) : '1e999' })),
  fc.boolean().map((json) => ({ json })),
  fc.constant({ json: null }),
  fc.array(hostileString, { maxLength: 5 }).map((json) => ({ json })),
  fc
    .dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', '$gt', '$where', 'amount', ''), hostileString, { maxKeys: 3 })
    .map((json) => ({ json })),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => ({ raw: deep(depth, '"x"') })),
  fc.jsonValue({ maxDepth: 4 }).map((json) => ({ json })),
);

/** The JSON type of a value as the schema names types (raw literals are numbers, or arrays when nested). */
function jsonType(value: Hostile): string {
  if ('raw' in value) return value.raw.startsWith('[') ? 'array' : 'number';
  return Array.isArray(value.json) ? 'array' : value.json === null ? 'null' : typeof value.json;
}

/** A value whose JSON type differs from the schema's (a string field gets anything but a string, and so on). */
function wrongTypeFor(type: string | undefined): fc.Arbitrary<Hostile> {
  const expected = type === 'integer' ? 'number' : type;
  return hostileValue.filter((value) => jsonType(value) !== expected);
}

function text(value: Hostile): string {
  return 'raw' in value ? value.raw : JSON.stringify(value.json);
}

/** An object's JSON text from entries whose values are already JSON text (so raw numbers and duplicates survive). */
function objectText(entries: [string, string][]): string {
  return `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
}

const JSON_TYPE: [string, string] = ['content-type', 'application/json'];

function bodyCases(route: RouteUnderTest, key: string): fc.Arbitrary<HostileCase>[] {
  const schema = route.body;
  const entries = exampleEntries(schema);
  const properties = Object.entries(schema?.properties ?? {});
  const required = schema?.required ?? [];
  const base = { method: route.method, path: fillPath(route.path), headers: [['x-api-key', key], JSON_TYPE] as [string, string][] };
  const cases: fc.Arbitrary<HostileCase>[] = [];
  if (properties.length > 0) {
    cases.push(
      fc
        .constantFrom(...(required.length ? required : properties.map(([name]) => name)))
        .chain((name) => wrongTypeFor(schema!.properties![name]!.type).map((value) => ({ name, value })))
        .map(({ name, value }) => ({
          ...base,
          label: `${name}: wrong type`,
          mustRefuse: true,
          body: objectText(entries.map(([n, v]) => [n, n === name ? text(value) : v])),
        })),
    );
    const strings = properties.filter(([, property]) => property.type === 'string').map(([name]) => name);
    if (strings.length) {
      cases.push(
        fc.tuple(fc.constantFrom(...strings), hostileString).map(([name, value]) => ({
          ...base,
          label: `${name}: hostile text`,
          // A free-text field (a label, a description, a reference) may take it; anything else must refuse.
          mustRefuse: Boolean(schema!.properties![name]!.enum),
          body: objectText(entries.map(([n, v]) => [n, n === name ? JSON.stringify(value) : v])),
        })),
      );
      // The same key twice: parsers disagree on which one counts, so the gateway takes neither.
      cases.push(
        fc.tuple(fc.constantFrom(...strings), hostileString).map(([name, value]) => ({
          ...base,
          label: `${name}: duplicate key`,
          mustRefuse: true,
          body: objectText([...entries, [name, JSON.stringify(value)]]),
        })),
      );
    }
  }
  if (required.length) {
    cases.push(
      fc
        .constantFrom(...required)
        .map((name) => ({ ...base, label: `${name}: missing`, mustRefuse: true, body: objectText(entries.filter(([n]) => n !== name)) })),
    );
  }
  cases.push(
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom('__proto__', 'constructor', 'prototype', '$where', '', 'ａｍｏｕｎｔ', 'amount\u0000'),
          fc.string({ minLength: 1, maxLength: 20 }),
        ),
        hostileValue,
      )
      .filter(([name]) => !properties.some(([known]) => known === name))
      .map(([name, value]) => ({
        ...base,
        label: `unknown field ${JSON.stringify(name).slice(0, 20)}`,
        mustRefuse: true,
        body: objectText([...entries, [name, text(value)]]),
      })),
  );
  cases.push(
    fc
      .oneof(
        fc.constantFrom(
          '[]',
          '"text"',
          '123',
          'null',
          'true',
          '{',
          '{"a":}',
          "{'amount':'1'}",
          '{"amount":"1",}',
          '{/* */}',
          '{"a":NaN}',
          '\u0000',
          ' ',
          'undefined',
        ),
        fc.integer({ min: 1, max: 40_000 }).map((depth) => deep(depth, '1')),
        fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
        fc.string({ unit: 'binary', maxLength: 200 }).filter((body) => !isJsonObject(body)),
        fc
          .integer({ min: 1, max: 400 })
          .map((cut) => objectText(entries).slice(0, Math.max(1, objectText(entries).length - cut)))
          .filter((body) => !isJsonObject(body)),
      )
      .map((body) => ({ ...base, label: `malformed body ${JSON.stringify(body.slice(0, 16))}`, mustRefuse: true, body })),
    fc.constantFrom<[string, boolean]>(['\xff\xfe{', true], ['\ufeff', false]).map(([prefix, mustRefuse]) => ({
      ...base,
      label: `body prefixed ${JSON.stringify(prefix)}`,
      mustRefuse,
      body: Buffer.concat([Buffer.from(prefix, 'latin1'), Buffer.from(objectText(entries))]),
    })),
    fc.integer({ min: 70_000, max: 400_000 }).map((size) => ({
      ...base,
      label: `body of ${size} bytes`,
      mustRefuse: true,
      body: objectText([...entries, ['padding', JSON.stringify('x'.repeat(size))]]),
    })),
    fc
      .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx', 'json', '')
      .map((type) => ({
        ...base,
        label: `content-type ${type || '(empty)'}`,
        mustRefuse: true,
        headers: [['x-api-key', key], ...(type ? [['content-type', type] as [string, string]] : [])],
        body: objectText(entries),
      })),
  );
  return cases;
}

function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Every byte of the UTF-8 form escaped (encodeURIComponent throws on a lone surrogate; this sends its replacement). */
function percentEncode(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/** Hostile ids in the path: traversal (kept raw or encoded), other kinds' ids, huge, unicode, malformed escapes. */
const hostileId = fc.oneof(
  fc.constantFrom(
    '..',
    '../..',
    '..%2f..%2f',
    '%ed%a0%80',
    '%ff%fe',
    '%2e%2e',
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '....//',
    '%252e%252e%252f',
    '%00',
    '%',
    '%zz',
    '%c0%ae%c0%ae',
    ';',
    '*',
    '%20',
  ),
  fc.constantFrom(...Object.values(UNKNOWN_IDS)),
  hostileString.filter((id) => id.length > 0 && id.length < 4000).map((id) => percentEncode(id)),
  fc.integer({ min: 1000, max: 6000 }).map((n) => 'txn_' + '1'.repeat(n)),
);

/** Every `:param` of a path filled with a well-formed id of its kind that belongs to nobody. */
function fillPath(path: string): string {
  return path.replace(/:(\w+)/g, (_, name: string) => `${idPrefix(name)}01JD7X3Q9Z8K4M2N6P5R7S9T1V`);
}

function idPrefix(param: string): string {
  return ({ walletId: 'wal_', transactionId: 'txn_', webhookId: 'wh_', deliveryId: 'dlv_' } as Record<string, string>)[param] ?? 'x_';
}

function pathCases(route: RouteUnderTest, key: string): fc.Arbitrary<HostileCase>[] {
  const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  if (params.length === 0) return [];
  const body = route.method === 'POST' ? objectText(exampleEntries(route.body)) : undefined;
  return [
    fc.tuple(fc.constantFrom(...params), hostileId).map(([param, id]) => ({
      label: `${param} = ${id.slice(0, 30)}`,
      method: route.method,
      path: fillPath(route.path.replace(`:${param}`, id)),
      headers: [['x-api-key', key], ...(body ? [JSON_TYPE] : [])] as [string, string][],
      body,
      mustRefuse: true,
    })),
  ];
}

const hostileQueryValue = fc.oneof(
  hostileString.filter((value) => value.length < 4000),
  fc.constantFrom('-1', '0', '101', '1e9', '1.5', 'abc', '', '2026-13-45', 'yesterday'),
);

const CHECKED_QUERY = new Set(['limit', 'page', 'from', 'to', 'type', 'status', 'chain']);

function queryCases(route: RouteUnderTest, key: string): fc.Arbitrary<HostileCase>[] {
  if (route.method !== 'GET') return [];
  const path = fillPath(route.path);
  const headers: [string, string][] = [['x-api-key', key]];
  const cases: fc.Arbitrary<HostileCase>[] = [
    // A parameter the route does not take.
    fc
      .tuple(fc.constantFrom('admin', 'debug', 'organizationId', '__proto__', 'limit[]', 'sort'), hostileQueryValue)
      .filter(([name]) => !route.query.includes(name))
      .map(([name, value]) => ({
        label: `unknown query ${name}`,
        method: 'GET',
        path: `${path}?${percentEncode(name)}=${percentEncode(value)}`,
        headers,
        mustRefuse: true,
      })),
  ];
  if (route.query.length) {
    cases.push(
      fc.tuple(fc.constantFrom(...route.query), hostileQueryValue).map(([name, value]) => ({
        label: `query ${name}=${value.slice(0, 20)}`,
        method: 'GET',
        path: `${path}?${percentEncode(name)}=${percentEncode(value)}`,
        headers,
        // Numbers, dates and enums must refuse hostile text; an empty value counts as not given, and a filter that is
        // any text (walletId) may simply match nothing.
        mustRefuse: value !== '' && CHECKED_QUERY.has(name) && !/^\d{1,3}$/.test(value),
      })),
      fc
        .constantFrom(...route.query)
        .map((name) => ({ label: `query ${name} twice`, method: 'GET', path: `${path}?${name}=1&${name}=2`, headers, mustRefuse: true })),
    );
  }
  return cases;
}

/** Header values Node will send: tab, printable ASCII and Latin-1 (no control characters, no CR or LF). */
const latin1Text = fc.string({
  unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0xa0, max: 0xff })).map((code) => String.fromCharCode(code)),
  maxLength: 300,
});

function headerCases(route: RouteUnderTest, key: string): fc.Arbitrary<HostileCase>[] {
  const path = fillPath(route.path);
  const body = route.method === 'POST' ? objectText(exampleEntries(route.body)) : undefined;
  const json: [string, string][] = body ? [JSON_TYPE] : [];
  const make = (label: string, headers: [string, string][], mustRefuse: boolean): HostileCase => ({
    label,
    method: route.method,
    path,
    headers: [...headers, ...json],
    body,
    mustRefuse,
  });
  return [
    fc
      .oneof(
        latin1Text.map((value) => value.trim()),
        fc.constantFrom('service_test_', 'service_live_', key.toUpperCase(), `${key} `, `${key}x`, key.slice(0, -1), 'service_test_' + 'a'.repeat(5000)),
      )
      .filter((value) => value.trim() !== key)
      .map((value) => make(`x-api-key ${JSON.stringify(value.slice(0, 20))}`, value ? [['x-api-key', value]] : [], true)),
    fc.constant(make('no x-api-key', [], true)),
    fc.constant(
      make(
        'no Host header',
        [
          ['x-api-key', key],
          ['host', ''],
        ],
        true,
      ),
    ),
    fc
      .constantFrom(['x-api-key', 'service_test_nope'], ['x-api-key', key])
      .map((second) => make('x-api-key twice', [['x-api-key', key], second as [string, string]], true)),
    fc.integer({ min: 17_000, max: 80_000 }).map((size) =>
      make(
        `a header of ${size} bytes`,
        [
          ['x-api-key', key],
          ['x-padding', 'p'.repeat(size)],
        ],
        true,
      ),
    ),
    fc
      .tuple(
        fc.constantFrom(
          'x-request-id',
          'idempotency-key',
          'x-forwarded-for',
          'x-forwarded-proto',
          'forwarded',
          'x-real-ip',
          'accept',
          'accept-encoding',
          'origin',
        ),
        latin1Text,
      )
      .map(([name, value]) =>
        make(
          `${name}: ${JSON.stringify(value.slice(0, 20))}`,
          [
            ['x-api-key', key],
            [name, value],
          ],
          false,
        ),
      ),
  ];
}

/** Methods the route table does not serve at this path: NOT_FOUND, as for unknown routes. */
function methodCases(route: RouteUnderTest, key: string, served: Set<string>): fc.Arbitrary<HostileCase>[] {
  const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'].filter((method) => !served.has(`${method} ${route.path}`));
  return [
    fc
      .constantFrom(...others)
      .map((method) => ({ label: `method ${method}`, method, path: fillPath(route.path), headers: [['x-api-key', key]], mustRefuse: true })),
  ];
}

/** Every kind of hostile case for one route, one generator per kind (so that each kind gets its share of runs). */
export function hostileCases(route: RouteUnderTest, key: string, served: Set<string>): fc.Arbitrary<HostileCase>[] {
  return [
    ...(route.method === 'POST' ? bodyCases(route, key) : []),
    ...pathCases(route, key),
    ...queryCases(route, key),
    ...headerCases(route, key),
    ...methodCases(route, key, served),
  ];
}
