import {
  BankList,
  BankVerify,
  ChainBridge,
  ChainHoldings,
  ChainWalletBalances,
  ChainSendsPause,
  ChainList,
  ChainNetworks,
  ChainPools,
  ChainSwap,
  ChainTransfer,
  chainEvents,
  DepositAddressWatch,
  FaucetSend,
  HoldPlace,
  HoldSettle,
  integrationEvents,
  KeySigningSecret,
  TreasuryInventory,
  TreasuryReserve,
  OfframpInitiate,
  OfframpQuote,
  OnrampInitiate,
  OnrampQuote,
  PartnerEventReceive,
  QuoteConsume,
  QuotePeek,
  rampEvents,
  RampTransactionGet,
  RelayerPause,
  RouteTransactionGet,
  SandboxDeposit,
  SandboxPayment,
  SwapInitiate,
  SwapQuote,
  swapTransferEvents,
  TransactionGet,
  TransactionList,
  TransferInitiate,
  TransferQuote,
  WalletCreate,
  WalletCredit,
  WalletFund,
  WalletGet,
  WalletList,
  WebhookCreate,
  WebhookDelete,
  WebhookDeliveries,
  WebhookList,
  WebhookRetry,
  WebhookTest,
  type EventStreamOf,
  type RpcContract,
} from '@ramp/contracts';
import { DEAD_LETTER_STREAM, deadLetterSubject } from './streams';

/**
 * What one service may do on NATS, beyond serving its own request/reply subjects (`<service>.v1.>`, in its queue group)
 * and answering the requests it is given: the contracts it calls, the streams it publishes to (with the subjects under
 * the stream's prefix) and the durable consumers it runs. nats-server enforces it (natsAuthorization), so a service
 * taken over can do no more than this on the broker: the notifier cannot credit a wallet, nor the gateway read an event.
 */
export interface ServiceAccess {
  calls: readonly RpcContract<unknown, unknown>[];
  publishes: readonly { stream: EventStreamOf; subjects: readonly string[] }[];
  consumes: readonly { stream: EventStreamOf; durables: readonly string[] }[];
}

/** The services by their NATS user name, which is the service's name. */
export type NatsServiceUser = 'gateway' | 'quote' | 'ramp' | 'swap-transfer' | 'ledger' | 'chain' | 'notifier';

/** What ramp and swap-transfer run a transaction with (process-kit: the quote, the hold, its settlement, credits). */
const PROCESS_CALLS = [QuotePeek.contract, QuoteConsume.contract, WalletGet.contract, HoldPlace.contract, HoldSettle.contract, WalletCredit.contract];

export const SERVICE_ACCESS: Readonly<Record<NatsServiceUser, ServiceAccess>> = {
  gateway: {
    calls: [
      OnrampQuote.contract,
      OfframpQuote.contract,
      SwapQuote.contract,
      TransferQuote.contract,
      BankList.contract,
      BankVerify.contract,
      PartnerEventReceive.contract,
      ChainList.contract,
      OnrampInitiate.contract,
      OfframpInitiate.contract,
      SandboxPayment.contract,
      SandboxDeposit.contract,
      RampTransactionGet.contract,
      SwapInitiate.contract,
      TransferInitiate.contract,
      RouteTransactionGet.contract,
      WalletCreate.contract,
      WalletList.contract,
      WalletGet.contract,
      WalletFund.contract,
      TransactionList.contract,
      TransactionGet.contract,
      WebhookCreate.contract,
      WebhookList.contract,
      WebhookDelete.contract,
      WebhookDeliveries.contract,
      WebhookRetry.contract,
      WebhookTest.contract,
      FaucetSend.contract,
      RelayerPause.contract,
    ],
    publishes: [],
    consumes: [],
  },
  // The chains' networks and pools a quote is priced from, and the treasury's inventory a live on-ramp's CNGN comes from.
  quote: { calls: [ChainNetworks.contract, ChainPools.contract, TreasuryInventory.contract], publishes: [], consumes: [] },
  ramp: {
    // Its legs on chain: swaps, transfers out of the hot wallet, the test CNGN an on-ramp mints; never a bridge.
    // And the treasury's reservation of a live on-ramp's CNGN before its swap spends it.
    calls: [
      ...PROCESS_CALLS,
      ChainNetworks.contract,
      ChainSwap.contract,
      ChainTransfer.contract,
      FaucetSend.contract,
      DepositAddressWatch.contract,
      TreasuryReserve.contract,
    ],
    publishes: [
      { stream: rampEvents, subjects: ['>'] },
      { stream: integrationEvents, subjects: ['onramp.>', 'offramp.>'] },
    ],
    consumes: [{ stream: chainEvents, durables: ['ramp_chain_deposits', 'ramp_chain_sends'] }],
  },
  'swap-transfer': {
    // Its legs on chain: swaps and bridges, and the transfers of a managed wallet's funds between its own account and
    // the hot wallet (fromWallet, toWallet); never a mint.
    calls: [...PROCESS_CALLS, ChainNetworks.contract, ChainSwap.contract, ChainBridge.contract, ChainTransfer.contract],
    publishes: [
      { stream: swapTransferEvents, subjects: ['>'] },
      { stream: integrationEvents, subjects: ['swap.>', 'transfer.>'] },
    ],
    consumes: [{ stream: chainEvents, durables: ['swap_transfer_chain_sends'] }],
  },
  ledger: {
    calls: [ChainHoldings.contract, ChainWalletBalances.contract, ChainSendsPause.contract, DepositAddressWatch.contract, FaucetSend.contract],
    publishes: [],
    consumes: [
      { stream: rampEvents, durables: ['ledger_transactions'] },
      { stream: swapTransferEvents, durables: ['ledger_transactions_swap_transfer_events'] },
      { stream: chainEvents, durables: ['ledger_chain_books'] },
    ],
  },
  chain: { calls: [], publishes: [{ stream: chainEvents, subjects: ['>'] }], consumes: [] },
  notifier: {
    calls: [KeySigningSecret.contract],
    publishes: [],
    consumes: [
      { stream: integrationEvents, durables: ['notifier_deliveries'] },
      { stream: chainEvents, durables: ['notifier_wallet_events'] },
      { stream: rampEvents, durables: ['notifier_offramp_events'] },
    ],
  },
};

export const NATS_SERVICE_USERS = Object.keys(SERVICE_ACCESS) as NatsServiceUser[];

/** The user operators' commands connect as (`ledger rebuild`, the `nats` CLI): every subject, for repairs. */
export const OPERATOR_USER = 'operator';

/** The inbox prefix of a NATS user: its request replies and pull deliveries come there, and only it may subscribe. */
export function inboxPrefixOf(user: string): string {
  return user ? `_INBOX.${user}` : '_INBOX';
}

export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  allow_responses: boolean;
}

/** The environment variable nats-server reads a service's password from (`$NATS_PASSWORD_SWAP_TRANSFER`). */
export function passwordVariableOf(user: string): string {
  return `NATS_PASSWORD_${user.toUpperCase().replace(/-/g, '_')}`;
}

/** A service's permissions under an EVENTS_NAMESPACE (empty in production): what natsServerAuthorization writes. */
export function natsPermissionsOf(service: NatsServiceUser, namespace = ''): NatsPermissions {
  const access = SERVICE_ACCESS[service];
  const subject = (name: string) => (namespace ? `${namespace}.${name}` : name);
  const jsApi = (operation: string) => `$JS.API.${operation}`;
  const publish = new Set<string>([jsApi('INFO')]);
  const subscribe = new Set<string>([subject(`${service}.v1.>`), `${inboxPrefixOf(service)}.>`]);
  for (const contract of access.calls) publish.add(subject(contract.subject));
  // Answers go through allow_responses only: to the reply subject of a request it was given, once. Not a grant on its
  // callers' inboxes, whose tokens a service taken over could learn from the requests it serves and then forge answers
  // to their other calls. The price: an answer from a replica that reconnected to another server after taking the
  // request is refused, and the caller times out and retries (its operations are idempotent).

  // A stream's publishers may create and update it; its consumers (and every service, the dead letters) only create it
  // as configured if it is missing: an update can drop a stream's history or take over subjects.
  const streamAccess = (stream: string, owner: boolean) =>
    (owner ? ['INFO', 'CREATE', 'UPDATE'] : ['INFO', 'CREATE']).forEach((operation) => publish.add(jsApi(`STREAM.${operation}.${stream}`)));
  for (const { stream: streamOf, subjects } of access.publishes) {
    const { stream, subjectPrefix } = streamOf(namespace);
    streamAccess(stream, true);
    for (const tail of subjects) publish.add(`${subjectPrefix}.${tail}`);
  }
  for (const { stream: streamOf, durables } of access.consumes) {
    const { stream } = streamOf(namespace);
    streamAccess(
      stream,
      access.publishes.some((published) => published.stream === streamOf),
    );
    for (const durable of durables) {
      // Created (with or without its filter in the subject, as nats.js chooses by server version), read, pulled, acknowledged.
      for (const operation of ['CREATE', 'DURABLE.CREATE', 'INFO', 'MSG.NEXT']) publish.add(jsApi(`CONSUMER.${operation}.${stream}.${durable}`));
      publish.add(jsApi(`CONSUMER.CREATE.${stream}.${durable}.>`));
      publish.add(`$JS.ACK.${stream}.${durable}.>`);
      publish.add(deadLetterSubject(service, durable));
    }
  }
  if (access.consumes.length > 0 || access.publishes.length > 0) streamAccess(DEAD_LETTER_STREAM, false);
  return { publish: { allow: [...publish] }, subscribe: { allow: [...subscribe] }, allow_responses: true };
}

/**
 * The `authorization` block of nats-server's configuration: one user per service with its permissions and the
 * operator's user, each password read from the server's environment (`$NATS_PASSWORD_<USER>`). `npm run nats:config`
 * writes it to deploy/nats/authorization.conf; a test checks that file is current.
 */
export function natsServerAuthorization(namespace = ''): string {
  const list = (subjects: string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;
  const users = NATS_SERVICE_USERS.map((service) => {
    const permissions = natsPermissionsOf(service, namespace);
    return [
      `    {`,
      `      user: ${JSON.stringify(service)}`,
      `      password: $${passwordVariableOf(service)}`,
      `      permissions: {`,
      `        publish: { allow: ${list(permissions.publish.allow)} }`,
      `        subscribe: { allow: ${list(permissions.subscribe.allow)} }`,
      `        allow_responses: ${permissions.allow_responses}`,
      `      }`,
      `    }`,
    ].join('\n');
  });
  users.push(`    { user: ${JSON.stringify(OPERATOR_USER)}, password: $${passwordVariableOf(OPERATOR_USER)} }`);
  return [
    '# Generated by `npm run nats:config` from libs/platform/messaging/src/permissions.ts (SERVICE_ACCESS): do not edit.',
    '# One NATS user per service, allowed its own request subjects, the contracts it calls, the streams it publishes to',
    "# and its durable consumers, and nothing else; each password comes from the server's environment",
    "# (NATS_PASSWORD_<SERVICE>, the same value as that service's NATS_PASSWORD). The operator user may do anything.",
    'authorization {',
    '  users = [',
    users.join('\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}
