import { PRIMARY_CHAINS } from '@ramp/chains';
import { WEBHOOKS_DESCRIPTION } from './webhook-events';
import { spelled } from './wording';

/**
 * The groups of the reference, in the order it shows them, each with its description (markdown). Every operation
 * names one of them (ApiEndpoint's `tag`; the probes and metrics, served by every service, are `Operations`).
 */
export const API_TAGS = {
  Quotes:
    'Every movement of value starts with a quote: its price, fees and `quoteId`, valid for 5 minutes and usable once, by one initiation of its own kind. ' +
    'On-ramp quotes price NGN into crypto, off-ramp quotes crypto into NGN (and verify the bank account), swap and transfer quotes price the route.',
  'Off-ramp':
    'Sell crypto for NGN paid into a Nigerian bank account. Initiate with an off-ramp quote, custodial (`walletId`: the tokens come from a managed wallet) ' +
    'or non-custodial (`sourceAddress`: the user sends them to the returned `depositAddress`); then poll the transaction or wait for `offramp.completed` or `offramp.failed`.',
  'On-ramp':
    'Buy crypto with NGN. Initiate with an on-ramp quote and a managed wallet or an address to deliver to; the answer holds the virtual account to pay the exact NGN amount into. ' +
    'Then poll the transaction or wait for `onramp.completed` or `onramp.failed`.',
  Swaps:
    `Exchange tokens from a managed wallet on one chain or across ${spelled(PRIMARY_CHAINS, 'and')}, along the quoted route (DEX swaps and a bridge), each swap bounded by the quote's slippage. ` +
    'A failure unwinds what ran and gives the wallet back everything.',
  Transfers: `Move tokens from a managed wallet on ${spelled(PRIMARY_CHAINS)} to an address on any supported chain, optionally converting them there (bridge plus swap).`,
  Transactions:
    'Every transaction of your API key (its organization and environment), of every type: the list with its filters, and one by id. ' +
    "The list follows the services' event streams within milliseconds; the per-type endpoints (`GET /offramp/{transactionId}`, …) read the owning service directly.",
  Wallets: `Managed wallets: gas-sponsored smart accounts on ${spelled(PRIMARY_CHAINS, 'and')}, each with a fixed address and its balances (\`available\`, and \`held\` for transactions in flight).`,
  Banks: 'Nigerian banks with their codes, and bank account verification: the CBN NUBAN check digit first, then the bank directory resolves the account name.',
  Chains: 'The supported chains and their tokens, with contract addresses and decimals: the allowed values of the swap and transfer token fields.',
  Webhooks: WEBHOOKS_DESCRIPTION,
  Sandbox:
    "Test keys only (`service_test_…`; a live key gets NOT_FOUND): play the outside world. Fund a managed wallet, make a non-custodial off-ramp's deposit arrive, pay an on-ramp's virtual account. " +
    'Magic values make things fail: an account number whose first nine digits are `999999999` does not verify, `888888888` verifies but its payout is rejected; ' +
    "a payment or a deposit of another amount than asked is given back. Ramps, swaps and transfers on the local test chains run on chain, where no amount is magic: trade on their pools to move the price past a swap's tolerance, " +
    'and hold the bridge relayer (`POST /sandbox/relayer`) to have a bridge deposit refunded after its deadline. Everything taken is given back before the transaction fails.',
  Partners:
    "For the platform's bank partners, not for integrators: the events a partner sends about its payouts and collections (Paystack's `transfer.success`, `transfer.failed`, `transfer.reversed`, `charge.success`). " +
    'Served at the root (not under `/v1`), without an API key: each event is authenticated by its signature over the raw body, recorded once and answered 200, then processed from the record.',
  Operations:
    'For the cluster, not for integrators: liveness, readiness and Prometheus metrics. Served by every service at the root (not under `/v1`), without an API key, ' +
    'and not through the ingress (through a trusted proxy they are NOT_FOUND).',
} as const;

export type ApiTag = keyof typeof API_TAGS;
