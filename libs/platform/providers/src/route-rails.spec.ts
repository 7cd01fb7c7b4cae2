import { isValidAddress } from '@ramp/chains';
import { SandboxRouteRails } from './route-rails';

describe('SandboxRouteRails', () => {
  const rails = new SandboxRouteRails();
  const order = { transactionId: 'txn_01M82JKS0653T6WKTARA9RFX7D', fromAmount: '100' };
  const swap = {
    order,
    index: 0,
    chain: 'base',
    provider: 'Aerodrome',
    fromToken: 'USDC',
    toToken: 'ETH',
    amountIn: '99.7',
    expectedOut: '0.03115625',
    minimumOut: '0.031',
    recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  };
  const bridge = {
    order,
    index: 1,
    provider: 'Stargate',
    fromChain: 'bsc',
    toChain: 'base',
    token: 'USDC',
    amount: '80.246912851234567891',
    minimumOut: '80.24',
    recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  };

  it('fills a swap at the quote, with the same hash every time for the same leg', async () => {
    const first = await rails.swap(swap);
    expect(first).toEqual({ ok: true, amountOut: '0.03115625', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await rails.swap(swap)).toEqual(first);
  });

  it('has no magic amounts any more: 12.34 and 44.44 fill like any other (failures are produced on chain)', async () => {
    for (const fromAmount of ['12.34', '44.44']) {
      expect(await rails.swap({ ...swap, order: { ...order, fromAmount } })).toMatchObject({ ok: true, amountOut: '0.03115625' });
      expect(await rails.bridge({ ...bridge, order: { ...order, fromAmount } })).toMatchObject({ ok: true });
    }
  });

  it('reverts a swap whose fill is below the minimum, saying what it would give', async () => {
    expect(await rails.swap({ ...swap, minimumOut: '0.032' })).toEqual({
      ok: false,
      reason: expect.stringContaining('below the minimum 0.032'),
      wouldGive: '0.03115625',
    });
  });

  it('delivers a bridged amount as the destination chain holds it (USDC has 6 decimals on base), and refunds below the minimum', async () => {
    expect(await rails.bridge(bridge)).toMatchObject({ ok: true, amountOut: '80.246912' });
    expect(await rails.bridge({ ...bridge, minimumOut: '80.25' })).toMatchObject({ ok: false, reason: expect.stringContaining('refunded the order on bsc') });
  });

  it('lands intermediate legs on a settlement address valid for each chain family, and signs Solana legs in base58', async () => {
    expect(isValidAddress('base', rails.settlementAddress('base'))).toBe(true);
    expect(isValidAddress('solana', rails.settlementAddress('solana'))).toBe(true);
    expect(rails.settlementAddress('base')).not.toBe(rails.settlementAddress('bsc'));
    const solana = await rails.bridge({ ...bridge, toChain: 'solana', minimumOut: '0' });
    expect(solana.ok && solana.transactionHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
  });
});
