import { transactionOfSendKey } from './chain-wakes';

describe('transactionOfSendKey', () => {
  const id = 'txn_01JBZ7Q3V6M8R2XK4T9PWE5HCD';

  it("reads the transaction from each kind of a leg's send key", () => {
    expect(transactionOfSendKey(`transfer:${id}:settle`)).toBe(id);
    expect(transactionOfSendKey(`swap:${id}:leg:0`)).toBe(id);
    expect(transactionOfSendKey(`bridge:${id}:reverse:1:fill`)).toBe(id);
    expect(transactionOfSendKey(`transfer:${id}`)).toBe(id);
  });

  it("finds none in the platform's own sends, nor in a malformed id", () => {
    expect(transactionOfSendKey('sweep:test:base:0x00000000000000000000000000000000000000aa:0')).toBeUndefined();
    expect(transactionOfSendKey('transfer:txn_01JBZ7Q3V6M8R2XK4T9PWE5HC:settle')).toBeUndefined();
    expect(transactionOfSendKey(`transfer:x${id}:settle`)).toBeUndefined();
    expect(transactionOfSendKey('topup:test:bsc:7')).toBeUndefined();
  });
});
