import { AppError, ERROR_REASONS, isErrorReason, type ErrorReason } from '@ramp/contracts';
import type { ApiResponse } from './http';

/**
 * Asserts an error envelope: status, code, a reason of the catalogue that belongs to the code (the one given, if
 * any), and (for INVALID_REQUEST) the field named in `error.field` and the message.
 */
export function expectError(response: ApiResponse, status: number, code: string, field?: string, reason?: ErrorReason): void {
  const context = `${response.status} ${response.text}`;
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${context}`);
  const body = response.body as { success?: unknown; error?: { code?: unknown; reason?: unknown; message?: unknown; field?: unknown } } | undefined;
  if (body?.success !== false || typeof body.error?.message !== 'string' || body.error.message === '') {
    throw new Error(`not an error envelope: ${context}`);
  }
  if (body.error.code !== code) throw new Error(`expected code ${code}, got ${context}`);
  if (!isErrorReason(body.error.reason) || ERROR_REASONS[body.error.reason].code !== code) throw new Error(`no reason of ${code} in the catalogue: ${context}`);
  if (reason !== undefined && body.error.reason !== reason) throw new Error(`expected reason ${reason}, got ${context}`);
  if (field !== undefined) {
    if (body.error.field !== field) throw new Error(`expected field ${field}, got ${context}`);
    if (!body.error.message.startsWith(`${field}: `)) throw new Error(`message does not name ${field}: ${context}`);
  }
  if (/\n\s+at |node_modules|\.ts:\d+/.test(response.text)) throw new Error(`stack trace leaked: ${context}`);
}

/** The AppError a call failed with (an RPC answered with a typed error); fails if it succeeded or threw otherwise. */
export async function rpcFailure(work: Promise<unknown>): Promise<AppError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Polls `read` until `done` says so, and returns that value; fails after `ms` with the last value seen. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms; last: ${JSON.stringify(value)}`);
    await new Promise((wait) => setTimeout(wait, everyMs));
  }
}
