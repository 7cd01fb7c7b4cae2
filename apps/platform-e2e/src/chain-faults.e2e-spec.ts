import { Pool } from 'pg';
import { createPublicClient, erc20Abi, getAddress, http, parseAbiItem, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Config } from '@ramp/config';
import { resolveChains } from '@ramp/evm';
import { ApiClient, createKey, eventually, ledgerCheck, startServices, stopAll } from '@ramp/testing';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * kill -9 of the chain service, five times, while funding requests keep it signing faucet mints, recording them,
 * crediting the deposits and sweeping the addresses. Some kills land between signing a batch and recording it, some
 * after recording and before broadcasting, some during a sweep: afterwards every send is on chain exactly once, every
 * deposit is credited exactly once, and the books of the chain equal the chain.
 */
describe('chain faults - kill -9 the chain service while it signs, records, credits and sweeps', () => {
  it('sends each transfer once, credits each deposit once, and the books equal the chain', async () => {
    const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
    const client = createPublicClient({ transport: http(base.rpcUrl) });
    const services = await startServices(['quote', 'ledger', 'gateway'], { RPC_TIMEOUT_MS: '3000' });
    const pool = new Pool({ connectionString: process.env.DATABASE_URL });
    try {
      const api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
      const usdc = getAddress(
        (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === 'USDC')
          .contractAddress,
      );
      const fromBlock = await client.getBlockNumber();
      // This test's sends only: the chain's earlier ones (other tests' swaps, some of them reverted on purpose) are not its subject.
      const since: Date = (await pool.query(`select now() as at`)).rows[0].at;
      const wallets: { walletId: string; address: Address }[] = [];
      for (let i = 0; i < 6; i++) wallets.push((await api.post('/wallets', { chain: 'base' })).body.data);
      const outsiders = Array.from({ length: 8 }, () => privateKeyToAccount(generatePrivateKey()).address);

      // Funding may fail while the chain service is dead (its transfer may still be sent and credited later: what
      // counts is what the chain shows). Faucet requests carry an Idempotency-Key and are retried until they answer.
      let stop = false;
      // Each wallet keeps asking while the kills go on, and until it has been answered once: a request refused while the
      // chain service is down is asked again a little later, as an integrator would.
      const funding = wallets.map(async (wallet, w) => {
        let answered = 0;
        for (let round = 0; round < 60 && answered < 12 && (!stop || answered === 0); round++) {
          const funded = await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount: `${w + 1}.${round + 1}` });
          if (funded.status === 200) answered += 1;
          else await sleep(300);
        }
      });
      const faucet = outsiders.map(async (address, i) => {
        for (;;) {
          const sent = await api.post(
            '/sandbox/faucet',
            { chain: 'base', address, tokenSymbol: 'USDC', amount: `${i + 10}` },
            { 'Idempotency-Key': `chain-faults-${address}` },
          );
          if (sent.status === 200) return sent.body.data.transactionHash as string;
          await sleep(300);
        }
      });
      const chain = services.get('chain')!;
      for (let kill = 0; kill < 5; kill++) {
        await sleep(400 + kill * 150);
        await chain.kill();
        await chain.start();
      }
      stop = true;
      await Promise.all(funding);
      const faucetHashes = await Promise.all(faucet);

      // Everything queued ends: every send of the chain confirmed, none left queued or pending.
      const open = async () =>
        (await pool.query(`select count(*)::int as n from chain.chain_sends where chain = 'test-base' and status in ('queued', 'pending')`)).rows[0]
          .n as number;
      await eventually(open, (n) => n === 0, 60_000, 250);
      const { rows: failed } = await pool.query(
        `select idempotency_key, error from chain.chain_sends where chain = 'test-base' and status = 'failed' and created_at >= $1`,
        [since],
      );
      expect(failed).toEqual([]);

      // On chain exactly once: each sender's nonces are the queue's, with no gap and no transaction it did not record.
      const { rows: senders } = await pool.query<{ address: Address; next_nonce: string }>(
        `select address, next_nonce from chain.chain_senders where chain = 'test-base'`,
      );
      for (const sender of senders) {
        expect({ sender: sender.address, nonce: await client.getTransactionCount({ address: sender.address, blockTag: 'latest' }) }).toEqual({
          sender: sender.address,
          nonce: Number(sender.next_nonce),
        });
      }
      const { rows: hashes } = await pool.query<{ tx_hash: `0x${string}` }>(
        `select tx_hash from chain.chain_sends where chain = 'test-base' and created_at >= $1`,
        [since],
      );
      for (const { tx_hash } of hashes) expect((await client.getTransactionReceipt({ hash: tx_hash })).status).toBe('success');

      // The faucet's transfers to outsiders: each once, whatever the retries.
      expect(new Set(faucetHashes).size).toBe(outsiders.length);
      for (const [i, address] of outsiders.entries()) {
        expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] })).toBe(parseUnits(`${i + 10}`, 6));
      }

      // Each wallet is credited exactly what was minted to its address, once per deposit.
      const minted = await client.getLogs({ address: usdc, event: TRANSFER, args: { to: wallets.map((wallet) => wallet.address) }, fromBlock });
      for (const wallet of wallets) {
        const onChain = minted.filter((log) => getAddress(log.args.to!) === getAddress(wallet.address)).reduce((sum, log) => sum + log.args.value!, 0n);
        expect(onChain).toBeGreaterThan(0n);
        const credited = await eventually(
          async () =>
            (await api.get(`/wallets/${wallet.walletId}`)).body.data.balances.find((balance: any) => balance.tokenSymbol === 'USDC').available as string,
          (available) => parseUnits(available, 6) === onChain,
          30_000,
        );
        expect(parseUnits(credited, 6)).toBe(onChain);
      }

      // And the books of the chain equal the chain, to the base unit, gas of every sweep included.
      const check = await ledgerCheck(30_000);
      expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
      expect(check.ok).toBe(true);
    } finally {
      await pool.end();
      await stopAll(services.values());
    }
  }, 240_000);
});
