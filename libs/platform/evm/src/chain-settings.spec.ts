import { lanePath, LOCAL_TEST_CHAINS, resolveChains } from './chain-settings';
import { evmPath } from './custody';

describe('chain settings - per environment, local nodes by default, any RPC endpoint by configuration', () => {
  it("gives the local test chains with no configuration, each with its public test network's chain id", () => {
    expect(resolveChains('test', undefined, 'TEST_CHAINS').map((chain) => [chain.chain, chain.chainId, chain.rpcUrl, chain.localPort])).toEqual([
      ['base', 84532, 'http://127.0.0.1:8545', 8545],
      ['bsc', 97, 'http://127.0.0.1:8546', 8546],
      ['arbitrum', 421614, 'http://127.0.0.1:8547', 8547],
    ]);
    expect(resolveChains('live', undefined, 'LIVE_CHAINS')).toEqual([]);
  });

  it('points a test chain at another endpoint by URL alone: it is then not a local node', () => {
    const [base] = resolveChains('test', { base: { rpcUrl: 'https://sepolia.base.org', confirmations: 5 } }, 'TEST_CHAINS');
    const { bundlerUrl: _bundler, localBundlerPort: _localBundler, paymasterMinDeposit: _floor, ...local } = LOCAL_TEST_CHAINS[0]!;
    expect(base).toEqual({ ...local, rpcUrl: 'https://sepolia.base.org', rpcUrls: ['https://sepolia.base.org'], confirmations: 5, localPort: undefined });
    const [moved] = resolveChains('test', { base: { rpcUrl: 'http://127.0.0.1:9545', localPort: 9545 } }, 'TEST_CHAINS');
    expect(moved).toMatchObject({ rpcUrl: 'http://127.0.0.1:9545', localPort: 9545, chainId: 84532 });
    // Still a local node: its local bundler stays, started beside it.
    expect(moved).toMatchObject({ bundlerUrl: 'http://127.0.0.1:4337', localBundlerPort: 4337 });
  });

  it("gives base and bsc a local bundler beside their nodes, arbitrum none, and takes a provider's bundler for a public network", () => {
    const [base, bsc, arbitrum] = resolveChains('test', undefined, 'TEST_CHAINS');
    expect([base, bsc, arbitrum].map((chain) => [chain!.bundlerUrl, chain!.localBundlerPort])).toEqual([
      ['http://127.0.0.1:4337', 4337],
      ['http://127.0.0.1:4338', 4338],
      [undefined, undefined],
    ]);
    const [moved] = resolveChains(
      'test',
      { base: { rpcUrl: 'http://127.0.0.1:18545', localPort: 18545, bundlerUrl: 'http://127.0.0.1:14337', localBundlerPort: 14337 } },
      'TEST_CHAINS',
    );
    expect(moved).toMatchObject({ localPort: 18545, bundlerUrl: 'http://127.0.0.1:14337', localBundlerPort: 14337 });
    const [sepolia] = resolveChains(
      'test',
      { base: { rpcUrl: 'https://sepolia.base.org', bundlerUrl: 'https://bundler.example/base-sepolia' } },
      'TEST_CHAINS',
    );
    expect(sepolia).toMatchObject({ bundlerUrl: 'https://bundler.example/base-sepolia' });
    expect(sepolia!.localBundlerPort).toBeUndefined();
    expect(() => resolveChains('test', { base: { bundlerUrl: 'ftp://bundler' } }, 'TEST_CHAINS')).toThrow('TEST_CHAINS.base.bundlerUrl must be an http(s) URL');
    expect(base!.paymasterMinDeposit).toBe('1');
    const [off] = resolveChains('test', { base: { rpcUrl: 'http://anvil-base:8545', localPort: 8545, bundlerUrl: null } }, 'TEST_CHAINS');
    expect([off!.bundlerUrl, off!.localBundlerPort, off!.paymasterMinDeposit]).toEqual([undefined, undefined, undefined]);
    expect(() => resolveChains('test', { base: { bundlerUrl: 'http://127.0.0.1:4000', localBundlerPort: 4337 } }, 'TEST_CHAINS')).toThrow(
      'TEST_CHAINS.base.bundlerUrl must name the localBundlerPort (4337)',
    );
    for (const path of ["m/44'/60'/4337'/0/0", "m/44'/60'/4338'/0/0", "m/44'/60'/4339'/0/0"]) {
      expect(() => resolveChains('test', { base: { hotWalletPath: path } }, 'TEST_CHAINS')).toThrow("must not be under m/44'/60'/4337', 4338' or 4339'");
    }
    const live = { chainId: 8453, rpcUrl: 'https://mainnet.base.org', hotWalletPath: "m/44'/60'/1'/0/0", bundlerUrl: 'https://bundler.example/base' };
    expect(() => resolveChains('live', { base: live }, 'LIVE_CHAINS')).toThrow('LIVE_CHAINS.base.paymasterMinDeposit is required with a bundlerUrl');
    expect(resolveChains('live', { base: { ...live, paymasterMinDeposit: '0.05' } }, 'LIVE_CHAINS')[0]).toMatchObject({ paymasterMinDeposit: '0.05' });
    expect(() => resolveChains('live', { base: { ...live, paymasterMinDeposit: 0.05 } }, 'LIVE_CHAINS')).toThrow('must be a decimal string');
    expect(() => resolveChains('test', { arbitrum: { localBundlerPort: 4339 } }, 'TEST_CHAINS')).toThrow(
      'TEST_CHAINS.arbitrum.localBundlerPort needs a bundlerUrl',
    );
    expect(() =>
      resolveChains('test', { base: { rpcUrl: 'https://sepolia.base.org', bundlerUrl: 'http://127.0.0.1:4337', localBundlerPort: 4337 } }, 'TEST_CHAINS'),
    ).toThrow('TEST_CHAINS.base.localBundlerPort is for a local chain');
  });

  it('turns a chain off with null, and takes a new chain only with every field', () => {
    expect(resolveChains('test', { bsc: null, arbitrum: null }, 'TEST_CHAINS').map((chain) => chain.chain)).toEqual(['base']);
    expect(
      resolveChains(
        'live',
        { base: { chainId: 8453, rpcUrl: 'https://mainnet.base.org', confirmations: 10, hotWalletPath: "m/44'/60'/1'/0/0" } },
        'LIVE_CHAINS',
      ),
    ).toEqual([
      {
        chain: 'base',
        chainId: 8453,
        rpcUrl: 'https://mainnet.base.org',
        rpcUrls: ['https://mainnet.base.org'],
        confirmations: 10,
        finality: 'finalized',
        hotWalletPath: "m/44'/60'/1'/0/0",
        lanes: 1,
        laneGas: '0',
      },
    ]);
    expect(() => resolveChains('live', { base: { rpcUrl: 'https://mainnet.base.org' } }, 'LIVE_CHAINS')).toThrow(
      'LIVE_CHAINS.base.chainId must be a whole number',
    );
  });

  it('takes several nodes in order of preference (rpcUrls), the first as rpcUrl; a list replaces the default node whole', () => {
    const live = { chainId: 8453, hotWalletPath: "m/44'/60'/1'/0/0" };
    const urls = ['https://mainnet.base.org', 'https://base.provider.example/key'];
    expect(resolveChains('live', { base: { ...live, rpcUrls: urls } }, 'LIVE_CHAINS')[0]).toMatchObject({ rpcUrl: urls[0], rpcUrls: urls });
    expect(resolveChains('live', { base: { ...live, rpcUrl: urls[0], rpcUrls: urls } }, 'LIVE_CHAINS')[0]).toMatchObject({ rpcUrls: urls });
    const [test] = resolveChains('test', { base: { rpcUrls: ['http://127.0.0.1:9545', 'http://127.0.0.1:9546'] } }, 'TEST_CHAINS');
    expect(test).toMatchObject({ rpcUrl: 'http://127.0.0.1:9545', rpcUrls: ['http://127.0.0.1:9545', 'http://127.0.0.1:9546'] });
    // Not the local node any more.
    expect(test!.localPort).toBeUndefined();
    expect(resolveChains('test', undefined, 'TEST_CHAINS')[0]).toMatchObject({ rpcUrl: 'http://127.0.0.1:8545', rpcUrls: ['http://127.0.0.1:8545'] });
    expect(() => resolveChains('live', { base: { ...live, rpcUrl: urls[1], rpcUrls: urls } }, 'LIVE_CHAINS')).toThrow(
      'LIVE_CHAINS.base.rpcUrl, given with rpcUrls, must be its first',
    );
    expect(() => resolveChains('live', { base: { ...live, rpcUrls: [] } }, 'LIVE_CHAINS')).toThrow('LIVE_CHAINS.base.rpcUrls must be a list of 1 to 8 URLs');
    expect(() => resolveChains('live', { base: { ...live, rpcUrls: [urls[0], urls[0]] } }, 'LIVE_CHAINS')).toThrow('lists a URL twice');
    expect(() => resolveChains('live', { base: { ...live, rpcUrls: [urls[0], 'base.example'] } }, 'LIVE_CHAINS')).toThrow(
      'LIVE_CHAINS.base.rpcUrls[1] must be an http(s) or ws(s) URL',
    );
  });

  it('names the variable, the chain and the field of a malformed value', () => {
    expect(() => resolveChains('test', { base: { rpcUrl: 'localhost:8545' } }, 'TEST_CHAINS')).toThrow(
      'TEST_CHAINS.base.rpcUrl must be an http(s) or ws(s) URL',
    );
    expect(() => resolveChains('test', { base: { confirmations: 0 } }, 'TEST_CHAINS')).toThrow(
      'TEST_CHAINS.base.confirmations must be a whole number from 1 to 1000, got 0',
    );
    expect(() => resolveChains('test', { base: { hotWalletPath: 'm/0' } }, 'TEST_CHAINS')).toThrow(
      'TEST_CHAINS.base.hotWalletPath: not a BIP-44 EVM derivation path',
    );
    expect(() => resolveChains('test', { base: 'http://x' as never }, 'TEST_CHAINS')).toThrow('TEST_CHAINS.base must be an object or null');
    expect(() => resolveChains('test', { bsc: { chainId: 84532 } }, 'TEST_CHAINS')).toThrow('TEST_CHAINS: chain id 84532 is given to two chains');
  });

  it("a live chain counts at the chain's finality by default, and never at its first block", () => {
    const live = { chainId: 8453, rpcUrl: 'https://mainnet.base.org', hotWalletPath: "m/44'/60'/1'/0/0" };
    expect(resolveChains('live', { base: live }, 'LIVE_CHAINS')[0]).toMatchObject({ confirmations: 1, finality: 'finalized' });
    expect(resolveChains('live', { base: { ...live, finality: 'safe' } }, 'LIVE_CHAINS')[0]).toMatchObject({ finality: 'safe' });
    expect(resolveChains('live', { base: { ...live, finality: 'depth', confirmations: 20 } }, 'LIVE_CHAINS')[0]).toMatchObject({
      finality: 'depth',
      confirmations: 20,
    });
    expect(() => resolveChains('live', { base: { ...live, finality: 'depth', confirmations: 1 } }, 'LIVE_CHAINS')).toThrow(
      'LIVE_CHAINS.base.confirmations must be at least 12 for a live chain counting by depth alone',
    );
    expect(() => resolveChains('live', { base: { ...live, finality: 'depth' } }, 'LIVE_CHAINS')).toThrow(
      'LIVE_CHAINS.base.confirmations must be a whole number',
    );
    expect(() => resolveChains('live', { base: { ...live, finality: 'latest' } }, 'LIVE_CHAINS')).toThrow(
      'LIVE_CHAINS.base.finality must be one of depth, safe, finalized',
    );
    // Test chains count by depth: a local node mines a block per transaction.
    expect(resolveChains('test', undefined, 'TEST_CHAINS').map((chain) => chain.finality)).toEqual(['depth', 'depth', 'depth']);
  });

  it('gives a chain its send lanes: 4 on a local chain, the hot wallet alone on a live one unless told, with the gas they are kept at', () => {
    expect(resolveChains('test', undefined, 'TEST_CHAINS').map((chain) => [chain.lanes, chain.laneGas])).toEqual([
      [4, '1'],
      [4, '1'],
      [4, '1'],
    ]);
    const live = { chainId: 8453, rpcUrl: 'https://mainnet.base.org', hotWalletPath: "m/44'/60'/1'/0/0" };
    expect(resolveChains('live', { base: live }, 'LIVE_CHAINS')[0]).toMatchObject({ lanes: 1 });
    expect(resolveChains('live', { base: { ...live, lanes: 8, laneGas: '0.02' } }, 'LIVE_CHAINS')[0]).toMatchObject({ lanes: 8, laneGas: '0.02' });
    // A live coin is worth something: how much each lane holds is never a default.
    expect(() => resolveChains('live', { base: { ...live, lanes: 4 } }, 'LIVE_CHAINS')).toThrow('LIVE_CHAINS.base.laneGas is required with more than one lane');
    expect(() => resolveChains('live', { base: { ...live, lanes: 4, laneGas: '0' } }, 'LIVE_CHAINS')).toThrow(
      'LIVE_CHAINS.base.laneGas must be a decimal string above 0',
    );
    expect(() => resolveChains('live', { base: { ...live, lanes: 4, laneGas: 0.01 } }, 'LIVE_CHAINS')).toThrow('laneGas must be a decimal string');
    expect(() => resolveChains('test', { base: { lanes: 17 } }, 'TEST_CHAINS')).toThrow('TEST_CHAINS.base.lanes must be a whole number from 1 to 16, got 17');
    expect(() => resolveChains('test', { base: { lanes: 0 } }, 'TEST_CHAINS')).toThrow('TEST_CHAINS.base.lanes must be a whole number from 1 to 16, got 0');
  });

  it("derives each lane's key at the next indexes of the hot wallet's path, hardened or not", () => {
    expect([0, 1, 3].map((lane) => lanePath(evmPath("m/44'/60'/1'/0/0"), lane))).toEqual(["m/44'/60'/1'/0/0", "m/44'/60'/1'/0/1", "m/44'/60'/1'/0/3"]);
    expect(lanePath(evmPath("m/44'/60'/2'/0/5'"), 2)).toBe("m/44'/60'/2'/0/7'");
  });
});
