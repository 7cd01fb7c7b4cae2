import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CHAIN_NAMES } from '@ramp/chains';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES, TransactionGet, TransactionList } from '@ramp/contracts';
import { queryParameters } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';
import { TransactionSchema } from './transaction.schema';

const FILTERS = ['page', 'limit', 'type', 'status', 'chain', 'walletId', 'from', 'to'] as const;
const READ: ForwardOptions = { status: 200, needsProviders: false };

@Controller('transactions')
export class TransactionsHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Get()
  @ApiQuery({ name: 'page', required: false, type: Number, description: 'From 1 (default 1).', example: 1 })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1 to 100 (default 20).', example: 20 })
  @ApiQuery({ name: 'type', required: false, enum: TRANSACTION_TYPES })
  @ApiQuery({ name: 'status', required: false, enum: TRANSACTION_STATUSES })
  @ApiQuery({ name: 'chain', required: false, enum: CHAIN_NAMES })
  @ApiQuery({ name: 'walletId', required: false, type: String })
  @ApiQuery({ name: 'from', required: false, type: String, description: 'ISO 8601 date or date-time: created at or after.' })
  @ApiQuery({ name: 'to', required: false, type: String, description: 'ISO 8601 date or date-time: created at or before.' })
  @ApiEndpoint({
    operationId: 'listTransactions',
    tag: 'Transactions',
    summary: 'Your transactions of every type, newest first',
    description:
      "Newest first (by createdAt, then id), filtered by any of type, status, chain, walletId and a createdAt range (from, to: inclusive). It follows the services' event streams, so a transaction appears within milliseconds of its change. " +
      'A list envelope: `data` and `meta` (page, limit, total, totalPages). An unknown or invalid filter is INVALID_REQUEST naming it.',
    status: 200,
    data: [TransactionSchema],
    errors: ['INVALID_REQUEST'],
    paginated: true,
  })
  async list(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest) {
    const filters: TransactionList.Request = queryParameters(query, FILTERS);
    return this.forwarder.list(TransactionList.contract, request, filters, READ);
  }

  @Get(':transactionId')
  @ApiParam({ name: 'transactionId', example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'getTransaction',
    tag: 'Transactions',
    summary: 'One transaction of any type',
    description:
      "From the read model of every transaction (it follows the services within milliseconds; the per-type endpoints read the owning service directly). NOT_FOUND for an unknown id or another API key's transaction.",
    status: 200,
    data: TransactionSchema,
    errors: ['NOT_FOUND'],
  })
  async get(@Param('transactionId') transactionId: string, @Req() request: FastifyRequest) {
    return this.forwarder.get(TransactionGet.contract, request, { transactionId }, READ);
  }
}
