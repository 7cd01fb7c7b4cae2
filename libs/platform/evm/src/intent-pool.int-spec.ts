import {
  createPublicClient,
  createWalletClient,
  http,
  maxUint256,
  parseEventLogs,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_MNEMONIC, AnvilNode } from '@ramp/testing';
import { IntentPool, TestToken } from './artifacts.generated';
import { revertReasonOf } from './revert-reason';

/**
 * The platform's intent bridge (IntentPool.sol) on two real anvil nodes, a source and a destination chain: a deposit
 * locks the input, the relayer fills the recipient on the destination once and before the deadline, and takes the
 * deposit back as its repayment; unfilled past its deadline, the deposit goes back to the depositor.
 */
describe('IntentPool - deposits, fills, repayments and deadline refunds across two anvil nodes', () => {
  const source = new AnvilNode({ chainId: 84532 });
  const destination = new AnvilNode({ chainId: 97 });
  const relayer = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 });
  const depositor = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
  const outsider = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 2 });
  const UNITS = 10n ** 6n;

  interface Side {
    node: AnvilNode;
    client: PublicClient;
    pool: Address;
    usdc: Address;
  }
  let from: Side;
  let to: Side;

  const walletOn = (side: Side, account: typeof relayer | PrivateKeyAccount) => createWalletClient({ account, transport: http(side.node.rpcUrl) });
  const mined = async (side: Side, hash: Hex) => {
    const receipt = await side.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const deploy = async (node: AnvilNode): Promise<Side> => {
    await node.start();
    const client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
    const wallet = createWalletClient({ account: relayer, transport: http(node.rpcUrl) });
    const addressOf = async (hash: Hex) => (await client.waitForTransactionReceipt({ hash })).contractAddress!;
    // The relayer mints (the test tokens' minter) and holds what it fills with.
    const usdc = await addressOf(
      await wallet.deployContract({
        chain: null,
        abi: TestToken.abi,
        bytecode: TestToken.bytecode,
        args: ['USD Coin', 'USDC', 6, relayer.address, relayer.address, 1_000_000n * UNITS],
      }),
    );
    const pool = await addressOf(await wallet.deployContract({ chain: null, abi: IntentPool.abi, bytecode: IntentPool.bytecode, args: [relayer.address] }));
    const side = { node, client, pool, usdc };
    await mined(side, await wallet.writeContract({ chain: null, address: usdc, abi: TestToken.abi, functionName: 'approve', args: [pool, maxUint256] }));
    return side;
  };
  const balanceOf = (side: Side, holder: Address) =>
    side.client.readContract({ address: side.usdc, abi: TestToken.abi, functionName: 'balanceOf', args: [holder] });
  const now = async (side: Side) => (await side.client.getBlock()).timestamp;

  /** The depositor locks `amount` on the source chain for `recipient` on the destination, `seconds` to fill it. */
  const depositFor = async (recipient: Address, amount: bigint, seconds: bigint) => {
    const wallet = walletOn(from, depositor);
    await mined(
      from,
      await walletOn(from, relayer).writeContract({
        chain: null,
        address: from.usdc,
        abi: TestToken.abi,
        functionName: 'mint',
        args: [depositor.address, amount],
      }),
    );
    await mined(from, await wallet.writeContract({ chain: null, address: from.usdc, abi: TestToken.abi, functionName: 'approve', args: [from.pool, amount] }));
    const fillDeadline = Number((await now(from)) + seconds);
    const receipt = await mined(
      from,
      await wallet.writeContract({
        chain: null,
        address: from.pool,
        abi: IntentPool.abi,
        functionName: 'deposit',
        args: [from.usdc, amount, 97n, to.usdc, amount - UNITS, recipient, fillDeadline],
      }),
    );
    const [deposited] = parseEventLogs({ abi: IntentPool.abi, eventName: 'Deposited', logs: receipt.logs });
    return { ...deposited!.args, fillDeadline };
  };
  const fill = (deposit: Awaited<ReturnType<typeof depositFor>>, account: typeof relayer = relayer) =>
    walletOn(to, account).writeContract({
      chain: null,
      address: to.pool,
      abi: IntentPool.abi,
      functionName: 'fill',
      args: [84532n, deposit.depositId, deposit.outputToken, deposit.outputAmount, deposit.recipient, deposit.fillDeadline],
    });
  const refused = async (side: Side, account: typeof relayer, functionName: 'settle' | 'refund', depositId: bigint) =>
    revertReasonOf(
      await side.client
        .simulateContract({ account, address: side.pool, abi: IntentPool.abi, functionName, args: [depositId] })
        .catch((error: unknown) => error),
    );

  beforeAll(async () => {
    [from, to] = await Promise.all([deploy(source), deploy(destination)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([source.stop(), destination.stop()]);
  });

  it('a deposit locks its input on the source; the relayer fills the recipient on the destination once, then takes the deposit as its repayment', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const deposit = await depositFor(recipient, 100n * UNITS, 600n);
    expect(deposit).toMatchObject({
      depositId: 0n,
      depositor: depositor.address,
      inputAmount: 100n * UNITS,
      destinationChainId: 97n,
      outputAmount: 99n * UNITS,
      recipient,
    });
    expect(await balanceOf(from, from.pool)).toBe(100n * UNITS);

    // Filled on the destination chain, from the relayer's own funds: its hash is on that chain.
    const relayerBefore = await balanceOf(to, relayer.address);
    const receipt = await mined(to, await fill(deposit));
    const [filled] = parseEventLogs({ abi: IntentPool.abi, eventName: 'Filled', logs: receipt.logs });
    expect(filled!.args).toMatchObject({ originChainId: 84532n, depositId: 0n, outputAmount: 99n * UNITS, recipient });
    expect(await balanceOf(to, recipient)).toBe(99n * UNITS);
    expect(relayerBefore - (await balanceOf(to, relayer.address))).toBe(99n * UNITS);
    // Once: a second fill of the same deposit reverts, and nobody but the relayer fills.
    expect(revertReasonOf(await fill(deposit).catch((error: unknown) => error))).toBe('AlreadyFilled(84532, 0)');
    expect(revertReasonOf(await fill({ ...deposit, depositId: 7n }, outsider).catch((error: unknown) => error))).toBe(`NotRelayer(${outsider.address})`);

    // Repaid on the source chain: the deposit to the relayer, once; a refund of it is refused from then on.
    const repaidBefore = await balanceOf(from, relayer.address);
    expect(await refused(from, outsider, 'settle', 0n)).toBe(`NotRelayer(${outsider.address})`);
    await mined(
      from,
      await walletOn(from, relayer).writeContract({ chain: null, address: from.pool, abi: IntentPool.abi, functionName: 'settle', args: [0n] }),
    );
    expect((await balanceOf(from, relayer.address)) - repaidBefore).toBe(100n * UNITS);
    expect(await balanceOf(from, from.pool)).toBe(0n);
    expect(await refused(from, relayer, 'settle', 0n)).toBe('NotOpen(0)');
    expect(await refused(from, relayer, 'refund', 0n)).toBe('NotOpen(0)');
  });

  it('unfilled past its deadline: no fill any more, and the deposit goes back to its depositor, once', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const deposit = await depositFor(recipient, 40n * UNITS, 60n);
    // Too early to refund: the relayer may still fill.
    expect(await refused(from, relayer, 'refund', deposit.depositId)).toBe(`FillDeadlineNotPassed(${deposit.fillDeadline})`);
    for (const side of [from, to]) {
      await side.node.rpc('evm_increaseTime', [120]);
      await side.node.rpc('evm_mine', []);
    }
    expect(revertReasonOf(await fill(deposit).catch((error: unknown) => error))).toBe(`FillDeadlinePassed(${deposit.fillDeadline})`);
    expect(await balanceOf(to, recipient)).toBe(0n);

    const before = await balanceOf(from, depositor.address);
    expect(await refused(from, outsider, 'refund', deposit.depositId)).toBe(`NotRelayer(${outsider.address})`);
    const receipt = await mined(
      from,
      await walletOn(from, relayer).writeContract({ chain: null, address: from.pool, abi: IntentPool.abi, functionName: 'refund', args: [deposit.depositId] }),
    );
    const [refunded] = parseEventLogs({ abi: IntentPool.abi, eventName: 'Refunded', logs: receipt.logs });
    expect(refunded!.args).toMatchObject({ depositId: deposit.depositId, depositor: depositor.address, amount: 40n * UNITS });
    expect((await balanceOf(from, depositor.address)) - before).toBe(40n * UNITS);
    expect(await refused(from, relayer, 'refund', deposit.depositId)).toBe(`NotOpen(${deposit.depositId})`);
    expect(await refused(from, relayer, 'settle', deposit.depositId)).toBe(`NotOpen(${deposit.depositId})`);
  });

  it('refuses a deposit that asks nothing, pays nobody or is already late', async () => {
    const wallet = walletOn(from, depositor);
    const deadline = Number((await now(from)) + 600n);
    const attempt = (amount: bigint, recipient: Address, fillDeadline: number) =>
      from.client
        .simulateContract({
          account: depositor,
          address: from.pool,
          abi: IntentPool.abi,
          functionName: 'deposit',
          args: [from.usdc, amount, 97n, to.usdc, amount, recipient, fillDeadline],
        })
        .catch((error: unknown) => error);
    expect(wallet.account.address).toBe(depositor.address);
    expect(revertReasonOf(await attempt(0n, outsider.address, deadline))).toBe('InvalidDeposit()');
    expect(revertReasonOf(await attempt(UNITS, '0x0000000000000000000000000000000000000000', deadline))).toBe('InvalidDeposit()');
    expect(revertReasonOf(await attempt(UNITS, outsider.address, Number(await now(from)) - 1))).toBe('InvalidDeposit()');
  });
});
