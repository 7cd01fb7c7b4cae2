/** The PostgreSQL channel on which every change to a key (today: a revocation) is announced, in its transaction. */
export const KEY_CHANGES_CHANNEL = 'gateway_api_key_changes';

/**
 * A replica answers from its cache only while its listening connection has answered a query sent less than this long
 * ago; {@link KeyStore.revoke} waits this long (and a margin) after its commit before it returns. See {@link KeyCache}.
 */
export const KEY_CACHE_LEASE_MS = 500;
