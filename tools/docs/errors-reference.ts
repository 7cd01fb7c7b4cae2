import { ERROR_CODES, ERROR_REASONS, FAILURE_REASONS, HTTP_STATUS_OF, type ErrorCode, type ErrorReason } from '@ramp/contracts';

/** Where the rendering lives, from the repository root. */
export const ERRORS_PAGE = 'docs/api/errors.md';

/** What each code means to an integrator and what to do about it; the statuses come from HTTP_STATUS_OF. */
const CODE_GUIDANCE: Readonly<Record<ErrorCode, { meaning: string; action: string }>> = {
  INVALID_REQUEST: {
    meaning:
      'A field, parameter or header is missing or breaks a rule, or the request cannot be read. Also 413 (body too large), 431 (headers over 16 KiB) and 408 (request not received in time).',
    action: 'Fix the request; sending it again unchanged gets the same answer.',
  },
  UNAUTHORIZED: { meaning: 'The `x-api-key` header is missing, or the key is unknown or revoked.', action: 'Send a valid key.' },
  FORBIDDEN: {
    meaning: "Plain HTTP, an address outside the key's IP allowlist, or a live key on a route that needs a provider before live mode is enabled.",
    action: 'Use HTTPS, an allowlisted address, or a test key.',
  },
  NOT_FOUND: {
    meaning: "The resource does not exist for this key (another tenant's ids are not found either), or no such route.",
    action: 'Check the id and the key (a test key does not see live data).',
  },
  CONFLICT: {
    meaning:
      'The quote was already used, the Idempotency-Key belongs to another request or is still running, or the transaction is past the point where this can happen.',
    action: 'Depends on the reason: request a new quote, use a new key for a new request, or look the result up.',
  },
  RATE_LIMITED: { meaning: 'Too many requests; `Retry-After` and the message give the seconds to wait.', action: 'Wait `Retry-After` seconds, then retry.' },
  INTERNAL_ERROR: {
    meaning: 'An unexpected fault, logged with the `x-request-id`. Whether the request took effect is unknown.',
    action: 'Retry with the same Idempotency-Key, or look the result up; quote `x-request-id` to support if it persists.',
  },
  SERVICE_UNAVAILABLE: {
    meaning: 'A service or one of its dependencies is down or did not answer in time. With `Retry-After`, nothing ran.',
    action: 'Retry with exponential backoff and the same Idempotency-Key (at once after `Retry-After`).',
  },
};

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** Reasons answered with another status than their code's (the edge answers them before any route runs). */
const STATUS_OF_REASON: Readonly<Partial<Record<ErrorReason, string>>> = {
  BODY_TOO_LARGE: '413',
  MALFORMED_REQUEST: '400; 431 for headers over 16 KiB, 408 for a request not received in time',
};

function statusOf(code: ErrorCode, reason: ErrorReason): string {
  return STATUS_OF_REASON[reason] ?? String(HTTP_STATUS_OF[code]);
}

function codeTable(): string[] {
  return [
    '| Code | HTTP status | Meaning | What to do |',
    '|---|---|---|---|',
    ...ERROR_CODES.map((code) => `| \`${code}\` | ${HTTP_STATUS_OF[code]} | ${cell(CODE_GUIDANCE[code].meaning)} | ${cell(CODE_GUIDANCE[code].action)} |`),
  ];
}

function reasonTable(): string[] {
  const rows = ERROR_CODES.flatMap((code) =>
    Object.entries(ERROR_REASONS)
      .filter(([, entry]) => entry.code === code)
      .map(([reason, entry]) => `| \`${reason}\` | \`${code}\` | ${statusOf(code, reason as ErrorReason)} | ${cell(entry.description)} |`),
  );
  return ['| Reason | Code | HTTP status | Meaning |', '|---|---|---|---|', ...rows];
}

function failureTable(): string[] {
  return [
    '| Failure reason | Meaning |',
    '|---|---|',
    ...Object.entries(FAILURE_REASONS).map(([reason, description]) => `| \`${reason}\` | ${cell(description)} |`),
  ];
}

/** docs/api/errors.md, rendered from the error catalogues of libs/contracts (a unit test keeps the file equal to this). */
export function renderErrorReference(): string {
  return [
    '# Errors',
    '',
    '[Reference index](README.md) · [Endpoints](endpoints.md) · [Resources](resources.md)',
    '',
    'This page is generated from `libs/contracts/src/errors` (`npm run docs:errors` rewrites it; a unit test fails when',
    'it is out of date), so its catalogues are exactly what the platform sends.',
    '',
    '## The error envelope',
    '',
    '```json',
    '{',
    '  "success": false,',
    '  "error": {',
    '    "code": "INVALID_REQUEST",',
    '    "reason": "QUOTE_EXPIRED",',
    '    "message": "quoteId: the quote expired at 2026-11-23T10:05:00.000Z; request a new quote",',
    '    "field": "quoteId"',
    '  }',
    '}',
    '```',
    '',
    '- `code`: one of the codes below; it decides the HTTP status. `INVALID_REQUEST`, `UNAUTHORIZED`, `NOT_FOUND` and',
    '  `RATE_LIMITED` are the codes of the original specification, with the same meaning.',
    '- `reason`: the precise cause, a stable name for programs to branch on. A reason always comes with the same code.',
    '  New reasons may be added within `/v1` (see [Versioning](../versioning.md)): handle a reason you do not know by',
    '  its code.',
    '- `message`: for people. Its wording may change; do not parse it. For `INVALID_REQUEST` it reads `field: rule`.',
    '- `field`: the request field, parameter or header at fault, when there is one (mostly `INVALID_REQUEST`).',
    '',
    'Every response, errors included, carries `x-request-id`: quote it to support.',
    '',
    '## Codes',
    '',
    ...codeTable(),
    '',
    'Apart from 429 and `IDEMPOTENCY_KEY_IN_PROGRESS`, a 4xx means the request must change before it can succeed:',
    'send the changed request with a new `Idempotency-Key` (the same key answers the stored error again, and with',
    'another body CONFLICT; see [Idempotency](idempotency.md)). After a 500, or a 503 without `Retry-After`, the',
    'request may have taken effect: retry it with the same `Idempotency-Key` (`IDEMPOTENCY_KEY_IN_PROGRESS`, for up to',
    'a minute, means the first attempt is still unresolved), or look for the transaction before starting another.',
    '',
    '## Reasons (`error.reason`)',
    '',
    ...reasonTable(),
    '',
    '## Failure reasons (`failureReason`)',
    '',
    'A request can succeed and the transaction it started fail later. A failed transaction carries `errorMessage` (what',
    'happened, for people) and `failureReason` (why, for programs) on the [Transaction](resources.md#transaction) and in',
    'its `<type>.failed` [webhook event](webhooks.md#payload). Whatever the transaction had taken was given back before',
    'it failed. New failure reasons may be added within `/v1`: handle one you do not know as `TRANSACTION_FAILED`.',
    '',
    ...failureTable(),
    '',
  ].join('\n');
}
