import type { Address } from 'viem';
import { AppError, type ChainNetwork } from '@ramp/contracts';
import { NATIVE_TOKEN } from '@ramp/evm';
import { bridgedTokenOn, intentPoolOf } from './relay-chain';

const pool = '0x00000000000000000000000000000000000000aa' as Address;
const usdc = { symbol: 'USDC', decimals: 6, address: '0x00000000000000000000000000000000000000bb' as Address };
const eth = { symbol: 'ETH', decimals: 18, address: NATIVE_TOKEN };
const network = (bridge?: { name: string; pool: string }): ChainNetwork => ({
  chain: 'base',
  chainId: 84532,
  confirmations: 1,
  hotWallet: '0x00000000000000000000000000000000000000cc',
  contracts: {
    tokens: { USDC: usdc.address },
    wrappedNative: '0x00000000000000000000000000000000000000dd',
    forwarderFactory: '0x00000000000000000000000000000000000000ee',
    ...(bridge && { bridge }),
  },
  faucet: bridge !== undefined,
});
const chain = (bridge?: { name: string; pool: string }) => ({
  chain: 'base',
  environment: 'test' as const,
  network: network(bridge),
  token: (symbol: string) => [usdc, eth].find((token) => token.symbol === symbol),
});

function refusal(run: () => unknown): Pick<AppError, 'reason' | 'field'> {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { reason: error.reason, field: error.field };
    throw error;
  }
  throw new Error('not refused');
}

describe('bridge - what the intent bridge takes on a chain', () => {
  it("bridges through the chain's intent pool; a chain without one is refused, naming the field", () => {
    expect(intentPoolOf(chain({ name: 'Ramp Intents', pool }), 'fromChain')).toBe(pool);
    expect(refusal(() => intentPoolOf(chain(), 'toChain'))).toEqual({ reason: 'UNSUPPORTED_CHAIN', field: 'toChain' });
  });

  it('carries token contracts of the chain, never its native coin nor a token it does not have', () => {
    expect(bridgedTokenOn(chain(), 'USDC', 'token')).toBe(usdc);
    expect(refusal(() => bridgedTokenOn(chain(), 'ETH', 'token'))).toEqual({ reason: 'UNSUPPORTED_TOKEN', field: 'token' });
    expect(refusal(() => bridgedTokenOn(chain(), 'CNGN', 'token'))).toEqual({ reason: 'UNSUPPORTED_TOKEN', field: 'token' });
  });
});
