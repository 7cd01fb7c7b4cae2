import { createPublicClient, type PublicClient } from 'viem';
import { AnvilNode, freePort } from '@ramp/testing';
import { RpcNodes, type RpcNodeStatus } from './rpc-failover';

/**
 * A chain's RPC nodes with failover, on real anvil nodes: one down, one on another chain, one behind, and the ones to
 * use; a node that stops is passed over at the next request; one behind is never the chain, even once the node ahead is
 * gone.
 */
describe("RpcNodes - failover between a chain's nodes", () => {
  const CHAIN_ID = 8453;
  const ahead = new AnvilNode({ chainId: CHAIN_ID });
  const second = new AnvilNode({ chainId: CHAIN_ID });
  const behind = new AnvilNode({ chainId: CHAIN_ID });
  const otherChain = new AnvilNode({ chainId: 56 });
  let nothing: string;

  const mine = (node: AnvilNode, blocks: number) => node.rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
  const states = (statuses: RpcNodeStatus[]) => statuses.map((status) => status.state);
  const clientOf = (nodes: RpcNodes) => createPublicClient({ transport: nodes.transport() }) as PublicClient;

  beforeAll(async () => {
    await Promise.all([ahead.start(), second.start(), behind.start(), otherChain.start()]);
    await mine(ahead, 50);
    await mine(second, 48);
    await mine(otherChain, 80);
    nothing = `http://127.0.0.1:${await freePort()}`;
  }, 60_000);

  afterAll(() => Promise.all([ahead.stop(), second.stop(), behind.stop(), otherChain.stop()]));

  it('uses the first node that answers, on the chain, within the lag: never one down, on another chain, or behind', async () => {
    const changes: string[] = [];
    const nodes = new RpcNodes([nothing, otherChain.rpcUrl, behind.rpcUrl, ahead.rpcUrl], {
      chainId: CHAIN_ID,
      onChange: (status, previous) => changes.push(`${status.index}:${previous}->${status.state}`),
    });
    // The first request waits for the first look.
    expect(await clientOf(nodes).getBlockNumber({ cacheTime: 0 })).toBe(50n);
    const statuses = nodes.statuses();
    expect(states(statuses)).toEqual(['down', 'wrong-chain', 'behind', 'healthy']);
    expect(statuses[1]!.reason).toBe('answers chain id 56, not 8453');
    expect(statuses[2]!.reason).toBe('50 blocks behind the newest block a node has shown');
    // Told once per change; a URL (which may hold a provider's key) is never in a status.
    expect(changes).toEqual(['0:unchecked->down', '1:unchecked->wrong-chain', '2:unchecked->behind', '3:unchecked->healthy']);
    expect(JSON.stringify(statuses, (_, value) => (typeof value === 'bigint' ? value.toString() : value))).not.toContain('127.0.0.1');
    expect(nodes.describe()).not.toContain('127.0.0.1');
  });

  it("passes a request over to the next node when one stops, and takes the first back once it answers again; a revert is the chain's answer, not a node's failure", async () => {
    const nodes = new RpcNodes([ahead.rpcUrl, second.rpcUrl], { chainId: CHAIN_ID, timeoutMs: 2_000 });
    const client = clientOf(nodes);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(50n);
    // A call that reverts (code 3, "execution reverted") is the chain's answer: thrown as it is, and the node stays in.
    await expect(client.call({ data: '0x60006000fd' })).rejects.toThrow(/execution reverted/);
    expect(states(nodes.statuses())).toEqual(['healthy', 'healthy']);

    const port = ahead.port;
    await ahead.stop();
    // Within the lag (2 blocks): the second node answers this very request.
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(48n);
    expect(states(nodes.statuses())).toEqual(['down', 'healthy']);

    ahead.port = port;
    await ahead.start();
    // A restarted anvil is a new chain at block 0: far behind what was shown, it stays out until it catches up.
    expect(states(await nodes.check())).toEqual(['behind', 'healthy']);
    await mine(ahead, 55);
    expect(states(await nodes.check())).toEqual(['healthy', 'healthy']);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(55n);
  });

  it('asks the logs of a range only of a node known to have its last block (another answers a range past its head with what it has)', async () => {
    const nodes = new RpcNodes([ahead.rpcUrl, second.rpcUrl], { chainId: CHAIN_ID, timeoutMs: 2_000 });
    const client = clientOf(nodes);
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const [aheadHead, secondHead] = nodes.statuses().map((status) => status.head!);
    expect(aheadHead).toBe(head);
    expect(secondHead).toBeLessThan(head);
    const port = ahead.port;
    await ahead.stop();
    try {
      expect(states(await nodes.check())).toEqual(['down', 'healthy']);
      // The second node has not the last block: refused, not answered short.
      await expect(client.getLogs({ fromBlock: 0n, toBlock: head })).rejects.toThrow(`no healthy RPC node known to have block ${head}`);
      // Up to its own head, it answers.
      await expect(client.getLogs({ fromBlock: 0n, toBlock: secondHead })).resolves.toEqual([]);
    } finally {
      ahead.port = port;
      await ahead.start();
      await mine(ahead, Number(head));
    }
  });

  it('never makes a node behind the chain when the nodes ahead are gone: requests fail until it catches up', async () => {
    const nodes = new RpcNodes([second.rpcUrl, behind.rpcUrl], { chainId: CHAIN_ID, timeoutMs: 2_000 });
    const client = clientOf(nodes);
    const shown = await client.getBlockNumber({ cacheTime: 0 });
    expect(states(nodes.statuses())).toEqual(['healthy', 'behind']);
    const port = second.port;
    await second.stop();
    expect(states(await nodes.check())).toEqual(['down', 'behind']);
    await expect(client.getBlockNumber({ cacheTime: 0 })).rejects.toThrow(/no healthy RPC node \(node 0: down .*; node 1: behind/);
    // Caught up to within the lag of the newest block shown: used again.
    await mine(behind, Number(shown));
    expect(states(await nodes.check())).toEqual(['down', 'healthy']);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(shown);
    second.port = port;
    await second.start();
  });

  it("uses a chain's only node whatever its head does (a local chain reset under it): there is no other to prefer", async () => {
    const only = new AnvilNode({ chainId: CHAIN_ID });
    await only.start();
    try {
      await mine(only, 30);
      const nodes = new RpcNodes([only.rpcUrl], { chainId: CHAIN_ID });
      expect(await clientOf(nodes).getBlockNumber({ cacheTime: 0 })).toBe(30n);
      await only.rpc('anvil_reset');
      expect(states(await nodes.check())).toEqual(['healthy']);
      expect(await clientOf(nodes).getBlockNumber({ cacheTime: 0 })).toBe(0n);
    } finally {
      await only.stop();
    }
  });

  it('refuses no list but an empty one', () => {
    expect(() => new RpcNodes([], { chainId: CHAIN_ID })).toThrow('a chain needs at least one RPC URL');
  });
});
