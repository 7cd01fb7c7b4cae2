import { ConfigError, type Config } from '@ramp/config';
import type { BankDirectory } from '../bank-directory';
import { CircuitBreaker, Rotation, type RotationEntry } from './circuit-breaker';
import type { PartnerCallObserver } from './partner-http';
import { PartnerBankDirectory, RotatingBankDirectory, type BankPartner } from './partner-bank-directory';
import { FlutterwaveClient } from './flutterwave';
import { PaystackClient } from './paystack';
import { LiveCollections, PaystackCollections, type CollectionProvider } from './collections';
import { FlutterwavePayouts, LivePayouts, PaystackPayouts, type PayoutEntry } from './payouts';

/** The bank partners the platform has adapters for. */
export const BANK_PARTNERS = ['paystack', 'flutterwave'] as const;
export type BankPartnerName = (typeof BANK_PARTNERS)[number];

/**
 * Paystack's client from PAYSTACK_BASE_URL and PAYSTACK_SECRET_KEY(_FILE), or undefined without a key. A test-mode key
 * (`sk_test_`) is refused at start: live keys would be served by Paystack's test mode, with made-up names and payouts.
 */
export function paystackFrom(config: Config, observer?: PartnerCallObserver, budgetMs?: number): PaystackClient | undefined {
  const secretKey = config.secret('paystackSecretKey');
  if (!secretKey) return undefined;
  if (!secretKey.startsWith('sk_live_'))
    throw new ConfigError('PAYSTACK_SECRET_KEY must be a live secret key (sk_live_...): the platform serves test keys from its own sandbox');
  return new PaystackClient({ baseUrl: config.string('paystackBaseUrl'), secretKey, timeoutMs: config.int('partnerTimeoutMs', 1), budgetMs, observer });
}

/** Flutterwave's client from FLUTTERWAVE_BASE_URL and FLUTTERWAVE_SECRET_KEY(_FILE), or undefined without a key; a test-mode key is refused. */
export function flutterwaveFrom(config: Config, observer?: PartnerCallObserver, budgetMs?: number): FlutterwaveClient | undefined {
  const secretKey = config.secret('flutterwaveSecretKey');
  if (!secretKey) return undefined;
  if (!secretKey.startsWith('FLWSECK-') || /^FLWSECK_TEST/i.test(secretKey)) {
    throw new ConfigError(
      'FLUTTERWAVE_SECRET_KEY must be a live secret key (FLWSECK-..., not FLWSECK_TEST-...): the platform serves test keys from its own sandbox',
    );
  }
  return new FlutterwaveClient({ baseUrl: config.string('flutterwaveBaseUrl'), secretKey, timeoutMs: config.int('partnerTimeoutMs', 1), budgetMs, observer });
}

/** Flutterwave as a bank partner for name enquiry (its codes are matched to the platform's by code alone). */
export function flutterwaveBanks(client: FlutterwaveClient): BankPartner {
  return { name: 'flutterwave', listBanks: () => client.listBanks(), resolveAccount: (code, accountNumber) => client.resolveAccount(code, accountNumber) };
}

/** Paystack as a bank partner for name enquiry. */
export function paystackBanks(client: PaystackClient): BankPartner {
  return {
    name: 'paystack',
    listBanks: async () =>
      (await client.listBanks())
        .filter((bank) => bank.active && bank.is_deleted !== true)
        .map((bank) => ({ name: bank.name, code: bank.code, ...(bank.nip_sort_code && { nipCode: bank.nip_sort_code }) })),
    resolveAccount: (code, accountNumber) => client.resolveAccount(code, accountNumber),
  };
}

/** A configured partner's name enquiry, or undefined when its secret key is not set. */
function bankPartnerFrom(name: BankPartnerName, config: Config, observer?: PartnerCallObserver): BankPartner | undefined {
  // Each partner's share of a name enquiry, its attempts together: two of them fit in the gateway's wait for an answer.
  const budgetMs = config.int('nameEnquiryBudgetMs', 100);
  if (name === 'paystack') {
    const client = paystackFrom(config, observer, budgetMs);
    return client && paystackBanks(client);
  }
  const client = flutterwaveFrom(config, observer, budgetMs);
  return client && flutterwaveBanks(client);
}

/** Each name in a provider-order setting must be a partner the platform knows; a typo refuses to start. */
export function providerOrder(config: Config, setting: 'nameEnquiryProviders' | 'payoutProviders' | 'collectionProviders'): BankPartnerName[] {
  const names = config.list(setting);
  for (const name of names) {
    if (!(BANK_PARTNERS as readonly string[]).includes(name))
      throw new Error(`${setting}: "${name}" is not a bank partner (known: ${BANK_PARTNERS.join(', ')})`);
  }
  return names as BankPartnerName[];
}

/**
 * Live name enquiry from configuration: the partners of NAME_ENQUIRY_PROVIDERS that have a secret key, in that
 * order, each behind a circuit breaker; undefined when none has (live keys are then refused, never simulated).
 */
export function liveBankDirectoryFrom(config: Config, observer?: PartnerCallObserver): BankDirectory | undefined {
  const entries = providerOrder(config, 'nameEnquiryProviders').flatMap((name) => {
    const partner = bankPartnerFrom(name, config, observer);
    return partner ? [{ name, provider: new PartnerBankDirectory(partner) as BankDirectory, breaker: new CircuitBreaker() }] : [];
  });
  return entries.length === 0 ? undefined : new RotatingBankDirectory(new Rotation(entries));
}

/**
 * Live payouts from configuration: the partners of PAYOUT_PROVIDERS that have a secret key, in that order, each with
 * its breaker and its own bank list (for its bank codes); undefined when none has (live off-ramps are then refused
 * at quote time, never paid by the sandbox).
 */
export function livePayoutsFrom(config: Config, observer?: PartnerCallObserver): LivePayouts | undefined {
  // Each call's attempts together within a fifth of the job's lease: a payout step's three or four calls end before
  // another replica may take the step over.
  const budgetMs = Math.floor(config.int('jobLeaseMs', 1000) / 5);
  const entries = providerOrder(config, 'payoutProviders').flatMap((name): PayoutEntry[] => {
    if (name === 'paystack') {
      const client = paystackFrom(config, observer, budgetMs);
      return client ? [{ name, provider: new PaystackPayouts(client, new PartnerBankDirectory(paystackBanks(client))), breaker: new CircuitBreaker() }] : [];
    }
    const client = flutterwaveFrom(config, observer);
    return client
      ? [{ name, provider: new FlutterwavePayouts(client, new PartnerBankDirectory(flutterwaveBanks(client))), breaker: new CircuitBreaker() }]
      : [];
  });
  return entries.length === 0 ? undefined : new LivePayouts(entries);
}

/**
 * Live collections from configuration: the partners of COLLECTION_PROVIDERS that have a secret key, in that order, each
 * behind a circuit breaker; undefined when none has (live on-ramps are then refused at quote time). Only Paystack has
 * a collections adapter: naming another refuses to start, rather than leaving on-ramps to a partner that cannot serve.
 */
export function liveCollectionsFrom(config: Config, observer?: PartnerCallObserver): LiveCollections | undefined {
  const budgetMs = Math.floor(config.int('jobLeaseMs', 1000) / 5);
  const entries = providerOrder(config, 'collectionProviders').flatMap((name): RotationEntry<CollectionProvider>[] => {
    if (name !== 'paystack') throw new ConfigError(`COLLECTION_PROVIDERS: ${name} has no collections adapter on this platform yet (only paystack collects)`);
    const client = paystackFrom(config, observer, budgetMs);
    return client ? [{ name, provider: new PaystackCollections(client), breaker: new CircuitBreaker() }] : [];
  });
  return entries.length === 0 ? undefined : new LiveCollections(entries);
}

/** A Metrics instance's partner histogram as a PartnerCallObserver. */
export function partnerObserver(histogram: { observe(labels: { provider: string; call: string; outcome: string }, value: number): void }): PartnerCallObserver {
  return { observe: (provider, call, outcome, seconds) => histogram.observe({ provider, call, outcome }, seconds) };
}
