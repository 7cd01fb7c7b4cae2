import {
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  HttpRequestError,
  InternalRpcError,
  LimitExceededRpcError,
  RpcRequestError,
  TimeoutError,
  UserRejectedRequestError,
} from 'viem';
import { isInsufficientFunds, isNodeFailure, isRevert, isTransient } from './rpc-errors';

describe('rpc errors - only the chain saying "it would revert" fails a send; everything else is retried', () => {
  const rpc = (code: number, message: string) => new RpcRequestError({ body: {}, error: { code, message }, url: 'http://node' });

  it('takes an execution revert (code 3, or a decoded revert) as a revert', () => {
    expect(isRevert(rpc(3, 'execution reverted'))).toBe(true);
    expect(isRevert(new ContractFunctionRevertedError({ abi: [], functionName: 'transfer' }))).toBe(true);
  });

  it('retries what says nothing about the transaction: unreachable, timeouts, rate limits, lagging or failing nodes', () => {
    for (const error of [
      new HttpRequestError({ url: 'http://node', status: 503 }),
      new TimeoutError({ body: {}, url: 'http://node' }),
      rpc(429, 'Too Many Requests'),
      rpc(-32005, 'limit exceeded'),
      rpc(-32000, 'header not found'),
      rpc(-32603, 'internal error'),
      new Error('socket hang up'),
    ]) {
      expect(isTransient(error)).toBe(true);
    }
  });

  it('tells a sender that cannot pay (value and gas) from a revert and from an outage', () => {
    const broke = rpc(-32003, 'insufficient funds for gas * price + value: have 1 want 2');
    expect(isInsufficientFunds(broke)).toBe(true);
    expect(isRevert(broke)).toBe(false);
    expect(isInsufficientFunds(rpc(3, 'execution reverted'))).toBe(false);
    expect(isInsufficientFunds(rpc(-32603, 'internal error'))).toBe(false);
    expect(isInsufficientFunds(new Error('insufficient funds'))).toBe(false);
  });
});

describe('isNodeFailure - which failures another node may not have', () => {
  it("fails over a node unreachable, timed out, rate-limited or in internal error, as viem's http transport throws them", () => {
    expect(isNodeFailure(new HttpRequestError({ url: 'https://node.example', status: 503 }))).toBe(true);
    expect(isNodeFailure(new TimeoutError({ body: {}, url: 'https://node.example' }))).toBe(true);
    expect(isNodeFailure(new InternalRpcError(new Error('internal error')))).toBe(true);
    expect(isNodeFailure(new LimitExceededRpcError(new Error('limit exceeded')))).toBe(true);
    const rateLimited = new RpcRequestError({ body: {}, url: 'https://node.example', error: { code: -32007, message: 'daily request count exceeded' } });
    expect(isNodeFailure(rateLimited)).toBe(true);
    expect(isNodeFailure(new RpcRequestError({ body: {}, url: 'https://node.example', error: { code: 429, message: 'too many requests' } }))).toBe(true);
  });

  it("never fails over the chain's own answer: a revert, a refused request", () => {
    expect(isNodeFailure(new ExecutionRevertedError({ message: 'execution reverted' }))).toBe(false);
    expect(isNodeFailure(new RpcRequestError({ body: {}, url: 'https://node.example', error: { code: 3, message: 'execution reverted' } }))).toBe(false);
    expect(isNodeFailure(new RpcRequestError({ body: {}, url: 'https://node.example', error: { code: -32000, message: 'nonce too low' } }))).toBe(false);
    expect(isNodeFailure(new UserRejectedRequestError(new Error('no')))).toBe(false);
    expect(isNodeFailure(new Error('plain'))).toBe(false);
  });
});
