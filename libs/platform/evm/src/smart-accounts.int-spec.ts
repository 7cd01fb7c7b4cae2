import {
  concat,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  pad,
  parseEventLogs,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { entryPoint07Abi, type UserOperation } from 'viem/account-abstraction';
import { mnemonicToAccount } from 'viem/accounts';
import { ANVIL_MNEMONIC, AnvilNode, freePort } from '@ramp/testing';
import { AltoBundler } from './local-bundler';
import { SimpleAccountFactory, TestToken, VerifyingPaymaster } from './artifacts.generated';
import { DEVELOPMENT_MNEMONIC, HdCustody, accountOwnerPath, evmPath } from './custody';
import {
  UserOperations,
  accountSalt,
  deploySmartAccountContracts,
  operationNonce,
  simpleAccount,
  sponsorship,
  sponsorshipHash,
  type LandedOperation,
  type SmartAccountContracts,
} from './smart-accounts';

/**
 * Managed wallets' smart accounts on two real anvil nodes (base's and bsc's test chain ids), each with a real ERC-4337
 * bundler (@pimlico/alto) beside it: eth-infinitism's EntryPoint v0.7, SimpleAccount and VerifyingPaymaster from their
 * published artifacts, every operation a sponsored UserOperation through the bundler's standard JSON-RPC.
 */
describe('smart accounts - sponsored UserOperations through a real bundler on two anvil nodes', () => {
  const custody = HdCustody.development();
  const paymasterOwner = mnemonicToAccount(DEVELOPMENT_MNEMONIC, { path: "m/44'/60'/4338'/0/0" });
  const paymasterSigner = custody.signer(evmPath("m/44'/60'/4338'/0/1"));
  const deployer = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
  const recipient = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 2 }).address;
  const treasury = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 3 }).address;
  const UNITS = 10n ** 6n;

  interface Side {
    node: AnvilNode;
    bundler: AltoBundler;
    client: PublicClient;
    chainId: number;
    contracts: SmartAccountContracts;
    usdc: Address;
    operations: UserOperations;
  }
  const sides: Side[] = [];
  let base: Side;
  let bsc: Side;

  const mined = async (side: Side, hash: Hex) => {
    const receipt = await side.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const setUp = async (chainId: number): Promise<Side> => {
    const node = await new AnvilNode({ chainId }).start();
    const chain = defineChain({
      id: chainId,
      name: `local ${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.rpcUrl] } },
    });
    const client = createPublicClient({ chain, transport: http(node.rpcUrl) }) as PublicClient;
    const wallet = (account: typeof deployer) => createWalletClient({ account, chain, transport: http(node.rpcUrl) });
    const contracts = await deploySmartAccountContracts(client, wallet(deployer), wallet(paymasterOwner), paymasterSigner.address, 10n ** 18n);
    const usdc = (
      await client.waitForTransactionReceipt({
        hash: await wallet(deployer).deployContract({
          abi: TestToken.abi,
          bytecode: TestToken.bytecode,
          args: ['USD Coin', 'USDC', 6, deployer.address, deployer.address, 0n],
        }),
      })
    ).contractAddress!;
    const bundler = await new AltoBundler({ rpcUrl: node.rpcUrl, entryPoint: contracts.entryPoint, port: await freePort() }).start();
    const operations = new UserOperations(
      client,
      bundler.url,
      contracts,
      sponsorship({ paymaster: contracts.paymaster, signer: paymasterSigner, chainId, validForSeconds: 600 }),
    );
    const side: Side = { node, bundler, client, chainId, contracts, usdc, operations };
    sides.push(side);
    return side;
  };

  const accountOf = (side: Side, walletId: string) =>
    simpleAccount({
      client: side.client,
      contracts: side.contracts,
      chainId: side.chainId,
      owner: custody.derived(accountOwnerPath(walletId)),
      salt: accountSalt(walletId),
    });
  const balanceOf = (side: Side, holder: Address) =>
    side.client.readContract({ address: side.usdc, abi: TestToken.abi, functionName: 'balanceOf', args: [holder] });
  const mint = async (side: Side, to: Address, amount: bigint) =>
    mined(
      side,
      await createWalletClient({ account: deployer, transport: http(side.node.rpcUrl) }).writeContract({
        chain: null,
        address: side.usdc,
        abi: TestToken.abi,
        functionName: 'mint',
        args: [to, amount],
      }),
    );
  const transfer = (side: Side, to: Address, amount: bigint) => ({
    to: side.usdc,
    data: encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [to, amount] }),
  });
  const landing = async (side: Side, hash: Hex, fromBlock: bigint): Promise<LandedOperation> => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const landed = await side.operations.landed(hash, fromBlock);
      if (landed) return landed;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`UserOperation ${hash} did not land:\n${side.bundler.logs}`);
  };
  const eventsOf = async (side: Side, hash: Hex) =>
    parseEventLogs({
      abi: entryPoint07Abi,
      eventName: 'UserOperationEvent',
      logs: await side.client.getLogs({ address: side.contracts.entryPoint, fromBlock: 0n, toBlock: 'latest' }),
    }).filter((log) => log.args.userOpHash === hash);

  beforeAll(async () => {
    [base, bsc] = await Promise.all([setUp(84532), setUp(97)]);
  }, 120_000);

  afterAll(async () => {
    for (const side of sides) {
      await side.bundler.stop();
      await side.node.stop();
    }
  });

  it('puts the contracts, and each wallet’s account, at one address on base and bsc, known before deployment', async () => {
    expect(bsc.contracts).toEqual(base.contracts);
    const [onBase, onBsc] = await Promise.all([accountOf(base, 'wal_same'), accountOf(bsc, 'wal_same')]);
    expect(await onBsc.getAddress()).toBe(await onBase.getAddress());
    expect(await (await accountOf(base, 'wal_other')).getAddress()).not.toBe(await onBase.getAddress());
    expect(await base.client.getCode({ address: await onBase.getAddress() })).toBeUndefined();
  });

  it('keeps a deposit at the account; its first operation deploys it, one sponsored UserOperation batching a transfer and the fee, with no native coin ever held', async () => {
    const account = await accountOf(base, 'wal_first');
    const address = await account.getAddress();
    await mint(base, address, 100n * UNITS);
    expect(await balanceOf(base, address)).toBe(100n * UNITS);

    const fromBlock = await base.client.getBlockNumber();
    const { hash, operation } = await base.operations.prepare(
      account,
      [transfer(base, recipient, 40n * UNITS), transfer(base, treasury, 1n * UNITS)],
      'txn_1:swap',
    );
    expect(operation.factory).toBe(base.contracts.accountFactory);
    expect(operation.nonce).toBe(operationNonce('txn_1:swap'));
    expect(operation.paymaster).toBe(base.contracts.paymaster);
    await base.operations.submit(operation);
    const landed = await landing(base, hash, fromBlock);

    expect(landed).toMatchObject({ success: true, sender: address, paymaster: base.contracts.paymaster, userOperationHash: hash });
    expect(landed.actualGasCost).toBeGreaterThan(0n);
    const receipt = await base.client.getTransactionReceipt({ hash: landed.transactionHash });
    expect(parseEventLogs({ abi: entryPoint07Abi, logs: receipt.logs, eventName: 'AccountDeployed' }).map((log) => log.args.sender)).toEqual([address]);
    expect(await base.client.getCode({ address })).toBeDefined();
    expect([await balanceOf(base, address), await balanceOf(base, recipient), await balanceOf(base, treasury)]).toEqual([59n * UNITS, 40n * UNITS, 1n * UNITS]);
    expect(await base.client.getBalance({ address })).toBe(0n);

    // The step's operation cannot land twice: prepared again, its nonce is taken; submitted again, it is `taken`, and
    // the step's landed operation is found by its sender and nonce.
    await expect(base.operations.prepare(account, [transfer(base, recipient, 40n * UNITS)], 'txn_1:swap')).rejects.toThrow(/AA25 invalid account nonce/);
    expect(await base.operations.submit(operation)).toBe('taken');
    expect(await base.operations.nonceUsed(address, operationNonce('txn_1:swap'))).toBe(true);
    expect(await base.operations.nonceUsed(address, operationNonce('txn_never:send'))).toBe(false);
    expect((await base.operations.landedByNonce(address, operationNonce('txn_1:swap'), fromBlock))?.userOperationHash).toBe(hash);
    // Another step's operation finds the account deployed: no factory, a nonce of its own.
    const next = await base.operations.prepare(account, [transfer(base, recipient, 9n * UNITS)], 'txn_2:send');
    expect(next.operation.factory).toBeUndefined();
    expect(next.operation.nonce).toBe(operationNonce('txn_2:send'));
    await base.operations.submit(next.operation);
    expect((await landing(base, next.hash, fromBlock)).success).toBe(true);
    expect(await balanceOf(base, address)).toBe(50n * UNITS);
    expect(await base.client.getBalance({ address })).toBe(0n);
  }, 60_000);

  it("signs the paymaster's own hash: its getHash of the packed operation", async () => {
    const account = await accountOf(base, 'wal_hash');
    await mint(base, await account.getAddress(), 1n);
    const { operation } = await base.operations.prepare(account, [transfer(base, recipient, 1n)], 'txn_hash:send');
    const packed = {
      sender: operation.sender,
      nonce: operation.nonce,
      initCode: operation.factory ? concat([operation.factory, operation.factoryData!]) : '0x',
      callData: operation.callData,
      accountGasLimits: concat([pad(toHex(operation.verificationGasLimit), { size: 16 }), pad(toHex(operation.callGasLimit), { size: 16 })]),
      preVerificationGas: operation.preVerificationGas,
      gasFees: concat([pad(toHex(operation.maxPriorityFeePerGas), { size: 16 }), pad(toHex(operation.maxFeePerGas), { size: 16 })]),
      paymasterAndData: concat([
        operation.paymaster!,
        pad(toHex(operation.paymasterVerificationGasLimit!), { size: 16 }),
        pad(toHex(operation.paymasterPostOpGasLimit!), { size: 16 }),
        operation.paymasterData!,
      ]),
      signature: operation.signature,
    } as const;
    const validUntil = 1_900_000_000;
    const onChain = await base.client.readContract({
      address: base.contracts.paymaster,
      abi: VerifyingPaymaster.abi,
      functionName: 'getHash',
      args: [packed, validUntil, 0],
    });
    expect(
      sponsorshipHash(
        { ...operation, paymasterVerificationGasLimit: operation.paymasterVerificationGasLimit!, paymasterPostOpGasLimit: operation.paymasterPostOpGasLimit! },
        base.contracts.paymaster,
        base.chainId,
        validUntil,
        0,
      ),
    ).toBe(onChain);
  });

  it('refuses, with the reason, an operation its owner did not sign, one the paymaster did not sponsor, and calls that revert; none lands', async () => {
    const account = await accountOf(base, 'wal_refused');
    const address = await account.getAddress();
    await mint(base, address, 5n * UNITS);
    const fromBlock = await base.client.getBlockNumber();

    const { hash, operation } = await base.operations.prepare(account, [transfer(base, recipient, 1n * UNITS)], 'txn_forged:send');
    const forged = { ...operation, signature: await custody.derived(accountOwnerPath('wal_intruder')).signHash(hash) } as UserOperation<'0.7'>;
    await expect(base.operations.submit(forged)).rejects.toThrow(/AA24 signature error/);

    const stranger = custody.signer(evmPath("m/44'/60'/4338'/0/9"));
    const unsponsored = new UserOperations(
      base.client,
      base.bundler.url,
      base.contracts,
      sponsorship({ paymaster: base.contracts.paymaster, signer: stranger, chainId: base.chainId, validForSeconds: 600 }),
    );
    const other = await unsponsored.prepare(account, [transfer(base, recipient, 1n * UNITS)], 'txn_unsponsored:send');
    await expect(unsponsored.submit(other.operation)).rejects.toThrow(/AA34 signature error/);

    await expect(base.operations.prepare(account, [transfer(base, recipient, 6n * UNITS)], 'txn_overdrawn:send')).rejects.toThrow(
      /ERC20InsufficientBalance|reverted/,
    );

    expect(await eventsOf(base, hash)).toHaveLength(0);
    expect(await eventsOf(base, other.hash)).toHaveLength(0);
    expect(await base.operations.landedByNonce(address, operation.nonce, fromBlock)).toBeUndefined();
    expect(await base.operations.nonceUsed(address, operation.nonce)).toBe(false);
    expect(await balanceOf(base, address)).toBe(5n * UNITS);
    expect(await base.client.getCode({ address })).toBeUndefined();
  }, 60_000);

  it('takes the same operation submitted twice at once as one: it lands once', async () => {
    const account = await accountOf(bsc, 'wal_twice');
    const address = await account.getAddress();
    await mint(bsc, address, 10n * UNITS);
    const fromBlock = await bsc.client.getBlockNumber();
    const { hash, operation } = await bsc.operations.prepare(account, [transfer(bsc, recipient, 2n * UNITS)], 'txn_twice:send');
    // As a step keeps it: plain JSON (bigints as strings), nothing of viem's account or its URLs.
    const kept = JSON.stringify(operation, (_, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
    expect(kept).not.toContain('http');
    const restored = JSON.parse(kept, (_, value: unknown) =>
      typeof value === 'string' && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value,
    ) as typeof operation;
    const answers = await Promise.all([bsc.operations.submit(operation), bsc.operations.submit(restored)]);
    expect(answers.every((answer) => answer === 'accepted' || answer === 'taken')).toBe(true);
    await landing(bsc, hash, fromBlock);
    expect(await bsc.operations.submit(restored)).toBe('taken');
    expect(await eventsOf(bsc, hash)).toHaveLength(1);
    expect(await balanceOf(bsc, address)).toBe(8n * UNITS);
  }, 60_000);

  it('lands an operation once when the bundler is killed (-9) after taking it and the operation is submitted again, and again', async () => {
    const account = await accountOf(bsc, 'wal_crash');
    const address = await account.getAddress();
    await mint(bsc, address, 10n * UNITS);
    const fromBlock = await bsc.client.getBlockNumber();
    const { hash, operation } = await bsc.operations.prepare(account, [transfer(bsc, recipient, 3n * UNITS)], 'txn_crash:send');
    await bsc.operations.submit(operation);
    await bsc.bundler.stop('SIGKILL');
    await bsc.bundler.start();
    // Whether the bundle was sent before the kill or not, submitting again is safe: it lands, or has landed, once.
    await bsc.operations.submit(operation);
    await landing(bsc, hash, fromBlock);
    expect(await bsc.operations.submit(operation)).toBe('taken');
    expect(await eventsOf(bsc, hash)).toHaveLength(1);
    expect(await balanceOf(bsc, address)).toBe(7n * UNITS);
    expect(
      await bsc.client.readContract({
        address: bsc.contracts.accountFactory,
        abi: SimpleAccountFactory.abi,
        functionName: 'getAddress',
        args: [custody.derived(accountOwnerPath('wal_crash')).address, accountSalt('wal_crash')],
      }),
    ).toBe(address);
  }, 120_000);
});
