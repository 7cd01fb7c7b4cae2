import type { ApiResponse } from './http';

/** Asserts an error envelope: status, code, and (for INVALID_REQUEST) the field named in `error.field` and the message. */
export function expectError(response: ApiResponse, status: number, code: string, field?: string): void {
  const context = `${response.status} ${response.text}`;
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${context}`);
  const body = response.body as { success?: unknown; error?: { code?: unknown; message?: unknown; field?: unknown } } | undefined;
  if (body?.success !== false || typeof body.error?.message !== 'string' || body.error.message === '') {
    throw new Error(`not an error envelope: ${context}`);
  }
  if (body.error.code !== code) throw new Error(`expected code ${code}, got ${context}`);
  if (field !== undefined) {
    if (body.error.field !== field) throw new Error(`expected field ${field}, got ${context}`);
    if (!body.error.message.startsWith(`${field}: `)) throw new Error(`message does not name ${field}: ${context}`);
  }
  if (/\n\s+at |node_modules|\.ts:\d+/.test(response.text)) throw new Error(`stack trace leaked: ${context}`);
}
