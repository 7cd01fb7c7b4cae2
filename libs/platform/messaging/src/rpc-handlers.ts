import { applyDecorators, Catch, createParamDecorator, Inject, Injectable, UseFilters, type ExecutionContext, type RpcExceptionFilter } from '@nestjs/common';
import { MessagePattern, Transport, type NatsContext } from '@nestjs/microservices';
import { throwError, type Observable } from 'rxjs';
import { HEADERS, type ResponseOf, type RpcContract, type RpcRequest, type Tenant } from '@ramp/contracts';
import { NatsRpcServer } from './rpc-server';

/**
 * Turns whatever a handler throws into its reply (NatsRpcServer.failureOf: typed errors as they are, NothingRan marked
 * not run, outages SERVICE_UNAVAILABLE, anything else INTERNAL_ERROR, logged). Bound to every handler by Handles, so
 * that it comes before any filter the application registers for HTTP.
 */
@Catch()
@Injectable()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(@Inject(NatsRpcServer) private readonly server: NatsRpcServer) {}

  catch(error: unknown): Observable<never> {
    const failure = this.server.failureOf(error);
    return throwError(() => failure);
  }
}

/**
 * Makes a method of a `*.nats.controller.ts` the handler of a request/reply contract, served by NatsRpcServer only
 * (Transport.NATS: another transport strategy, such as the JetStream consumers, does not bind it). The method must
 * answer the contract's response type; it takes its input with RequestData, CallerTenant and RequestId.
 */
export function Handles<C extends RpcContract<unknown, unknown>>(contract: C) {
  const decorate = applyDecorators(MessagePattern(contract.subject, Transport.NATS), UseFilters(RpcErrorFilter));
  return <M extends (...args: never[]) => Promise<ResponseOf<C>>>(target: object, method: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    decorate(target, method, descriptor);
  };
}

function requestOf(context: ExecutionContext): RpcRequest<unknown> {
  const request = context.switchToRpc().getData<Partial<RpcRequest<unknown>> | undefined>();
  if (!request || typeof request !== 'object' || !request.tenant) throw new Error('malformed RPC request');
  return request as RpcRequest<unknown>;
}

/** The handler's input: the request's `data` (an empty object when the caller sent none). */
export const RequestData = createParamDecorator((_: unknown, context: ExecutionContext): unknown => requestOf(context).data ?? {});

/** The caller's tenant (organization, environment, key), which every request carries. */
export const CallerTenant = createParamDecorator((_: unknown, context: ExecutionContext): Tenant => requestOf(context).tenant);

/** The `x-request-id` of the request being served, if the caller had one. */
export const RequestId = createParamDecorator(
  (_: unknown, context: ExecutionContext): string | undefined =>
    context.switchToRpc().getContext<NatsContext>().getHeaders()?.get(HEADERS.requestId) || undefined,
);
