import { decodeFunctionData, type Address } from 'viem';
import { NATIVE_TOKEN, TestToken } from '@ramp/evm';
import { faucetCall } from './faucet';

const to = '0x1111111111111111111111111111111111111111' as Address;

describe('faucet - what it sends', () => {
  it('mints a test token to the address, on the token contract', () => {
    const usdc = { symbol: 'USDC', decimals: 6, address: '0x2222222222222222222222222222222222222222' as Address };
    const call = faucetCall(usdc, to, 5_000_000n);
    expect(call.to).toBe(usdc.address);
    expect(call.value).toBeUndefined();
    expect(decodeFunctionData({ abi: TestToken.abi, data: call.data! })).toEqual({ functionName: 'mint', args: [to, 5_000_000n] });
  });

  it('sends the native coin as the value of a plain transfer to the address', () => {
    const eth = { symbol: 'ETH', decimals: 18, address: NATIVE_TOKEN };
    expect(faucetCall(eth, to, 10n ** 18n)).toEqual({ to, value: 10n ** 18n });
  });
});
