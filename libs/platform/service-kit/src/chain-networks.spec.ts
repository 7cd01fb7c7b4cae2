import { platformTenant, type ChainNetwork } from '@ramp/contracts';
import { ChainNetworksReader } from './chain-networks';

describe('ChainNetworksReader - the chain service networks, read once a minute, the last known kept through its outages', () => {
  afterEach(() => jest.useRealTimers());
  const network = (chain: string): ChainNetwork => ({
    chain,
    chainId: 1,
    confirmations: 1,
    hotWallet: '0x',
    contracts: { tokens: {}, wrappedNative: '0x', forwarderFactory: '0x' },
    faucet: false,
  });
  const tenant = platformTenant('test', 'spec');

  /** The chain service as the reader sees it: answers with `answers` in turn, an Error thrown. */
  const chainService = (answers: (ChainNetwork[] | Error)[]) => {
    const asked: unknown[] = [];
    return {
      asked,
      call: async (_contract: unknown, _tenant: unknown, request: unknown) => {
        asked.push(request);
        const answer = answers.shift()!;
        if (answer instanceof Error) throw answer;
        return { environment: 'test', networks: answer };
      },
    };
  };

  it('given callers within a minute, then one read for all of them', async () => {
    const rpc = chainService([[network('base')]]);
    const reader = new ChainNetworksReader(rpc as never);
    const read = await Promise.all([reader.networks(tenant), reader.networks(tenant)]);
    expect(read).toEqual([[network('base')], [network('base')]]);
    expect(rpc.asked).toEqual([{ environment: 'test' }]);
  });

  it('given the chain service down after a read, then the last known networks; given it down from the start, then the failure', async () => {
    jest.useFakeTimers({ now: 0 });
    const rpc = chainService([[network('base')], new Error('no responders'), [network('bsc')]]);
    const reader = new ChainNetworksReader(rpc as never);
    expect(await reader.networks(tenant)).toEqual([network('base')]);
    jest.setSystemTime(60_000);
    expect(await reader.networks(tenant)).toEqual([network('base')]);
    expect(await reader.networks(tenant)).toEqual([network('bsc')]);
    expect(rpc.asked).toHaveLength(3);

    const down = new ChainNetworksReader(chainService([new Error('no responders')]) as never);
    await expect(down.networks(tenant)).rejects.toThrow('no responders');
  });
});
