import { Client } from 'pg';
import { createPublicClient, http, TransactionReceiptNotFoundError, type Hex } from 'viem';
import { Config } from '@ramp/config';
import { resolveChains } from '@ramp/evm';
import { AnvilNode, ApiClient, freePort, freshStack, runCompiled, startServices, stopAll, TEST_DATABASE_URL, type ServiceProcess } from '@ramp/testing';

/**
 * The platform on a second set of nodes through TEST_CHAINS alone, as an operator would point it at Base Sepolia: a stack
 * of its own (database, events namespace) whose chain service deploys on those nodes, runs their faucets and credits
 * deposits there, while the default nodes see nothing of it. base's first RPC node is down throughout: everything runs
 * on its second.
 */
describe('chain settings - the services on a second set of nodes, through settings alone', () => {
  const nodes = [new AnvilNode({ chainId: 84532 }), new AnvilNode({ chainId: 97 })];
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/ramp_second_chains_test';
  const databaseUrl = url.toString();
  const namespace = 'secondchains';
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;

  beforeAll(async () => {
    await Promise.all(nodes.map((node) => node.start()));
    await freshStack(databaseUrl, namespace);
    const env = {
      DATABASE_URL: databaseUrl,
      EVENTS_NAMESPACE: namespace,
      // The second nodes are local ones the platform deploys on (localPort); arbitrum is turned off.
      // base's first node is down for the whole suite: its second one is used (docs/chains.md, "RPC nodes").
      TEST_CHAINS: JSON.stringify({
        base: { rpcUrls: [`http://127.0.0.1:${await freePort()}`, nodes[0]!.rpcUrl], localPort: nodes[0]!.port },
        bsc: { rpcUrl: nodes[1]!.rpcUrl, localPort: nodes[1]!.port },
        arbitrum: null,
      }),
    };
    services = await startServices(['quote', 'ledger', 'gateway'], env);
    const key = await runCompiled('dist/apps/gateway/src/cli/keys.js', ['create', '--org', `Second chains ${Date.now()}`, '--env', 'test'], {
      DATABASE_URL: databaseUrl,
    });
    expect(key.code).toBe(0);
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, JSON.parse(key.stdout).apiKey);
  }, 90_000);

  afterAll(async () => {
    await stopAll(services?.values() ?? []);
    await Promise.all(nodes.map((node) => node.stop()));
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('drop database if exists ramp_second_chains_test with (force)');
    await admin.end();
  });

  it('lists the configured chains only as on chain, and funds a wallet with a transfer on the second node, not the default one', async () => {
    const chains = Object.fromEntries((await api.get('/transfer/chains')).body.data.map((chain: any) => [chain.chain, chain]));
    expect(chains.base).toMatchObject({ chainId: 84532, settlement: 'onchain' });
    expect(chains.bsc).toMatchObject({ chainId: 97, settlement: 'onchain' });
    expect(chains.arbitrum).toMatchObject({ chainId: 42161, settlement: 'simulated' });

    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    const funded = await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount: '7' });
    expect(funded.status).toBe(200);
    expect(funded.body.data.balances.find((balance: any) => balance.tokenSymbol === 'USDC').available).toBe('7');
    const hash = funded.body.data.transactionHash as Hex;
    const second = createPublicClient({ transport: http(nodes[0]!.rpcUrl) });
    expect((await second.getTransactionReceipt({ hash })).status).toBe('success');
    const defaultBase = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
    await expect(createPublicClient({ transport: http(defaultBase.rpcUrl) }).getTransactionReceipt({ hash })).rejects.toBeInstanceOf(
      TransactionReceiptNotFoundError,
    );
    // The node set aside is counted for operators (RampChainRpcNodeSetAside), by chain and state, never by its URL.
    const metrics = await (await fetch(`${services.get('chain')!.url}/metrics`)).text();
    const nodesIn = (chain: string, state: string) =>
      Number(new RegExp(`^ramp_chain_rpc_nodes\\{[^}]*chain="${chain}",state="${state}"[^}]*\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect([nodesIn('test-base', 'down'), nodesIn('test-base', 'healthy'), nodesIn('test-bsc', 'healthy'), nodesIn('test-bsc', 'down')]).toEqual([1, 1, 1, 0]);
    // Both chains taken up by the replica holding their locks: none refused (RampChainRefused).
    const refused = (chain: string) => Number(new RegExp(`^ramp_chain_refused\\{chain="${chain}"[^}]*\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect([refused('test-base'), refused('test-bsc')]).toEqual([0, 0]);
  }, 60_000);
});
