/**
 * Every setting of the platform, with its environment variable, default and meaning, in one place.
 * docs/configuration.md is generated from this table (`node tools/run.js tools/print-config`), so the
 * documentation cannot drift from the code.
 */
export interface SettingSpec {
  env: string;
  default: string;
  description: string;
  /** Services that read it; `all` for every service. */
  services: readonly string[];
}

const ALL = ['all'] as const;

export const SETTINGS = {
  nodeEnv: {
    env: 'NODE_ENV',
    default: 'development',
    description:
      '`development` allows plain HTTP on loopback and a built-in secrets key; `production` requires SECRETS_ENCRYPTION_KEY and refuses plain HTTP unless ALLOW_INSECURE_HTTP is set.',
    services: ALL,
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    default: 'postgres://postgres@127.0.0.1:5432/ramp_platform',
    description: 'PostgreSQL connection string. Each service owns its own schema in this database.',
    services: ALL,
  },
  migrateOnStart: {
    env: 'MIGRATE_ON_START',
    default: 'true',
    description:
      "`true`: the service applies its schema's pending migrations at start-up (under an advisory lock), as it must when it connects as the schema's owner (local use, compose). `false` (the manifests): it only checks that none is pending, and refuses to start while one is, so that it can run as a role that may read and write but not create or alter (ramp_app; deploy/README.md) and a long migration runs once, in the migration Job, instead of in every starting replica racing its startup probe.",
    services: ALL,
  },
  dbPoolMax: {
    env: 'DB_POOL_MAX',
    default: '20',
    description:
      "Most PostgreSQL connections of a service replica: its one pool, shared by MikroORM and the plain SQL (event log, journal, jobs, projections), beside a dedicated connection or two for LISTEN and the relay's leader lock. 20 is what its two former pools of 10 held. At least 2 (migrations take a lock on one connection and run on another).",
    services: ALL,
  },
  dbPrepareStatements: {
    env: 'DB_PREPARE_STATEMENTS',
    default: 'true',
    description:
      "`true`: a service's statements with parameters are prepared on each connection, so that PostgreSQL parses and plans each once per connection instead of at every call (about a fifth of PostgreSQL's CPU under the mixed load: docs/capacity.md). `false` for a connection pooler in transaction mode that does not carry prepared statements across server connections (PgBouncer before 1.21, or without `max_prepared_statements`).",
    services: ALL,
  },
  natsUrl: { env: 'NATS_URL', default: 'nats://127.0.0.1:4222', description: 'NATS server(s), comma separated. JetStream must be enabled.', services: ALL },
  natsUser: {
    env: 'NATS_USER',
    default: '',
    description:
      "The service's own NATS user (its name: `gateway`, `quote`, `ramp`, `swap-transfer`, `ledger`, `chain`, `notifier`), whose subject permissions nats-server enforces (deploy/nats/authorization.conf, generated from SERVICE_ACCESS). Empty: no authentication (a local broker). Its replies come to `_INBOX.<user>.`.",
    services: ALL,
  },
  streamReplicas: {
    env: 'STREAM_REPLICAS',
    default: '1',
    description:
      'Copies of each JetStream stream a service creates (events, integration events, dead letters) and of its durable consumers: 3 on a three-node cluster (production: losing a server loses nothing), 1 on a single server. Changed on a running stream at the next start; at most the number of servers.',
    services: ['ramp', 'swap-transfer', 'ledger', 'notifier', 'chain'],
  },
  natsPassword: {
    env: 'NATS_PASSWORD',
    default: '',
    description: "NATS_USER's password (a secret: the server reads the same value as `NATS_PASSWORD_<SERVICE>`).",
    services: ALL,
  },
  redisUrl: { env: 'REDIS_URL', default: 'redis://127.0.0.1:6379', description: 'Redis for rate limits.', services: ['gateway'] },
  logLevel: { env: 'LOG_LEVEL', default: 'info', description: 'pino log level: fatal, error, warn, info, debug, trace, silent.', services: ALL },
  secretsEncryptionKey: {
    env: 'SECRETS_ENCRYPTION_KEY',
    default: '',
    description:
      'Base64 of 32 random bytes; encrypts API secrets and webhook secrets at rest (AES-256-GCM). Required in production; development uses a fixed, documented key.',
    services: ['gateway', 'notifier', 'keys'],
  },
  port: { env: 'PORT', default: '3000', description: 'Gateway HTTP port (the public API, health checks and metrics).', services: ['gateway'] },
  host: { env: 'HOST', default: '127.0.0.1', description: 'Address the HTTP servers bind to. Use 0.0.0.0 in containers.', services: ALL },
  opsPort: {
    env: 'OPS_PORT',
    default: '0',
    description:
      'Gateway: a port of its own for /health/live, /health/ready and /metrics (9090 in the manifests). Set, PORT answers those ROUTE_NOT_FOUND, so the API port can be left to the ingress controller (the only trusted proxy) and the probes and Prometheus reach OPS_PORT alone: a pod let in to scrape can then not talk to the API as if it were the proxy. 0: served on PORT (local use).',
    services: ['gateway'],
  },
  healthPort: {
    env: 'HEALTH_PORT',
    default: '0',
    description:
      'Port of a back-end service for /health/live, /health/ready and /metrics (0: the service default: quote 3101, ramp 3102, swap-transfer 3103, ledger 3104, notifier 3105, chain 3106).',
    services: ['quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'chain'],
  },
  allowInsecureHttp: {
    env: 'ALLOW_INSECURE_HTTP',
    default: '',
    description: 'Set to `true` to accept plain HTTP. Unset: allowed only from loopback in development, refused (FORBIDDEN) otherwise.',
    services: ['gateway'],
  },
  trustedProxies: {
    env: 'TRUSTED_PROXIES',
    default: '',
    description: 'Comma-separated IPs or CIDRs of TLS-terminating proxies whose X-Forwarded-Proto and X-Forwarded-For are believed.',
    services: ['gateway'],
  },
  rpcTimeoutMs: {
    env: 'RPC_TIMEOUT_MS',
    default: '5000',
    description: "How long the gateway waits for a service reply before answering SERVICE_UNAVAILABLE (and a service for another's).",
    services: ['gateway', 'quote', 'ramp', 'swap-transfer', 'ledger', 'notifier'],
  },
  keyCacheTtlMs: {
    env: 'KEY_CACHE_TTL_MS',
    default: '60000',
    description:
      "How long the gateway keeps a recognised API key in memory. Revocations empty every replica's cache at once (PostgreSQL LISTEN/NOTIFY); this is only a backstop. 0 turns the cache off.",
    services: ['gateway'],
  },
  bodyLimitBytes: {
    env: 'BODY_LIMIT_BYTES',
    default: '65536',
    description: 'Largest accepted request body; larger ones are refused with 413.',
    services: ['gateway'],
  },
  anonymousPerMinute: {
    env: 'ANONYMOUS_RATE_PER_MINUTE',
    default: '60',
    description: 'Per-minute limit for requests without a valid key, per client address (burst: a sixth of it).',
    services: ['gateway'],
  },
  keyLookupsPerMinute: {
    env: 'KEY_LOOKUPS_PER_MINUTE',
    default: '600',
    description:
      'Per-minute limit, per client address, of API keys the gateway must look up in the database (a key its cache does not hold: a new, a mistyped or a made-up one); burst: a sixth of it. Checked before the lookup, so a flood of made-up keys never reaches the database. Keys in the cache are never counted.',
    services: ['gateway'],
  },
  pruneIntervalMs: {
    env: 'PRUNE_INTERVAL_MS',
    default: '600000',
    description:
      'How often a service deletes what it keeps only for a while, in batches of 500 rows (stored Idempotency-Key responses an hour after they expire, quotes QUOTE_RETENTION_DAYS after they expire, finished webhook deliveries and their attempts DELIVERY_RETENTION_DAYS after their last change). One replica prunes a table at a time. 0 turns pruning off. The event logs are never pruned.',
    services: ['gateway', 'quote', 'notifier'],
  },
  quoteRetentionDays: {
    env: 'QUOTE_RETENTION_DAYS',
    default: '7',
    description:
      'Days a quote is kept after it expires (used or not); an initiation naming a pruned quote is answered NOT_FOUND. Transactions keep their own copy of their quote.',
    services: ['quote'],
  },
  deliveryRetentionDays: {
    env: 'DELIVERY_RETENTION_DAYS',
    default: '30',
    description:
      'Days a finished webhook delivery (succeeded, failed or cancelled) and its attempts are kept after its last change: the deliveries list and its retry show them until then. Pending deliveries are never pruned.',
    services: ['notifier'],
  },
  idempotencyTtlHours: {
    env: 'IDEMPOTENCY_TTL_HOURS',
    default: '24',
    description: 'How long a stored Idempotency-Key response is replayed.',
    services: ['gateway'],
  },
  liveProvidersEnabled: {
    env: 'LIVE_PROVIDERS_ENABLED',
    default: '',
    description:
      'Live keys move real funds and need real provider adapters. Until this is set, live keys are refused (FORBIDDEN, LIVE_MODE_DISABLED) on every route that needs a provider, except the bank list and verification, which the quote service answers from the bank partners (NAME_ENQUIRY_PROVIDERS) or refuses itself when none is configured. Set or not, a live quote needing a capability with no live adapter (a bank partner, a price source, routes) is refused by the quote service, naming what is missing: never priced from the sandbox.',
    services: ['gateway'],
  },
  paystackBaseUrl: {
    env: 'PAYSTACK_BASE_URL',
    default: 'https://api.paystack.co',
    description: "Paystack's API address (the live bank partner: name enquiry). The live rehearsal and the tests point it at the project's Paystack emulator.",
    services: ['quote', 'ramp'],
  },
  paystackSecretKey: {
    env: 'PAYSTACK_SECRET_KEY',
    default: '',
    description:
      "Paystack secret key (`sk_live_...`): a secret, from the environment or from a mounted file named by PAYSTACK_SECRET_KEY_FILE; never logged. It authenticates the platform's calls and verifies Paystack's events (`x-paystack-signature`, checked by the ramp service). Empty: Paystack is not configured, serves no live capability, and every event claiming to be Paystack's is refused.",
    services: ['quote', 'ramp'],
  },
  flutterwaveBaseUrl: {
    env: 'FLUTTERWAVE_BASE_URL',
    default: 'https://api.flutterwave.com/v3',
    description: "Flutterwave's v3 API address (the second bank partner). The tests point it at the project's Flutterwave emulator.",
    services: ['quote', 'ramp'],
  },
  flutterwaveSecretKey: {
    env: 'FLUTTERWAVE_SECRET_KEY',
    default: '',
    description:
      'Flutterwave live secret key (`FLWSECK-...`; a `FLWSECK_TEST-` key is refused at start): a secret, from the environment or from a mounted file named by FLUTTERWAVE_SECRET_KEY_FILE; never logged. Empty: Flutterwave is not configured and serves nothing.',
    services: ['quote', 'ramp'],
  },
  flutterwaveWebhookHash: {
    env: 'FLUTTERWAVE_WEBHOOK_HASH',
    default: '',
    description:
      "The secret hash set in Flutterwave's dashboard: Flutterwave sends it as `verif-hash` with each event, and `POST /partners/flutterwave/webhook` refuses an event without it (PARTNER_SIGNATURE_INVALID). A secret (or FLUTTERWAVE_WEBHOOK_HASH_FILE). Empty: every event claiming to be Flutterwave's is refused.",
    services: ['ramp'],
  },
  partnerWebhookAllowedIps: {
    env: 'PARTNER_WEBHOOK_ALLOWED_IPS',
    default: '',
    description:
      "Source addresses (IPs or CIDRs, comma separated) from which `POST /partners/<provider>/webhook` is accepted: the partners' published addresses (Paystack: 52.31.139.75, 52.49.173.169, 52.214.14.220). Empty: any address; the signature is checked either way. Behind a proxy the client address is the one TRUSTED_PROXIES resolves.",
    services: ['gateway'],
  },
  partnerWebhookPerMinute: {
    env: 'PARTNER_WEBHOOK_PER_MINUTE',
    default: '6000',
    description:
      "Events a single source address may POST to the bank partners' routes per minute (a burst of a sixth of it per second), before the body is read; above it, 429 and the partner resends later. Generous: a burst of payouts is a burst of events.",
    services: ['gateway'],
  },
  nameEnquiryProviders: {
    env: 'NAME_ENQUIRY_PROVIDERS',
    default: 'paystack,flutterwave',
    description:
      "Live keys' bank list and name enquiry: the bank partners to ask, in order (comma separated; `paystack`, `flutterwave`). A partner whose secret key is not set is left out; with none left, live keys are refused bank verification (LIVE_MODE_DISABLED). An unavailable partner is taken out of rotation by a circuit breaker (5 faults in a row, 30 s) and the next one is asked.",
    services: ['quote'],
  },
  payoutProviders: {
    env: 'PAYOUT_PROVIDERS',
    default: 'paystack,flutterwave',
    description:
      "Live off-ramps' bank payouts: the bank partners that may pay, in order (comma separated; `paystack`, `flutterwave`). A partner whose secret key is not set is left out; with none left, live off-ramps are refused at quote time (LIVE_MODE_DISABLED). An off-ramp's first attempt goes to the first partner in rotation; a next attempt (at most 3) goes to the next partner, and only once the last one's transfer is known to have failed or was never accepted. A partner whose calls get no answer is taken out of rotation by a circuit breaker (5 in a row, 30 s).",
    services: ['quote', 'ramp'],
  },
  collectionProviders: {
    env: 'COLLECTION_PROVIDERS',
    default: 'paystack',
    description:
      "Live on-ramps' Naira collections: the bank partners that may open the payer's dedicated virtual account, in order (comma separated; `paystack` only: Flutterwave's virtual accounts have no adapter yet, and naming it refuses to start). A partner whose secret key is not set is left out; with none left, live on-ramps are refused at quote time (LIVE_MODE_DISABLED). An unavailable partner is taken out of rotation by a circuit breaker (5 faults in a row, 30 s) and the account is opened at the next. A payment, and its refund, stay with the partner that opened the account.",
    services: ['quote', 'ramp'],
  },
  payoutVerifyMs: {
    env: 'PAYOUT_VERIFY_MS',
    default: '60000',
    description:
      "How long a live payout waits for its partner's event (transfer.success, transfer.failed...) before the ramp service asks the partner itself (GET /transfer/verify/{reference}); then again at this interval until the partner says how it ended. Also the pause between two looks at a partner balance too low for the payout.",
    services: ['ramp'],
  },
  nameEnquiryBudgetMs: {
    env: 'NAME_ENQUIRY_BUDGET_MS',
    default: '2000',
    description:
      "Each bank partner's share of a live name enquiry, its attempts and pauses together: an unavailable partner is given up within it and the next one asked, so that two partners answer within the gateway's RPC_TIMEOUT_MS (5 s).",
    services: ['quote'],
  },
  partnerTimeoutMs: {
    env: 'PARTNER_TIMEOUT_MS',
    default: '10000',
    description: 'Limit of each attempt of a call to a bank partner; a call Paystack treats as safe to repeat (a read) is tried 3 times in all.',
    services: ['quote', 'ramp'],
  },
  quoteTtlSeconds: { env: 'QUOTE_TTL_SECONDS', default: '300', description: 'Lifetime of every quote kind (the spec: 5 minutes).', services: ['quote'] },
  sandboxDelayMs: {
    env: 'SANDBOX_DELAY_MS',
    default: '0',
    description: 'Artificial latency of sandbox provider calls made while quoting (bank name lookup).',
    services: ['quote'],
  },
  offrampFees: {
    env: 'OFFRAMP_FEES',
    default: '',
    description:
      'JSON overriding the off-ramp fee schedule, e.g. {"platformFee":"20","processingRate":"0.001","processingCap":"200","stampDuty":"50","stampDutyThreshold":"10000","swapFee":"20"}.',
    services: ['quote'],
  },
  onrampFees: { env: 'ONRAMP_FEES', default: '', description: 'JSON overriding the on-ramp fee schedule (same fields as OFFRAMP_FEES).', services: ['quote'] },
  swapFees: {
    env: 'SWAP_FEES',
    default: '',
    description: 'JSON overriding the swap and transfer fee schedule, e.g. {"platformFeeRate":"0.003","bridgeFeeRate":"0.0005","bridgeFeeMinUsd":"0.50"}.',
    services: ['quote'],
  },
  eventsNamespace: {
    env: 'EVENTS_NAMESPACE',
    default: '',
    description:
      'Prefix of the JetStream streams and subjects of the events and of the request/reply subjects between services (empty in production). Lets several environments share one NATS server without answering each other; the tests use `test`.',
    services: ['gateway', 'quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'chain'],
  },
  jobLeaseMs: {
    env: 'JOB_LEASE_MS',
    default: '30000',
    description:
      "How long a ramp or swap-transfer replica holds a transaction step it claimed; a replica that dies mid-step has its steps taken over after this. A live payout's calls to a bank partner each end within a fifth of it.",
    services: ['ramp', 'swap-transfer'],
  },
  jobConcurrency: {
    env: 'JOB_CONCURRENCY',
    default: '16',
    description:
      "Transaction steps a ramp or swap-transfer replica runs at once. One claimer per replica takes as many due steps as it has free slots, woken when a step is written or ends: idle slots cost nothing. A step on chain holds its slot only for its own requests: while its send is mined it ends pending and is woken by the send's `send.finished` event (docs/capacity.md). Steps mostly wait on other services, so more slots than cores pay. Running steps share the replica's pool (DB_POOL_MAX, beside its event consumers): past it they queue for a connection, so raise both together, with PostgreSQL's max_connections in mind.",
    services: ['ramp', 'swap-transfer'],
  },
  sandboxStepDelayMs: {
    env: 'SANDBOX_STEP_DELAY_MS',
    default: '2000',
    description:
      'How long each sandbox provider step of a transaction takes (swap to CNGN, payout, each leg of a swap or transfer, ...). 0 runs them back to back.',
    services: ['ramp', 'swap-transfer'],
  },
  sandboxDepositWindowSeconds: {
    env: 'SANDBOX_DEPOSIT_WINDOW_SECONDS',
    default: '1800',
    description:
      "How long a non-custodial off-ramp's deposit address waits for the crypto, and an on-ramp's account (the sandbox's, or a live on-ramp's at its bank partner) waits for the Naira, before the transaction fails. A live payment after it is refunded.",
    services: ['ramp'],
  },
  amountLimits: {
    env: 'AMOUNT_LIMITS',
    default: '',
    description: 'JSON overriding minimum and maximum amounts per symbol, e.g. {"USDC":{"min":"1","max":"50000"}}.',
    services: ['quote'],
  },
  webhookAllowHosts: {
    env: 'WEBHOOK_ALLOW_HOSTS',
    default: '',
    description:
      'Comma-separated host names or IPs that webhooks and per-transaction callbacks may target although they are loopback or private (local testing only; never in production).',
    services: ['notifier', 'ramp', 'swap-transfer'],
  },
  webhookCaFile: {
    env: 'WEBHOOK_CA_FILE',
    default: '',
    description: 'PEM file of an extra CA trusted for webhook deliveries, besides the public roots (a test receiver, a private CA).',
    services: ['notifier'],
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    default: '30000',
    description: 'How long a receiver has to answer a delivery with a 2xx (the spec: 30 seconds). A delivery is leased for this long plus 15 s.',
    services: ['notifier'],
  },
  webhookTenantConcurrency: {
    env: 'WEBHOOK_TENANT_CONCURRENCY',
    default: '100',
    description:
      'Deliveries of one tenant (organization and environment) each notifier replica sends at once, of its WEBHOOK_CONCURRENCY: a tenant whose receivers are slow or never answer holds no more slots than about this many (a claim takes at most this many of one tenant, and none of a tenant already at it), so the rest stay free for every other tenant.',
    services: ['notifier'],
  },
  webhookDnsTimeoutMs: {
    env: 'WEBHOOK_DNS_TIMEOUT_MS',
    default: '1500',
    description:
      'How long one DNS query for a webhook or callback host may wait (c-ares, on the event loop: never the thread pool); it is sent WEBHOOK_DNS_TRIES times before the name counts as unresolved (a registration then goes through, checked again at each delivery; a delivery attempt fails and is retried later).',
    services: ['notifier'],
  },
  webhookDnsTries: {
    env: 'WEBHOOK_DNS_TRIES',
    default: '2',
    description: 'How many times a DNS query for a webhook host is sent before it fails (see WEBHOOK_DNS_TIMEOUT_MS).',
    services: ['notifier'],
  },
  webhookDnsServers: {
    env: 'WEBHOOK_DNS_SERVERS',
    default: '',
    description:
      "Comma-separated nameservers (host or host:port) for webhook and callback hosts; empty: the system's (/etc/resolv.conf). localhost names always resolve to loopback, without a query.",
    services: ['notifier'],
  },
  webhookConcurrency: {
    env: 'WEBHOOK_CONCURRENCY',
    default: '200',
    description: 'Deliveries each notifier replica sends at once (its HTTPS connections are kept alive and reused per receiver).',
    services: ['notifier'],
  },
  testChains: {
    env: 'TEST_CHAINS',
    default: '',
    description:
      'JSON of the chains test keys use, merged over the local defaults field by field: base (chain id 84532, http://127.0.0.1:8545), bsc (97, :8546) and arbitrum (421614, :8547), each with `confirmations` 1 (a local node mines a block per transaction), a `hotWalletPath` (m/44\'/60\'/1\'/0/0, 2\', 3\'), 4 send `lanes` (the hot wallet and 3 more keys at the next indexes of its path, which move its tokens by allowance: docs/chains.md, "Send lanes") and `laneGas` "1" (the native coin each extra lane is kept at). A chain with a `localPort` is an anvil node the scripts start and the platform deploys its test contracts on. base and bsc also have an ERC-4337 bundler for the smart accounts of managed wallets, `bundlerUrl` (http://127.0.0.1:4337, :4338), which with a `localBundlerPort` is a local @pimlico/alto the scripts start beside the node, and `paymasterMinDeposit` "1" (below it, the paymaster\'s EntryPoint deposit is alerted on: docs/chains.md, "Smart accounts"); a chain without `bundlerUrl` has no smart accounts. Giving a chain another `rpcUrl` (e.g. {"base":{"rpcUrl":"https://sepolia.base.org","confirmations":5}}), or several in order of preference as `rpcUrls`, points it at that network instead; null turns a chain off.',
    services: ['chain', 'scripts'],
  },
  liveChains: {
    env: 'LIVE_CHAINS',
    default: '',
    description:
      'JSON of the chains live keys use: {"base":{"chainId":8453,"rpcUrls":["https://…","https://…"],"hotWalletPath":"m/44\'/60\'/1\'/0/0"}} (`rpcUrls`: the chain\'s nodes in order of preference, up to 8, failed over between: a node down, on another chain id, or more than 10 blocks behind the newest block any has shown is not used, docs/chains.md "RPC nodes"; `rpcUrl` for one), with `finality` (default `finalized`: a deposit or a send counts once its block is at or below the node\'s finalized block; `safe` the same with the safe block; `depth` by `confirmations` alone, which must then be at least 12) and `confirmations` (default 1 with a finality tag), `lanes` (default 1: the hot wallet alone; up to 16, docs/chains.md "Send lanes") and `laneGas` (required with more than one lane: the native coin, such as "0.01", each extra lane is topped up to from the hot wallet when it falls below half), and `bundlerUrl` (a bundler provider\'s ERC-4337 endpoint for the chain\'s smart accounts; the chain is then refused until the environment\'s paymaster is deployed there) with `paymasterMinDeposit` (required with it: the least, in the native coin, the paymaster\'s EntryPoint deposit may hold before it is alerted on). Empty: no live chain.',
    services: ['chain'],
  },
  chainPollMs: {
    env: 'CHAIN_POLL_MS',
    default: '250',
    description: "Pause between two passes of a chain's watcher and send queues, on the replica that runs the chain.",
    services: ['chain'],
  },
  poolPriceTolerancePercent: {
    env: 'POOL_PRICE_TOLERANCE_PERCENT',
    default: '10',
    description:
      'How far (in percent) a pool a quote would swap through may be priced from the price feed: a pool further away (someone just moved it, or drained it) refuses the quote with 503 PRICE_DEVIATION instead of promising its price, and the quote can be asked again once the pool is back.',
    services: ['quote'],
  },
  poolAverageSeconds: {
    env: 'POOL_AVERAGE_SECONDS',
    default: '1800',
    description:
      "The span (in seconds, 10 to 86,400) of each live chain's DEX pools' time-weighted average price, which a live quote judges a pool's spot price by: the chain's leader reads every pool's price accumulator every tenth of it and keeps three spans of readings (chain.pool_observations); a pool is averaged once it has a reading at least this old. Longer is harder to move and slower to follow the market.",
    services: ['chain'],
  },
  liveApprovalAboveNgn: {
    env: 'LIVE_APPROVAL_ABOVE_NGN',
    default: '5000000',
    description:
      "The most, in Naira, a live ramp may move without an operator's approval: a live off-ramp's payout (`payoutAmount`) or a live on-ramp's delivery (its `fiatAmount`) above it waits (`<kind>.approval_required`, listed by `npm run ops -- held` as `awaitingApproval`) until an operator approves it (`npm run ops -- approve <transactionId> --operator NAME`, recorded as `<kind>.approved` with the name). Empty: no approvals. Test keys never wait.",
    services: ['ramp'],
  },
  screeningDenylistFile: {
    env: 'SCREENING_DENYLIST_FILE',
    default: '',
    description:
      "The path of the screening denylist (one EVM address per line, any case; blank lines and `#` comments skipped; another chain's address is ignored): a live ramp whose counterparty is on it (an off-ramp's deposit sender or source address, an on-ramp's destination address) is held for compliance before any step moves money (`<kind>.compliance_hold`, listed by `npm run ops -- held` as `complianceHolds`): never completed or refunded automatically. Read at start (a path that cannot be read refuses the start) and again within 2 s of each change to the file, without a restart; a file that becomes unreadable keeps the last list read. Empty: nothing is screened (logged at start). Test keys are never screened.",
    services: ['ramp'],
  },
  livePoolTolerancePercent: {
    env: 'LIVE_POOL_TOLERANCE_PERCENT',
    default: '1',
    description:
      "How far (in percent, above 0 and at most 10) a live chain's DEX pool a live quote would swap through may be priced from its own time-weighted average (POOL_AVERAGE_SECONDS): a pool further away (someone is moving it, as anyone can a third party's pool) refuses the quote with 503 PRICE_DEVIATION. Tighter than POOL_PRICE_TOLERANCE_PERCENT, the test pools' gap from the price feed: a live pool has no feed of the platform's to be checked against, only its own past. Keep it at most the ramps' swap tolerance (RAMP_SWAP_TOLERANCE, 1%). Within it a quote is priced at the worse, for the platform, of each pool's spot price and its average, so a pool moved toward the customer gains the customer nothing.",
    services: ['quote'],
  },
  livePoolMinAverageSeconds: {
    env: 'LIVE_POOL_MIN_AVERAGE_SECONDS',
    default: '900',
    description:
      "The shortest span (in seconds, 10 to 86,400) of a live pool's time-weighted average a live quote accepts: a pool whose average (the chain service's POOL_AVERAGE_SECONDS) covers less, or that has none yet (a chain watched for less than a span), refuses the quote with 503 PRICE_DEVIATION. The quote service's own floor, so that a chain service set to a short span cannot make a pool easy to move.",
    services: ['quote'],
  },
  livePoolMaxLagSeconds: {
    env: 'LIVE_POOL_MAX_LAG_SECONDS',
    default: '120',
    description:
      "How old (in seconds, 5 to 3,600) the block a live chain's pools were read at may be, by the quote service's clock: a node that lags (stopped following the chain) shows a spot price and an average that agree while both are stale, so such a read refuses the quote with 503 PRICE_DEVIATION until the chain service reads a recent block.",
    services: ['quote'],
  },
  chainPoolsMaxAgeMs: {
    env: 'CHAIN_POOLS_MAX_AGE_MS',
    default: '250',
    description:
      "How long the reserves of a local test chain's pools are reused for quotes: the chain service reads them at most once per this period, and the quote service keeps what it was answered as long, so a quote's reserves are at most two periods old. A swap's minimum (the slippage tolerance) covers what moves after.",
    services: ['chain', 'quote'],
  },
  chainBridgeFillSeconds: {
    env: 'CHAIN_BRIDGE_FILL_SECONDS',
    default: '120',
    description:
      "How long the relayer has to fill a deposit of the intent bridge between local test chains: a deposit's fill deadline is this many seconds after it is requested; unfilled by then (the sandbox's relayer switch held it), it is refunded on its source chain.",
    services: ['chain'],
  },
  chainStuckAfterMs: {
    env: 'CHAIN_STUCK_AFTER_MS',
    default: '60000',
    description: 'A send with no receipt this long after its latest attempt is signed again at the same nonce with higher fees.',
    services: ['chain'],
  },
  chainLaneMaxPending: {
    env: 'CHAIN_LANE_MAX_PENDING',
    default: '16',
    description:
      "The most sends one send lane (a chain's hot wallet, or one of its extra lanes: a chain's `lanes` setting) has signed and not yet mined at once (mined ones waiting for their finality do not count); more wait queued. A node keeps only so many of one sender's transactions for sure (geth's txpool.accountslots, 16), and one stuck transaction holds up every later nonce of its sender: a chain that must send more at once is given more lanes. Local anvil nodes (test chains with a `localPort`) keep any number and are not capped.",
    services: ['chain'],
  },
  walletAccounts: {
    env: 'WALLET_ACCOUNTS',
    default: '',
    description:
      'Whether a new managed wallet on a chain with smart accounts (a bundler: the chain\'s `bundlerUrl`) gets its own ERC-4337 account as its address, whose deposits stay there, instead of a forwarder swept into the hot wallet (docs/chains.md, "Smart accounts"). Every wallet operation runs from the account (swaps, transfers, on-ramp deliveries, custodial off-ramps); off until the rest of issue 27 (each wallet reconciled with its account, the sponsored gas booked per organization, the steps\' userOperationHash in the API). A wallet keeps the kind it was made with; existing wallets stay forwarders.',
    services: ['ledger'],
  },
  chainSettlementNetMs: {
    env: 'CHAIN_SETTLEMENT_NET_MS',
    default: '1000',
    description:
      "How long an off-ramp's CNGN settlement waits for others to the same provider, token and ledger account before they go out as one transfer of their sum (each off-ramp's share still booked on its own); 0 sends each on its own. Longer saves gas and sends where the chain is dear, and delays each off-ramp's payout by up to as long.",
    services: ['chain'],
  },
  chainMaxFeeGwei: {
    env: 'CHAIN_MAX_FEE_GWEI',
    default: '500',
    description: 'The ceiling of maxFeePerGas in gwei: no send or replacement pays more.',
    services: ['chain'],
  },
  chainReconcileIntervalMs: {
    env: 'CHAIN_RECONCILE_INTERVAL_MS',
    default: '60000',
    description: 'How often the ledger reconciles its books of each chain with the chain (the metric ramp_ledger_chain_drift_assets); 0 turns it off.',
    services: ['ledger'],
  },
  depositMinimums: {
    env: 'DEPOSIT_MINIMUMS',
    default: '',
    description:
      "JSON of the smallest deposit acted on, per token symbol, over the defaults (USDC and USDT 0.01, CNGN 10, ETH 0.000003, BNB 0.00002, cbBTC 0.0000001): a deposit below it is dust, recorded and booked as the platform's (external:dust-…), never credited, swept or refunded, since moving it would cost more gas than it is worth.",
    services: ['chain'],
  },
  chainSweepDelayMs: {
    env: 'CHAIN_SWEEP_DELAY_MS',
    default: '3000',
    description:
      'How long after a deposit is credited its address is swept into the hot wallet: the deposits that arrive at the address meanwhile go with it, one sweep (and its gas) per address, not per deposit. Longer on a chain where gas is dear.',
    services: ['chain'],
  },
  chainOutflowLimits: {
    env: 'CHAIN_OUTFLOW_LIMITS',
    default: '',
    description:
      'JSON of what may leave a chain\'s hot wallet for the outside (transfers, swaps paid to an address, bridge deposits; refunds of deposits are not counted), by chain then token: {"live-base":{"USDC":{"perSend":"50000","perHour":"500000","perOrganizationPerHour":"100000"}}}. A send above perSend is refused (AMOUNT_TOO_LARGE); one that would take the last hour\'s outflow above perHour, or the organization\'s above perOrganizationPerHour, waits until the hour moves on. Empty: no limit (set them for live chains).',
    services: ['chain'],
  },
  treasuryLowWaterMarks: {
    env: 'TREASURY_LOW_WATER_MARKS',
    default: '',
    description:
      'JSON of the least inventory of each token the platform should hold on a chain beyond what its customers are owed there (wallet balances, off-ramps in flight: what on-ramps are delivered from), by chain then token: {"live-base":{"CNGN":"5000000","USDC":"20000"}}. At each reconciliation (CHAIN_RECONCILE_INTERVAL_MS) the ledger sets ramp_treasury_inventory_low for each token below its mark, which RampTreasuryInventoryLow alerts on, and logs it. Empty: no mark (set them for live chains).',
    services: ['ledger'],
  },
  chainSponsoredGasBudgets: {
    env: 'CHAIN_SPONSORED_GAS_BUDGETS',
    default: '',
    description:
      'JSON of the gas the paymaster sponsors for one organization\'s managed wallets (their UserOperations) in any 24 hours, by chain, in its native coin: {"live-base":{"perOrganizationPerDay":"0.05","organizations":{"org_…":"2"}}} (an organization\'s own budget before everyone\'s; "0" sponsors nothing). Once what was sponsored for it in the last 24 hours has reached its budget, an operation from its wallets is refused (INVALID_REQUEST naming organizationId: the step fails with the reason and its hold is released) and counted in ramp_chain_sponsorship_refusals. Empty: no budget (set one for live chains).',
    services: ['chain'],
  },
  chainDriftPauseFraction: {
    env: 'CHAIN_DRIFT_PAUSE_FRACTION',
    default: '0.001',
    description:
      "How far a chain's books and holdings of a token may differ before it counts (a fraction of either: 0.001 is 0.1%, so that a re-mined send's gas does not, a hot wallet missing a share of a token does). Beyond it for CHAIN_DRIFT_PAUSE_ROUNDS reconciliations in a row, the chain's outbound sends are paused until it reconciles again.",
    services: ['ledger'],
  },
  chainDriftPauseRounds: {
    env: 'CHAIN_DRIFT_PAUSE_ROUNDS',
    default: '3',
    description:
      'Reconciliations in a row a chain must drift beyond CHAIN_DRIFT_PAUSE_FRACTION before its outbound sends are paused (a deposit or a send on its way shows for one).',
    services: ['ledger'],
  },
  custodySeed: {
    env: 'CUSTODY_SEED',
    default: '',
    description:
      "The live chains' master seed (a BIP-39 mnemonic) sealed with CUSTODY_SEALING_KEY, as `v1.…` (npm run custody:seal). Required when LIVE_CHAINS is set, and refused then if it is the development seed (whatever NODE_ENV says), the test seed, or a public one (anvil's and Hardhat's default mnemonic, a BIP-39 test vector). Only the chain service reads it.",
    services: ['chain'],
  },
  testCustodySeed: {
    env: 'TEST_CUSTODY_SEED',
    default: '',
    description:
      "The test chains' master seed (a BIP-39 mnemonic) sealed with CUSTODY_SEALING_KEY, as `v1.…`. Required in production; development uses a fixed, documented seed that never holds value. Never the live seed: test and live keys come from different seeds, and no hot wallet address may be both.",
    services: ['chain'],
  },
  custodySealingKey: {
    env: 'CUSTODY_SEALING_KEY',
    default: '',
    description:
      'Base64 of 32 random bytes; seals CUSTODY_SEED and TEST_CUSTODY_SEED (AES-256-GCM). A key of the chain service alone, in a Secret of its own (deploy/base/chain-custody.template.yaml), apart from SECRETS_ENCRYPTION_KEY. Required in production; development uses a fixed, documented key.',
    services: ['chain'],
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
