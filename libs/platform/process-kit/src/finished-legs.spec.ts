import type { RpcClient } from '@ramp/messaging';
import { ChainLegs } from './chain-legs';
import { finishedLegsOf, withFinishedLegs } from './finished-legs';
import { StepPending } from './step-pending';

const txn = 'txn_01JBZ7Q0000000000000000001';
const base = { sendId: 'test-base:1', environment: 'test', chain: 'base', gasCost: '0.0001', nativeSymbol: 'ETH' } as const;

describe('finishedLegsOf - what a send.finished tells of the legs it made final', () => {
  it("keeps a confirmed swap's output and hash under its leg's key, with a wallet account's UserOperation", () => {
    const swap = { fromToken: 'USDC', amountIn: '10', toToken: 'CNGN', amountOut: '15234.5', to: '0xhot', intoHotWallet: true, account: 'hot' };
    expect(finishedLegsOf({ ...base, idempotencyKey: `swap:${txn}:leg:0`, status: 'confirmed', transactionHash: '0xa', swap })).toEqual({
      [`swap:${txn}:leg:0`]: { kind: 'swap', environment: 'test', chain: 'base', transactionHash: '0xa', amountOut: '15234.5' },
    });
    const account = { walletId: 'wal_1', userOperationHash: '0xop', sponsoredGasCost: '0.0002' };
    expect(finishedLegsOf({ ...base, idempotencyKey: `operation:${txn}:leg:0`, status: 'confirmed', transactionHash: '0xb', swap, account })).toEqual({
      [`swap:${txn}:leg:0`]: { kind: 'swap', environment: 'test', chain: 'base', transactionHash: '0xb', amountOut: '15234.5', userOperationHash: '0xop' },
    });
  });

  it('keeps each settlement a netted transfer carried under the netted send, and nothing under its own key', () => {
    const shares = [1, 2].map((n) => ({ idempotencyKey: `${txn}${n}:settle`, paysOut: `${txn}${n}`, amount: '1' }));
    const transfer = { tokenSymbol: 'CNGN', amount: '2', to: '0xprovider', account: 'provider', shares };
    expect(finishedLegsOf({ ...base, idempotencyKey: 'net:4f2a', status: 'confirmed', transactionHash: '0xn', transfer })).toEqual({
      [`transfer:${txn}1:settle`]: { kind: 'transfer', environment: 'test', chain: 'base', transactionHash: '0xn', amount: '1' },
      [`transfer:${txn}2:settle`]: { kind: 'transfer', environment: 'test', chain: 'base', transactionHash: '0xn', amount: '1' },
    });
  });

  it("keeps nothing of a failed send, a bridge's, or the platform's own", () => {
    const transfer = { tokenSymbol: 'CNGN', amount: '2', to: '0xprovider', account: 'provider' };
    expect(finishedLegsOf({ ...base, idempotencyKey: `transfer:${txn}:settle`, status: 'failed', transactionHash: '0xf', error: 'reverted' })).toEqual({});
    const bridge = { role: 'deposit', tokenSymbol: 'USDC', amount: '5', direction: 'out', account: 'hot' } as const;
    expect(finishedLegsOf({ ...base, idempotencyKey: `bridge:${txn}:leg:1:deposit`, status: 'confirmed', transactionHash: '0xd', bridge })).toEqual({});
    expect(finishedLegsOf({ ...base, idempotencyKey: 'sweep:test-base:0xabc:0', status: 'confirmed', transactionHash: '0xs', transfer })).toEqual({});
  });
});

describe('ChainLegs - a step woken by its leg answers it from what woke it', () => {
  const asked: unknown[] = [];
  const rpc: Pick<RpcClient, 'call'> = {
    call: (async (_contract: unknown, _tenant: unknown, request: unknown) => {
      asked.push(request);
      return { status: 'pending' };
    }) as RpcClient['call'],
  };
  const legs = new ChainLegs(rpc, 'ramp');
  const swapLeg = {
    environment: 'test',
    chain: 'base',
    idempotencyKey: `${txn}:leg:0`,
    fromToken: 'USDC',
    toToken: 'CNGN',
    amountIn: '10',
    minimumOut: '15000',
    account: 'hot',
    paysOut: txn,
  } as const;
  const transferLeg = {
    environment: 'test',
    chain: 'base',
    idempotencyKey: `${txn}:settle`,
    tokenSymbol: 'CNGN',
    amount: '15000',
    to: '0xprovider',
    account: 'provider',
    paysOut: txn,
  } as const;

  beforeEach(() => asked.splice(0));

  it('answers the swap and the transfer it was woken for without asking the chain service', async () => {
    const where = { environment: 'test', chain: 'base' };
    const woken = {
      [`swap:${txn}:leg:0`]: { kind: 'swap' as const, ...where, transactionHash: '0xa', amountOut: '15234.5', userOperationHash: '0xop' },
      [`transfer:${txn}:settle`]: { kind: 'transfer' as const, ...where, transactionHash: '0xb', amount: '15000.00' },
    };
    await withFinishedLegs(woken, async () => {
      expect(await legs.swap(swapLeg)).toEqual({ ok: true, amountOut: '15234.5', transactionHash: '0xa', userOperationHash: '0xop' });
      expect(await legs.transfer(transferLeg)).toEqual({ ok: true, amountOut: '15000', transactionHash: '0xb' });
    });
    expect(asked).toEqual([]);
  });

  it('asks for any other leg, and outside a woken run, as before', async () => {
    const where = { environment: 'test', chain: 'base' };
    // A transfer's outcome never answers a swap of the same key; nor one of another chain, nor one of another amount.
    await withFinishedLegs(
      {
        [`transfer:${txn}:leg:0`]: { kind: 'transfer', ...where, transactionHash: '0xb', amount: '10' },
        [`swap:${txn}:leg:0`]: { kind: 'swap', environment: 'test', chain: 'bsc', transactionHash: '0xc', amountOut: '1' },
        [`transfer:${txn}:settle`]: { kind: 'transfer', ...where, transactionHash: '0xd', amount: '14999' },
      },
      async () => {
        await expect(legs.swap(swapLeg)).rejects.toBeInstanceOf(StepPending);
        await expect(legs.transfer(transferLeg)).rejects.toBeInstanceOf(StepPending);
      },
    );
    await expect(legs.transfer(transferLeg)).rejects.toBeInstanceOf(StepPending);
    expect(asked).toHaveLength(3);
  });
});
