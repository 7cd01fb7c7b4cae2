import type { ErrorBody } from './app-error';

export interface PaginationMeta {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export type SuccessEnvelope<T> = { success: true; data: T };
export type ListEnvelope<T> = { success: true; data: T[]; meta: PaginationMeta };
export type ErrorEnvelope = { success: false; error: ErrorBody };
export type Envelope<T> = SuccessEnvelope<T> | ListEnvelope<T> | ErrorEnvelope;
