import fc from 'fast-check';
import { AppError } from '@ramp/contracts';
import { MAX_BODY_DEPTH, parseJsonBody } from './json-body';

function refusal(text: string): string {
  try {
    parseJsonBody(text);
  } catch (error) {
    if (error instanceof AppError) return `${error.code} ${error.message}`;
    throw error;
  }
  throw new Error(`${text} was accepted`);
}

describe('parseJsonBody', () => {
  it('refuses anything but an object at the top: null is no body (only an absent body counts as {})', () => {
    for (const text of ['null', '[]', '"text"', '1', 'true']) expect(() => parseJsonBody(text)).toThrow('body: must be a JSON object');
    expect(parseJsonBody('{"amount":"1"}')).toEqual({ amount: '1' });
  });

  it('parses the objects JSON.parse parses, when every key is given once and nothing is nested too deep', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: MAX_BODY_DEPTH - 2 })), (value) => {
        const text = JSON.stringify(value);
        fc.pre(!text.includes('"__proto__"'));
        expect(parseJsonBody(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('refuses a key given twice in one object, however it is escaped', () => {
    expect(refusal('{"amount":"1","amount":"1000"}')).toBe('INVALID_REQUEST body: has the key "amount" twice in one object');
    expect(refusal('{"amount":"1","\\u0061mount":"1000"}')).toBe('INVALID_REQUEST body: has the key "amount" twice in one object');
    expect(refusal('{"a":{"b":1,"b":2}}')).toBe('INVALID_REQUEST body: has the key "b" twice in one object');
  });

  it('accepts the same key in different objects, and key-like text inside values', () => {
    expect(parseJsonBody('{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}')).toEqual({ a: { x: 1 }, b: { x: 2 }, c: [{ x: 3 }, { x: 4 }] });
    expect(parseJsonBody('{"a":"\\"a\\":1,","b":["a","a"]}')).toEqual({ a: '"a":1,', b: ['a', 'a'] });
  });

  it('refuses __proto__ anywhere', () => {
    expect(refusal('{"x":[{"__proto__":{"admin":true}}]}')).toBe('INVALID_REQUEST body: may not have a key named __proto__');
  });

  it(`refuses nesting deeper than ${MAX_BODY_DEPTH} levels, of arrays or objects`, () => {
    const arrays = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    expect(parseJsonBody(`{"a":${arrays(MAX_BODY_DEPTH - 1)}}`)).toBeDefined();
    expect(refusal(`{"a":${arrays(MAX_BODY_DEPTH)}}`)).toBe(`INVALID_REQUEST body: is nested deeper than ${MAX_BODY_DEPTH} levels`);
    expect(refusal(`{"a":${arrays(40_000)}}`)).toBe(`INVALID_REQUEST body: is nested deeper than ${MAX_BODY_DEPTH} levels`);
    expect(refusal(`${'{"a":'.repeat(20)}1${'}'.repeat(20)}`)).toBe(`INVALID_REQUEST body: is nested deeper than ${MAX_BODY_DEPTH} levels`);
  });

  it('refuses text PostgreSQL cannot store, naming the field that holds it', () => {
    expect(refusal('{"label":"a\\u0000b"}')).toBe('INVALID_REQUEST label: must be valid Unicode text without NUL characters (U+0000)');
    expect(refusal('{"events":["ok","\\ud800"]}')).toBe('INVALID_REQUEST events.1: must be valid Unicode text without NUL characters (U+0000)');
    expect(refusal('{"a\\u0000":1}')).toBe('INVALID_REQUEST body: must be valid Unicode text without NUL characters (U+0000)');
    expect(parseJsonBody('{"label":"\\ud83d\\udcb8 naira"}')).toEqual({ label: '💸 naira' });
  });

  it('refuses what is not JSON, and an empty body', () => {
    expect(refusal('{"a":}')).toBe('INVALID_REQUEST body: is not valid JSON');
    expect(refusal("{'a':1}")).toBe('INVALID_REQUEST body: is not valid JSON');
    expect(refusal('  ')).toBe('INVALID_REQUEST body: must be a JSON object, and it is empty');
  });
});
