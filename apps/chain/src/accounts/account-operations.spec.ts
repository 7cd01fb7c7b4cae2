import { callsRevert } from './account-operations';

describe('account operations - which refusals of a preparation are final', () => {
  it("fails an operation whose own calls revert in the bundler's simulation, with the decoded reason", () => {
    const insufficient =
      'Execution reverted with reason: UserOperation reverted during simulation with reason: 0xe450d38c000000000000000000000000d0a36dfbe77a9194f3a2c9f8abae1333e767b5e400000000000000000000000000000000000000000000000000000000005b8d800000000000000000000000000000000000000000000000000000000005f5e100.\n\nRequest Arguments:\n  paymaster: 0x1234';
    expect(callsRevert(new Error(insufficient))).toBe('ERC20InsufficientBalance(0xD0A36DFbe77a9194F3A2C9f8aBaE1333E767b5e4, 6000000, 100000000)');
    expect(callsRevert(new Error('execution reverted: EXPIRED'))).toBe('execution reverted: EXPIRED');
  });

  it("tries again what is not the calls' fault: the paymaster's part (AA3x), a bundler or node out of reach", () => {
    expect(callsRevert(new Error('UserOperation reverted during simulation with reason: AA31 paymaster deposit too low'))).toBeUndefined();
    expect(callsRevert(new Error('HTTP request failed.\n\nURL: http://127.0.0.1:14337'))).toBeUndefined();
    expect(callsRevert(new Error('The request took too long to respond.'))).toBeUndefined();
    // "paymaster" further down viem's message (the operation's fields) is not the reason.
    expect(callsRevert(new Error('Execution reverted with reason: execution reverted\n\npaymaster: 0x1234'))).toBe(
      'Execution reverted with reason: execution reverted',
    );
  });
});
