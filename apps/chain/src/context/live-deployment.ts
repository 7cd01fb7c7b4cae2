import type { Pool } from 'pg';
import { createWalletClient, formatUnits, getAddress, keccak256, type Account, type Address, type Hex, type PublicClient, type WalletClient } from 'viem';
import {
  accountOfSigner,
  CREATE2_DEPLOYER,
  deploySmartAccountContracts,
  deployThroughProxy,
  forwarderFactoryPlan,
  proxyCallData,
  type RpcNodes,
  type Signer,
} from '@ramp/evm';
import type { ChainNetwork, Environment } from '@ramp/contracts';
import type { ContractCode } from './platform-contracts';

/** The contracts of a live chain that the platform deploys itself; every other one it names is a third party's (LIVE_CHAINS). */
const OWN_CONTRACTS: ReadonlySet<string> = new Set(['forwarderFactory', 'smartAccounts.accountFactory', 'smartAccounts.paymaster']);

/** What the gas of a deployment is budgeted at: the node's gas price times this, so a price rise mid-run still lands. */
const GAS_PRICE_MARGIN = 2n;

/** A contract of a live chain as `chain:deploy` found and recorded it: the hash of its code pins it. */
export interface ContractPin {
  /** What it is for, as the chains list names it: `tokens.USDC`, `forwarderFactory`, `smartAccounts.paymaster`. */
  name: string;
  address: Address;
  /** keccak256 of the code at the address when recorded. */
  codeHash: Hex;
  /** The platform's own contract, deployed by the run that recorded it (its transaction, when the run sent it itself). */
  deployed: boolean;
  transactionHash?: Hex;
}

/** What a deployment needs of a chain: the chain service's ChainContext, as much of it as this reads. */
export interface DeployedChain {
  id: string;
  chain: string;
  environment: Environment;
  pool: Pool;
  client: PublicClient;
  rpc: RpcNodes;
  native: { symbol: string; decimals: number };
  network: ChainNetwork;
  smartAccounts: { paymasterOwner: Signer; paymasterSigner: Address } | undefined;
  /** The code of every contract the chain names, its DEX's pools found first (ChainContext.contractCodes). */
  contractCodes(): Promise<ContractCode[]>;
}

export interface LiveDeploymentPlan {
  chain: string;
  deployer: Address;
  /** The deployer's balance and what the missing contracts' gas may cost, in the native coin's base units. */
  balance: bigint;
  cost: bigint;
  native: string;
  /** The platform's contracts with no code yet: what a run deploys. */
  missing: string[];
  /** Third parties' contracts with no code: a chain with any is not deployed to (the node is another chain, or lags). */
  absent: string[];
}

/**
 * The platform's contracts on a live chain (docs/chains.md, "Contracts on a live chain"): the forwarder factory of the
 * chain's hot wallet through the deterministic deployment proxy (and, with a bundler, the smart accounts' factory and
 * paymaster), deployed by the live deployer key and recorded with every contract the chain names, each pinned by the
 * hash of its code. The chain service runs a live chain only if every contract it names is recorded and its code is
 * still what was recorded.
 */
export class LiveDeployment {
  private readonly deployerAccount: Account;

  constructor(
    private readonly context: DeployedChain,
    private readonly deployer: Signer,
  ) {
    if (context.environment !== 'live') throw new Error(`${context.id} is not a live chain: chain:deploy deploys on live chains only`);
    this.deployerAccount = accountOfSigner(deployer);
  }

  /** What a run would do, without sending anything. */
  async plan(): Promise<LiveDeploymentPlan> {
    const { client, native } = this.context;
    const [codes, balance, gasPrice] = await Promise.all([this.codes(), client.getBalance({ address: this.deployer.address }), client.getGasPrice()]);
    const missing = codes.filter((entry) => OWN_CONTRACTS.has(entry.name) && !entry.code).map((entry) => entry.name);
    const absent = codes.filter((entry) => !OWN_CONTRACTS.has(entry.name) && !entry.code).map((entry) => `${entry.name} (${entry.address})`);
    let gas = 0n;
    const factory = this.factoryPlan();
    if (missing.includes('forwarderFactory'))
      gas += await client.estimateGas({ account: this.deployer.address, to: CREATE2_DEPLOYER, data: proxyCallData(factory) });
    // The smart accounts' factory and paymaster, at what their local deployment measured, rounded up.
    if (missing.some((name) => name.startsWith('smartAccounts.'))) gas += 6_000_000n;
    const cost = gas * gasPrice * GAS_PRICE_MARGIN;
    return {
      chain: this.context.id,
      deployer: this.deployer.address,
      balance,
      cost,
      native: native.symbol,
      missing,
      absent,
    };
  }

  /**
   * Deploys what is missing of the platform's contracts and records every contract the chain names, pinned, with the
   * operator's name. Refuses before sending anything when a third party's contract has no code (the wrong chain, a node
   * not synced) or the deployer cannot pay the gas. Idempotent: a second run sends nothing and records the same pins.
   */
  async run(operator: string): Promise<ContractPin[]> {
    const { client, rpc, id, smartAccounts } = this.context;
    const plan = await this.plan();
    if (plan.absent.length > 0)
      throw new Error(`${id}: no code at ${plan.absent.join(', ')}; this node is not ${this.context.chain} or is not synced: nothing was deployed`);
    if (plan.missing.length > 0 && plan.balance < plan.cost) {
      const { decimals } = this.context.native;
      throw new Error(
        `${id}: the deployer ${plan.deployer} holds ${formatUnits(plan.balance, decimals)} ${plan.native}; send it at least ${formatUnits(plan.cost - plan.balance, decimals)} ${plan.native} more for the gas, then run this again`,
      );
    }
    const wallet = createWalletClient({ account: this.deployerAccount, transport: rpc.transport() }) as WalletClient & { account: Account };
    const sent = await deployThroughProxy(client, wallet, [this.factoryPlan()]);
    if (smartAccounts) {
      const owner = createWalletClient({ account: accountOfSigner(smartAccounts.paymasterOwner), transport: rpc.transport() }) as WalletClient & {
        account: Account;
      };
      // The paymaster's EntryPoint deposit is the operator's to fund (paymasterMinDeposit alerts below it): none here.
      await deploySmartAccountContracts(client, wallet, owner, smartAccounts.paymasterSigner, 0n);
    }
    const pins = (await this.codes()).map((entry): ContractPin => {
      if (!entry.code) throw new Error(`${id}: ${entry.name} (${entry.address}) has no code after the deployment`);
      const transaction = sent.find((deployment) => getAddress(deployment.address) === entry.address);
      return {
        name: entry.name,
        address: entry.address,
        codeHash: keccak256(entry.code),
        deployed: plan.missing.includes(entry.name),
        ...(transaction && { transactionHash: transaction.hash }),
      };
    });
    await recordPins(this.context.pool, id, pins, this.deployer.address, operator);
    return pins;
  }

  private factoryPlan() {
    const factory = forwarderFactoryPlan(this.context.network.hotWallet as Address);
    // The chains list names the same factory: one derivation, checked rather than assumed.
    if (getAddress(factory.address) !== getAddress(this.context.network.contracts.forwarderFactory))
      throw new Error(`${this.context.id}: the forwarder factory planned (${factory.address}) is not the one the chain names`);
    return factory;
  }

  private codes(): Promise<ContractCode[]> {
    return this.context.contractCodes();
  }
}

async function recordPins(pool: Pool, chain: string, pins: readonly ContractPin[], deployer: Address, operator: string): Promise<void> {
  await pool.query(
    `insert into chain.contract_pins (chain, name, address, code_hash, deployed, transaction_hash, deployer, operator)
     select $1, pin.name, pin.address, pin.code_hash, pin.deployed, pin.transaction_hash, $2, $3
       from jsonb_to_recordset($4::jsonb) as pin(name text, address text, code_hash text, deployed boolean, transaction_hash text)`,
    [
      chain,
      deployer,
      operator,
      JSON.stringify(
        pins.map((pin) => ({
          name: pin.name,
          address: pin.address,
          code_hash: pin.codeHash,
          deployed: pin.deployed,
          transaction_hash: pin.transactionHash ?? null,
        })),
      ),
    ],
  );
}

/**
 * What keeps a live chain from running, or an empty list: a contract it names (`codes`, read by contractCodes) that
 * `chain:deploy` has not recorded (there, or at that address), or whose code is no longer what was recorded. Checked at
 * every start, after every contract was found to have code.
 */
export async function unpinnedContracts(pool: Pool, chain: string, codes: readonly ContractCode[]): Promise<string[]> {
  const { rows } = await pool.query<{ name: string; address: string; code_hash: string }>(
    `select distinct on (name) name, address, code_hash from chain.contract_pins where chain = $1 order by name, id desc`,
    [chain],
  );
  const pinned = new Map(rows.map((row) => [row.name, row]));
  return codes.flatMap(({ name, address, code }) => {
    const pin = pinned.get(name);
    if (!pin) return [`${name} (${address}) was never recorded`];
    if (getAddress(pin.address) !== address) return [`${name} is at ${address}, but ${pin.address} was recorded`];
    if (keccak256(code ?? '0x') !== pin.code_hash) return [`${name} (${address}) has other code than was recorded`];
    return [];
  });
}
