import {
  concat,
  decodeFunctionData,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getAbiItem,
  getContractAddress,
  http,
  keccak256,
  pad,
  parseEventLogs,
  toHex,
  zeroHash,
  type Account,
  type Address,
  type Hex,
  type Log,
  type PublicClient,
  type WalletClient,
} from 'viem';
import {
  createBundlerClient,
  entryPoint07Abi,
  getUserOperationHash,
  toSmartAccount,
  type BundlerClient,
  type GetPaymasterDataParameters,
  type SmartAccount,
  type UserOperation,
} from 'viem/account-abstraction';
import { EntryPoint, SimpleAccount, SimpleAccountFactory, VerifyingPaymaster } from './artifacts.generated';
import { evmPath, type Signer } from './custody';
import { create2Address, deployThroughProxy, type Planned } from './deployment';

/**
 * Managed wallets as ERC-4337 smart accounts (CHAIN.md section 5), from standard, audited parts: eth-infinitism's
 * EntryPoint v0.7, its SimpleAccount and SimpleAccountFactory, and its VerifyingPaymaster (@account-abstraction/contracts
 * 0.7.0, deployed from the package's own artifacts). Every operation of an account is a UserOperation sent to a bundler
 * (locally @pimlico/alto beside each anvil node, live a provider's URL) whose gas the platform's paymaster sponsors.
 */
export const ENTRY_POINT_VERSION = '0.7' as const;

/**
 * The custody paths of the paymaster's two keys, one pair per environment's seed (so one paymaster address on every
 * chain of an environment): the owner deploys it and alone may withdraw its deposit; the signer signs each sponsorship.
 */
export const PAYMASTER_OWNER_PATH = evmPath("m/44'/60'/4338'/0/0");
export const PAYMASTER_SIGNER_PATH = evmPath("m/44'/60'/4338'/0/1");

export interface SmartAccountContracts {
  entryPoint: Address;
  /** SimpleAccountFactory: an account's address is its owner's and salt's, the same on every chain. */
  accountFactory: Address;
  /**
   * The verifying paymaster, deployed by its owner's first transaction (so at one address on every chain): its owner
   * alone may withdraw its EntryPoint deposit, which a deployment through the proxy would have left to nobody.
   */
  paymaster: Address;
}

/**
 * The salts of eth-infinitism's own deployments through the deterministic deployment proxy: with the package's bytes
 * they give the canonical addresses of v0.7, the ones public chains (Base, BSC, …) already have.
 */
const CANONICAL_SALTS = {
  entryPoint: '0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3',
  accountFactory: zeroHash,
} as const satisfies Record<string, Hex>;

/** EntryPoint v0.7 and its SimpleAccountFactory where every public chain has them (checked by smart-accounts.spec.ts). */
export const CANONICAL_ENTRY_POINT: Address = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';
export const CANONICAL_ACCOUNT_FACTORY: Address = '0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985';

function plan(paymasterOwner: Address): { contracts: SmartAccountContracts; proxied: Planned[] } {
  const entryPointCode = EntryPoint.bytecode;
  const entryPoint = create2Address(entryPointCode, CANONICAL_SALTS.entryPoint);
  const factoryCode = encodeDeployData({ abi: SimpleAccountFactory.abi, bytecode: SimpleAccountFactory.bytecode, args: [entryPoint] });
  const accountFactory = create2Address(factoryCode, CANONICAL_SALTS.accountFactory);
  return {
    contracts: { entryPoint, accountFactory, paymaster: getContractAddress({ opcode: 'CREATE', from: paymasterOwner, nonce: 0n }) },
    proxied: [
      { name: 'EntryPoint', initCode: entryPointCode, address: entryPoint, salt: CANONICAL_SALTS.entryPoint },
      { name: 'SimpleAccountFactory', initCode: factoryCode, address: accountFactory, salt: CANONICAL_SALTS.accountFactory },
    ],
  };
}

/** Where the smart-account contracts are (or will be) for this paymaster owner, without asking the chain. */
export function smartAccountContracts(paymasterOwner: Address): SmartAccountContracts {
  return plan(paymasterOwner).contracts;
}

/**
 * EntryPoint v0.7 and its SimpleAccountFactory deployed where they are missing (through the deterministic deployment
 * proxy, by any funded account): what a local bundler needs before it starts. Idempotent.
 */
export async function deployEntryPointAndFactory(client: PublicClient, deployer: WalletClient & { account: Account }): Promise<void> {
  await deployThroughProxy(client, deployer, plan(deployer.account.address).proxied);
}

/**
 * Deploys whatever of the smart-account contracts is missing (EntryPoint and factory through the deterministic
 * deployment proxy by `deployer`; the paymaster by `owner`'s first transaction, its gas given by `deployer`) and tops
 * the paymaster's EntryPoint deposit up to `deposit` wei. Idempotent: a second run sends nothing.
 */
export async function deploySmartAccountContracts(
  client: PublicClient,
  deployer: WalletClient & { account: Account },
  owner: WalletClient & { account: Account },
  paymasterSigner: Address,
  deposit: bigint,
): Promise<SmartAccountContracts> {
  const { contracts, proxied } = plan(owner.account.address);
  await deployThroughProxy(client, deployer, proxied);
  if (!(await client.getCode({ address: contracts.paymaster }))) {
    const nonce = await client.getTransactionCount({ address: owner.account.address });
    if (nonce !== 0)
      throw new Error(`the paymaster owner ${owner.account.address} has sent ${nonce} transactions: its paymaster cannot be at ${contracts.paymaster}`);
    const gas = 3_000_000n * (await client.getGasPrice()) * 2n;
    const balance = await client.getBalance({ address: owner.account.address });
    if (balance < gas)
      await confirmed(client, await deployer.sendTransaction({ account: deployer.account, chain: null, to: owner.account.address, value: gas - balance }));
    const hash = await owner.deployContract({
      account: owner.account,
      chain: null,
      abi: VerifyingPaymaster.abi,
      bytecode: VerifyingPaymaster.bytecode,
      args: [contracts.entryPoint, paymasterSigner],
    });
    await confirmed(client, hash);
  }
  const held = await client.readContract({ address: contracts.entryPoint, abi: EntryPoint.abi, functionName: 'balanceOf', args: [contracts.paymaster] });
  if (held < deposit) {
    const data = encodeFunctionData({ abi: EntryPoint.abi, functionName: 'depositTo', args: [contracts.paymaster] });
    await confirmed(client, await deployer.sendTransaction({ account: deployer.account, chain: null, to: contracts.entryPoint, data, value: deposit - held }));
  }
  return contracts;
}

async function confirmed(client: PublicClient, hash: Hex): Promise<void> {
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
}

/** The factory salt of a managed wallet's account: the owner is the wallet's own key already, the salt names the wallet too. */
export function accountSalt(walletId: string): bigint {
  return BigInt(keccak256(toHex(`smart-account:${walletId}`)));
}

/** The account's counterfactual address: the factory's answer, deployed or not (the same on every chain). */
export async function accountAddress(client: PublicClient, contracts: SmartAccountContracts, owner: Address, salt: bigint): Promise<Address> {
  return client.readContract({ address: contracts.accountFactory, abi: SimpleAccountFactory.abi, functionName: 'getAddress', args: [owner, salt] });
}

/**
 * The nonce of a step's operation: EntryPoint's two-dimensional nonce with the step's own key (192 bits of its
 * idempotency key's hash) at sequence 0. The EntryPoint takes each (key, sequence) once, so a step's operation lands
 * once on chain whatever happens off it (prepared twice across a crash, submitted to two bundlers), and the steps of
 * one account never wait on each other's sequence.
 */
export function operationNonce(idempotencyKey: string): bigint {
  return (BigInt(keccak256(toHex(`user-operation:${idempotencyKey}`))) >> 64n) << 64n;
}

/**
 * The calls of an operation that does nothing (`executeBatch` of none): what cancels a step's operation, since landing
 * it uses the step's nonce, so that no other preparation of the step can land after it.
 */
export const NO_CALLS: Hex = encodeFunctionData({ abi: SimpleAccount.abi, functionName: 'executeBatch', args: [[], [], []] });

/** Whether an operation's `callData` is NO_CALLS (its step's cancellation). */
export function isNoCalls(callData: Hex): boolean {
  return callData.toLowerCase() === NO_CALLS.toLowerCase();
}

/** One call of an operation's batch. */
export interface AccountCall {
  to: Address;
  value?: bigint;
  data?: Hex;
}

/**
 * The SimpleAccount of `owner` and `salt` as viem's SmartAccount: calls batched through `executeBatch`, deployed by
 * the factory with its first operation, each operation signed by the owner (EIP-191 over the UserOperation's hash).
 */
export async function simpleAccount(options: {
  client: PublicClient;
  contracts: SmartAccountContracts;
  chainId: number;
  owner: Signer;
  salt: bigint;
  /** The account's address when known (recorded with the wallet): no call to the factory. */
  address?: Address;
}): Promise<SmartAccount> {
  const { client, contracts, chainId, owner, salt } = options;
  const address = options.address ?? (await accountAddress(client, contracts, owner.address, salt));
  return toSmartAccount({
    client,
    entryPoint: { abi: entryPoint07Abi, address: contracts.entryPoint, version: ENTRY_POINT_VERSION },
    getAddress: async () => address,
    encodeCalls: async (calls: readonly AccountCall[]) =>
      calls.length === 1
        ? encodeFunctionData({ abi: SimpleAccount.abi, functionName: 'execute', args: [calls[0]!.to, calls[0]!.value ?? 0n, calls[0]!.data ?? '0x'] })
        : encodeFunctionData({
            abi: SimpleAccount.abi,
            functionName: 'executeBatch',
            args: [calls.map((call) => call.to), calls.map((call) => call.value ?? 0n), calls.map((call) => call.data ?? '0x')],
          }),
    getFactoryArgs: async () => ({
      factory: contracts.accountFactory,
      factoryData: encodeFunctionData({ abi: SimpleAccountFactory.abi, functionName: 'createAccount', args: [owner.address, salt] }),
    }),
    getStubSignature: async () => STUB_SIGNATURE,
    signMessage: async () => {
      throw new Error('a managed wallet signs UserOperations only');
    },
    signTypedData: async () => {
      throw new Error('a managed wallet signs UserOperations only');
    },
    signUserOperation: async (operation) =>
      owner.signHash(
        getUserOperationHash({
          userOperation: { ...operation, sender: address, signature: '0x' } as UserOperation<typeof ENTRY_POINT_VERSION>,
          entryPointAddress: contracts.entryPoint,
          entryPointVersion: ENTRY_POINT_VERSION,
          chainId,
        }),
      ),
  });
}

/** What the verifying paymaster signs for an operation (its `getHash`, computed here: no call per operation). */
export interface SponsoredFields {
  sender: Address;
  nonce: bigint;
  factory?: Address | undefined;
  factoryData?: Hex | undefined;
  callData: Hex;
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  paymasterVerificationGasLimit: bigint;
  paymasterPostOpGasLimit: bigint;
}

const uint128Pair = (high: bigint, low: bigint): Hex => concat([pad(toHex(high), { size: 16 }), pad(toHex(low), { size: 16 })]);

/** VerifyingPaymaster v0.7's `getHash(userOp, validUntil, validAfter)` on chain `chainId`. */
export function sponsorshipHash(fields: SponsoredFields, paymaster: Address, chainId: number, validUntil: number, validAfter: number): Hex {
  const initCode = fields.factory ? concat([fields.factory, fields.factoryData ?? '0x']) : '0x';
  return keccak256(
    encodeAbiParameters(
      [
        { type: 'address' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'address' },
        { type: 'uint48' },
        { type: 'uint48' },
      ],
      [
        fields.sender,
        fields.nonce,
        keccak256(initCode),
        keccak256(fields.callData),
        uint128Pair(fields.verificationGasLimit, fields.callGasLimit),
        BigInt(uint128Pair(fields.paymasterVerificationGasLimit, fields.paymasterPostOpGasLimit)),
        fields.preVerificationGas,
        uint128Pair(fields.maxPriorityFeePerGas, fields.maxFeePerGas),
        BigInt(chainId),
        paymaster,
        validUntil,
        validAfter,
      ],
    ),
  );
}

/** The gas the verifying paymaster's check needs (it recovers one signature; no postOp). */
export const PAYMASTER_VERIFICATION_GAS = 60_000n;

/**
 * The platform's sponsorship: the verifying paymaster's data for an operation the platform built, signed by the
 * paymaster's signer (a custody key of its own) and valid for `validForSeconds`. It signs whatever it is handed, so it
 * is handed only the platform's own operations (the chain service is its only caller).
 */
export function sponsorship(options: { paymaster: Address; signer: Signer; chainId: number; validForSeconds: number; now?: () => number }) {
  const { paymaster, signer, chainId, validForSeconds } = options;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const data = (validUntil: number, signature: Hex) => concat([encodeAbiParameters([{ type: 'uint48' }, { type: 'uint48' }], [validUntil, 0]), signature]);
  const gas = { paymasterVerificationGasLimit: PAYMASTER_VERIFICATION_GAS, paymasterPostOpGasLimit: 0n };
  return {
    getPaymasterStubData: async () => ({ paymaster, paymasterData: data(now() + validForSeconds, STUB_SIGNATURE), ...gas }),
    getPaymasterData: async (operation: GetPaymasterDataParameters) => {
      const { callGasLimit, verificationGasLimit, preVerificationGas, maxFeePerGas, maxPriorityFeePerGas } = operation;
      if (
        callGasLimit === undefined ||
        verificationGasLimit === undefined ||
        preVerificationGas === undefined ||
        maxFeePerGas === undefined ||
        maxPriorityFeePerGas === undefined
      ) {
        throw new Error('the paymaster signs an operation whose gas and fees are estimated, not before');
      }
      const fields = { ...operation, callGasLimit, verificationGasLimit, preVerificationGas, maxFeePerGas, maxPriorityFeePerGas, ...gas };
      const validUntil = now() + validForSeconds;
      const hash = sponsorshipHash(fields, paymaster, chainId, validUntil, 0);
      return { paymaster, paymasterData: data(validUntil, await signer.signHash(hash)), ...gas };
    },
  };
}

/** An operation's outcome, read from the EntryPoint's logs on chain (never from the bundler's memory). */
export interface LandedOperation {
  userOperationHash: Hex;
  /** The bundle transaction that carried it. */
  transactionHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  sender: Address;
  paymaster: Address;
  nonce: bigint;
  /** Whether its calls ran; false: they reverted, and `revertReason` holds what they returned. */
  success: boolean;
  revertReason?: Hex;
  /** What the paymaster paid for it, in wei, and the gas it used. */
  actualGasCost: bigint;
  actualGasUsed: bigint;
}

/**
 * UserOperations of the platform's accounts on one chain: prepared (gas estimated by the bundler, sponsored by the
 * paymaster, signed by the owner), submitted, and found on chain. A signed operation is kept by its caller before
 * it is submitted: submitting it again is safe (its nonce lets it land once), so a crash between the two loses nothing.
 */
export class UserOperations {
  readonly bundler: BundlerClient;

  constructor(
    private readonly client: PublicClient,
    bundlerUrl: string,
    private readonly contracts: SmartAccountContracts,
    paymaster: ReturnType<typeof sponsorship>,
  ) {
    this.bundler = createBundlerClient({ client, transport: http(bundlerUrl, { retryCount: 0 }), paymaster });
  }

  /**
   * The signed operation of `calls` from `account` for the step `idempotencyKey`, and its hash: nothing is sent. Its
   * nonce is the step's (operationNonce), so however often the step's operation is prepared, one lands at most.
   */
  async prepare(
    account: SmartAccount,
    calls: readonly AccountCall[],
    idempotencyKey: string,
  ): Promise<{ hash: Hex; operation: UserOperation<typeof ENTRY_POINT_VERSION> }> {
    const prepared = (await this.bundler.prepareUserOperation({ account, calls: [...calls], nonce: operationNonce(idempotencyKey) })) as UserOperation<
      typeof ENTRY_POINT_VERSION
    >;
    // Only the operation's own fields: what is kept and submitted again after a crash (viem leaves its account on it,
    // with the client and its URLs).
    const { account: _account, ...fields } = prepared as UserOperation<typeof ENTRY_POINT_VERSION> & { account?: unknown };
    const operation = { ...fields, signature: await account.signUserOperation(prepared) } as UserOperation<typeof ENTRY_POINT_VERSION>;
    const chainId = this.client.chain?.id ?? (await this.client.getChainId());
    const hash = getUserOperationHash({
      userOperation: operation,
      entryPointAddress: this.contracts.entryPoint,
      entryPointVersion: ENTRY_POINT_VERSION,
      chainId,
    });
    return { hash, operation };
  }

  /**
   * Hands a signed operation to the bundler: `accepted` (it holds it), or `taken` (refused, but the step's nonce is
   * used on chain: this operation or another preparation of the step has landed; landedByNonce finds it). A second
   * submission while the first waits counts as accepted. Any other refusal is thrown with the bundler's reason (AA24
   * the account's signature, AA34 the paymaster's, …); a client-side timeout too, and the caller asks again later:
   * submitting the same signed operation again is always safe.
   */
  async submit(operation: UserOperation<typeof ENTRY_POINT_VERSION>): Promise<'accepted' | 'taken'> {
    try {
      await this.bundler.sendUserOperation({ ...operation, entryPointAddress: this.contracts.entryPoint });
      return 'accepted';
    } catch (error) {
      // The step's nonce used on chain: this operation, or another prepared for the same step, has landed (find it
      // with landedByNonce). The EntryPoint, not the bundler's memory, says so.
      if (await this.nonceUsed(operation.sender, operation.nonce)) return 'taken';
      // A second submission while the first waits in the bundler's mempool (alto: "Already known", "already being
      // processed"): accepted once already.
      if (/already known|already being processed/i.test(errorText(error))) return 'accepted';
      throw error;
    }
  }

  /** Whether `sender`'s nonce key of `nonce` has moved past its sequence: an operation with that nonce has landed. */
  async nonceUsed(sender: Address, nonce: bigint): Promise<boolean> {
    const key = nonce >> 64n;
    const next = await this.client.readContract({ address: this.contracts.entryPoint, abi: entryPoint07Abi, functionName: 'getNonce', args: [sender, key] });
    return (next & SEQUENCE_MASK) > (nonce & SEQUENCE_MASK);
  }

  /**
   * The operation of `sender` with `nonce` on chain since `fromBlock` (the step's, whichever of its preparations
   * landed: a second preparation has another hash), or undefined.
   */
  async landedByNonce(sender: Address, nonce: bigint, fromBlock: bigint): Promise<LandedOperation | undefined> {
    const events = await this.client.getLogs({
      address: this.contracts.entryPoint,
      event: USER_OPERATION_EVENT,
      args: { sender },
      fromBlock,
      toBlock: 'latest',
      strict: true,
    });
    const event = events.find((candidate) => candidate.args.nonce === nonce);
    return event && this.landed(event.args.userOpHash, event.blockNumber);
  }

  /**
   * The calls a landed operation ran (its `callData`), read from the bundle that carried it: undefined when that
   * transaction is not a direct `handleOps` to the EntryPoint (a bundler's own contract in between).
   */
  async callDataOf(landed: LandedOperation): Promise<Hex | undefined> {
    const bundle = await this.client.getTransaction({ hash: landed.transactionHash });
    if (bundle.to?.toLowerCase() !== this.contracts.entryPoint.toLowerCase()) return undefined;
    let call;
    try {
      call = decodeFunctionData({ abi: entryPoint07Abi, data: bundle.input });
    } catch {
      return undefined;
    }
    if (call.functionName !== 'handleOps') return undefined;
    const [operations] = call.args;
    return operations.find((operation) => operation.sender.toLowerCase() === landed.sender.toLowerCase() && operation.nonce === landed.nonce)?.callData;
  }

  /** The operation on chain since `fromBlock`, or undefined while it has not landed. */
  async landed(hash: Hex, fromBlock: bigint): Promise<LandedOperation | undefined> {
    const [event] = await this.client.getLogs({
      address: this.contracts.entryPoint,
      event: USER_OPERATION_EVENT,
      args: { userOpHash: hash },
      fromBlock,
      toBlock: 'latest',
      strict: true,
    });
    if (!event) return undefined;
    const landed: LandedOperation = {
      userOperationHash: hash,
      transactionHash: event.transactionHash,
      blockNumber: event.blockNumber,
      blockHash: event.blockHash,
      sender: event.args.sender,
      paymaster: event.args.paymaster,
      nonce: event.args.nonce,
      success: event.args.success,
      actualGasCost: event.args.actualGasCost,
      actualGasUsed: event.args.actualGasUsed,
    };
    if (!landed.success) {
      const receipt = await this.client.getTransactionReceipt({ hash: event.transactionHash });
      const reverted = parseEventLogs({ abi: entryPoint07Abi, logs: receipt.logs, eventName: 'UserOperationRevertReason' }).find(
        (log) => log.args.userOpHash === hash,
      );
      if (reverted) landed.revertReason = reverted.args.revertReason;
    }
    return landed;
  }
}

/** A signed operation as kept (plain JSON: bigints as `<digits>n` strings), to be submitted again after a crash. */
export function operationToJson(operation: UserOperation<typeof ENTRY_POINT_VERSION>): string {
  return JSON.stringify(operation, (_, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
}

/** A kept operation (operationToJson) as viem's again. */
export function operationFromJson(json: string): UserOperation<typeof ENTRY_POINT_VERSION> {
  return JSON.parse(json, (_, value: unknown) => (typeof value === 'string' && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value)) as UserOperation<
    typeof ENTRY_POINT_VERSION
  >;
}

/**
 * The sender of the UserOperation whose execution emitted the log at `logIndex` of a bundle's receipt, or undefined for
 * a log no operation emitted. The EntryPoint (v0.7) runs a bundle's operations one after another and emits each one's
 * `UserOperationEvent` after the logs of its calls: a log belongs to the first such event after it.
 */
export function operationSenderOfLog(logs: readonly Log[], entryPoint: Address, logIndex: number): Address | undefined {
  const ours = logs.filter((log) => log.address.toLowerCase() === entryPoint.toLowerCase());
  const boundaries = parseEventLogs({ abi: entryPoint07Abi, logs: ours, strict: false })
    .filter((event) => event.eventName === 'UserOperationEvent' || event.eventName === 'BeforeExecution')
    .sort((a, b) => a.logIndex! - b.logIndex!);
  // A log before the bundle's BeforeExecution (its validation, or a call around handleOps) is no operation's.
  const carrier = boundaries.find((event) => event.logIndex! > logIndex);
  return carrier?.eventName === 'UserOperationEvent' ? (carrier.args as { sender: Address }).sender : undefined;
}

/**
 * The logs a bundle's operation's calls emitted: those after the bundle's previous `UserOperationEvent` (or its
 * `BeforeExecution`, for the first) and before its own. Another operation of the same bundle (another account's swap
 * on the same pools, say) is not read as this one's.
 */
export function operationLogs(logs: readonly Log[], entryPoint: Address, userOperationHash: Hex): Log[] {
  const sorted = [...logs].sort((a, b) => (a.logIndex ?? 0) - (b.logIndex ?? 0));
  const ours = sorted.filter((log) => log.address.toLowerCase() === entryPoint.toLowerCase());
  const boundaries = parseEventLogs({ abi: entryPoint07Abi, logs: ours, strict: false }).filter(
    (event) => event.eventName === 'UserOperationEvent' || event.eventName === 'BeforeExecution',
  );
  const own = boundaries.find((event) => event.eventName === 'UserOperationEvent' && (event.args as { userOpHash?: Hex }).userOpHash === userOperationHash);
  if (!own) return [];
  const before = boundaries.filter((event) => event.logIndex! < own.logIndex!).at(-1);
  return sorted.filter((log) => log.logIndex! > (before?.logIndex ?? -1) && log.logIndex! < own.logIndex!);
}

/**
 * The signature estimation runs with (the account's and the paymaster's): of the right shape and recovering to some
 * address, so both checks run to the end (and fail softly) without a custody key signing anything. A constant: the
 * signature of the zero hash by a public throwaway key (the hash of "ramp-platform/stub-signature").
 */
export const STUB_SIGNATURE: Hex =
  '0xb54b2d0003fd307346114d8a425d6d09b7a982329d5a4573f1feabae8c29da4473e1bf1110a600bcddcc16e0a67e539d5f5a297683caf3bbe4d64c7528ae7c421c';

/** The sequence half (low 64 bits) of a two-dimensional nonce. */
const SEQUENCE_MASK = (1n << 64n) - 1n;

/** Every message in an error's chain (viem wraps the bundler's answer). */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let cause: unknown = error; cause instanceof Error && parts.length < 10; cause = (cause as Error & { cause?: unknown }).cause) {
    parts.push(cause.message, (cause as Error & { details?: string }).details ?? '');
  }
  return parts.join(' ');
}

/** EntryPoint v0.7's UserOperationEvent (its hash, sender and paymaster indexed). */
const USER_OPERATION_EVENT = getAbiItem({ abi: entryPoint07Abi, name: 'UserOperationEvent' });
