import { createPublicClient, erc20Abi, getAddress, http, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { makeNuban } from '@ramp/banking';
import { Config } from '@ramp/config';
import { resolveChains } from '@ramp/evm';
import { ApiClient, createKey, endUserWith, eventually, ledgerCheck, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

const GTB = makeNuban('058', '012345678');

/**
 * Non-custodial off-ramps on the local test chain: the deposit address is real, an outside wallet's transfer moves the
 * off-ramp on, and a deposit of another amount or after expiry goes back to its sender on chain.
 */
describe('off-ramp - non-custodial deposits and refunds on a real chain', () => {
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let usdc: Address;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], { SANDBOX_STEP_DELAY_MS: '50', SANDBOX_DEPOSIT_WINDOW_SECONDS: '6' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    const chains = (await api.get('/transfer/chains')).body.data;
    usdc = getAddress(chains.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === 'USDC').contractAddress);
  }, 60_000);

  afterAll(async () => {
    await stopAll(services.values());
  });

  const usdcOf = (address: Address) => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
  const receiptOf = (hash: Hex) => client.getTransactionReceipt({ hash });

  /** An end user with test ETH and USDC from the faucet, who pays USDC to an address. */
  async function endUser(usdcAmount: string) {
    const { account, wallet } = await endUserWith(api, 'base', base.rpcUrl, { ETH: '1', USDC: usdcAmount });
    const pay = async (to: Address, amount: string) => {
      const hash = await wallet.writeContract({ chain: null, address: usdc, abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(amount, 6)] });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
      return hash;
    };
    return { address: account.address, pay };
  }

  const initiate = async (amount: string, sourceAddress: string) => {
    const quote = (await api.post('/offramp/quote', { amount, tokenSymbol: 'USDC', bankCode: '058', accountNumber: GTB, chain: 'base' })).body.data;
    const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, sourceAddress });
    expect(started.status).toBe(201);
    return started.body.data as { transactionId: string; depositAddress: Address };
  };
  const settled = async (transactionId: string) =>
    (await eventually(() => api.get(`/offramp/${transactionId}`), (response) => response.body.data.status !== 'pending', 30_000)).body.data;

  it("an outside wallet's transfer of the quoted amount to the deposit address completes the off-ramp, with the deposit's real hash", async () => {
    const user = await endUser('100');
    const started = await initiate('60', user.address);
    expect(await client.getCode({ address: started.depositAddress })).toBeUndefined(); // an address only, until swept
    const paid = await user.pay(started.depositAddress, '60');
    const done = await settled(started.transactionId);
    expect(done).toMatchObject({ status: 'completed', depositAddress: started.depositAddress, depositTransactionHash: paid, sourceAddress: user.address });
    expect(done).not.toHaveProperty('refundTransactionHash');
    // The deposit is on chain; the swap to CNGN and its settlement stay on the sandbox's rails until part 2, and say so.
    expect(done.hashes.map(({ step, settlement }: any) => [step, settlement])).toEqual([
      ['deposit', 'onchain'],
      ['swap', 'simulated'],
      ['settlement', 'simulated'],
    ]);
    // Swept to the hot wallet: the address holds nothing, and is now the forwarder.
    await eventually(() => usdcOf(started.depositAddress), (left) => left === 0n);
    expect(await client.getCode({ address: started.depositAddress })).toMatch(/^0x[0-9a-f]+/);
    expect(await usdcOf(user.address)).toBe(parseUnits('40', 6));
  }, 60_000);

  it('a deposit of another amount fails the off-ramp and goes back to its sender on chain', async () => {
    const user = await endUser('100');
    const started = await initiate('60', user.address);
    await user.pay(started.depositAddress, '59.5');
    const failed = await settled(started.transactionId);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'DEPOSIT_AMOUNT_MISMATCH' });
    const refund = await receiptOf(failed.refundTransactionHash);
    expect(refund.status).toBe('success');
    expect(getAddress(refund.to!)).toBe(usdc);
    expect(failed.hashes).toEqual([
      { step: 'deposit', transactionHash: failed.depositTransactionHash, settlement: 'onchain' },
      { step: 'refund', transactionHash: failed.refundTransactionHash, settlement: 'onchain' },
    ]);
    expect(await usdcOf(user.address)).toBe(parseUnits('100', 6));
  }, 60_000);

  it('a deposit after the address expired is sent back too, after the off-ramp failed', async () => {
    const user = await endUser('100');
    const started = await initiate('25', user.address);
    const expired = await settled(started.transactionId);
    expect(expired).toMatchObject({ status: 'failed', failureReason: 'DEPOSIT_EXPIRED' });
    const late = await user.pay(started.depositAddress, '25');
    const refunded = (await eventually(() => api.get(`/offramp/${started.transactionId}`), (response) => response.body.data.refundTransactionHash !== undefined, 30_000)).body.data;
    expect(refunded).toMatchObject({ status: 'failed', depositTransactionHash: late });
    expect((await receiptOf(refunded.refundTransactionHash)).status).toBe('success');
    await eventually(() => usdcOf(user.address), (balance) => balance === parseUnits('100', 6));
  }, 60_000);

  it('the sandbox deposit is a real transfer from the faucet, recorded like any other', async () => {
    const started = await initiate('30', privateKeyToAccount(generatePrivateKey()).address);
    const deposited = await api.post(`/sandbox/offramp/${started.transactionId}/deposit`, {});
    expect(deposited.status).toBe(200);
    const hash = deposited.body.data.depositTransactionHash;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await receiptOf(hash)).status).toBe('success');
    expect((await settled(started.transactionId)).status).toBe('completed');
  }, 60_000);

  it('after deposits, sweeps and refunds, the books of the chain equal the chain to the base unit', async () => {
    const check = await ledgerCheck();
    expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
    expect(check.ok).toBe(true);
  }, 60_000);
});
