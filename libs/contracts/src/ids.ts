import { randomFillSync } from 'crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const ID_PREFIXES = ['txn', 'qt', 'wal', 'wh', 'key', 'org', 'evt', 'dlv'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

/**
 * Random bytes for ids, drawn from the system's generator 256 ids at a time: one call per id (`randomBytes(16)`) was
 * 5% of the quote service's time under bench:quote. Each byte is used once.
 */
const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;

function randomSixteen(): Buffer {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 16;
  return pool.subarray(poolOffset - 16, poolOffset);
}

/**
 * A time-sortable unique id, `<prefix>_<ULID>`: 48 bits of milliseconds then 80 random bits, in Crockford base32
 * (26 characters), so ids sort by creation time and never collide in practice across replicas.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let time = now;
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  const random = randomSixteen();
  let randomPart = '';
  for (let i = 0; i < 16; i++) randomPart += CROCKFORD[random[i] % 32];
  return `${prefix}_${timePart}${randomPart}`;
}

const ID_SHAPE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `value` has the shape `<prefix>_<ULID>`; used to answer NOT_FOUND early for malformed ids. */
export function isIdOf(prefix: IdPrefix, value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${prefix}_`) && ID_SHAPE.test(value.slice(prefix.length + 1));
}
