import type { Config } from '@ramp/config';
import { HdCustody, lanePath, resolveChains, type ChainSettings } from '@ramp/evm';
import { SecretBox } from '@ramp/keys';

/** The keys of a chain's lanes (the hot wallet's first). */
const lanePaths = (settings: ChainSettings) => Array.from({ length: settings.lanes }, (_, lane) => lanePath(settings.hotWalletPath, lane));

/** Every chain of both environments (TEST_CHAINS, LIVE_CHAINS) and each environment's custody, from the settings. */
export interface ConfiguredChains {
  test: ChainSettings[];
  live: ChainSettings[];
  custody: { test: HdCustody; live: HdCustody | undefined };
}

/**
 * The chains the settings configure, and the custody that signs for them: each environment's seed, sealed with the
 * chain service's own key, refused when the two could sign for each other (HdCustody.forEnvironments). What the chain
 * service and its operator commands (`chain:deploy`) both start from.
 */
export function configuredChains(config: Config): ConfiguredChains {
  const test = resolveChains('test', config.json('testChains'), 'TEST_CHAINS');
  const live = resolveChains('live', config.json('liveChains'), 'LIVE_CHAINS');
  const custody = HdCustody.forEnvironments({
    testSeed: config.string('testCustodySeed'),
    liveSeed: config.string('custodySeed'),
    box: new SecretBox(config.string('custodySealingKey'), config.isProduction),
    production: config.isProduction,
    testPaths: test.flatMap(lanePaths),
    livePaths: live.flatMap(lanePaths),
  });
  return { test, live, custody };
}
