import { invalidField } from './errors/app-error';
import type { PaginationMeta } from './errors/envelope';

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

/** `page` (from 1, default 1) and `limit` (1 to 100, default 20) of a list request, as the spec's lists take them. */
export function parsePage(request: { page?: string; limit?: string }): Page {
  const page = wholeNumber(request.page, 'page', 1, 1_000_000);
  const limit = wholeNumber(request.limit, 'limit', 20, 100);
  return { page, limit, offset: (page - 1) * limit };
}

export function pageMeta({ page, limit }: Page, total: number): PaginationMeta {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

function wholeNumber(raw: string | undefined, field: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d{0,6}$/.test(raw) || Number(raw) > max) throw invalidField(field, `must be a whole number from 1 to ${max}`);
  return Number(raw);
}
