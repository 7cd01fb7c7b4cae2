import {
  ExecutionRevertedError,
  HttpRequestError,
  InternalRpcError,
  LimitExceededRpcError,
  RpcRequestError,
  TimeoutError,
  UserRejectedRequestError,
} from 'viem';
import { isNodeFailure } from './rpc-failover';

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
