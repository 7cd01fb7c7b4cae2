import { existsSync, readFileSync } from 'fs';
import { join, resolve } from 'path';
import * as contracts from '@ramp/contracts';
import { NATS_SERVICE_USERS, SERVICE_ACCESS, type NatsServiceUser } from '@ramp/messaging';
import { filesUnder, isBuilt } from './files.spec-helper';

/**
 * SERVICE_ACCESS (what nats-server lets each service do) against the code: every contract an app's code calls is
 * granted to it, and every contract granted to it is called by its code or by the libraries it runs transactions with
 * (process-kit and service-kit, whose calls the apps share: which of those an app uses is SERVICE_ACCESS's to say).
 */
const ROOT = resolve(__dirname, '..');
const SHARED = ['libs/platform/process-kit/src', 'libs/platform/service-kit/src'];

/** The subjects of the contracts `dir`'s code names as `X.contract` outside a `@Handles(...)` (which serves one). */
function calledIn(dir: string): Set<string> {
  const subjects = new Set<string>();
  for (const file of filesUnder(join(ROOT, dir), isBuilt)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.includes('@Handles(')) continue;
      for (const match of line.matchAll(/\b([A-Z][A-Za-z]+)\.contract\b/g)) {
        const subject = (contracts as unknown as Record<string, { contract?: { subject?: string } }>)[match[1]!]?.contract?.subject;
        if (subject) subjects.add(subject);
      }
    }
  }
  return subjects;
}

describe('NATS access - SERVICE_ACCESS matches what the code calls', () => {
  const shared = new Set(SHARED.flatMap((dir) => [...calledIn(dir)]));
  const apps = NATS_SERVICE_USERS.filter((app) => existsSync(join(ROOT, 'apps', app, 'src')));

  it('covers every service, and reads the calls out of the code', () => {
    expect(apps).toEqual(NATS_SERVICE_USERS);
    expect(calledIn('apps/gateway/src').size).toBeGreaterThan(20);
    expect([...calledIn('apps/notifier/src')]).toEqual(['gateway.v1.keys.signing-secret']);
  });

  it.each(apps)('grants %s every contract its code calls', (app: NatsServiceUser) => {
    const granted = new Set(SERVICE_ACCESS[app].calls.map((contract) => contract.subject));
    expect([...calledIn(`apps/${app}/src`)].filter((subject) => !granted.has(subject))).toEqual([]);
  });

  it.each(apps)('grants %s no contract that neither its code nor the shared libraries call', (app: NatsServiceUser) => {
    const own = calledIn(`apps/${app}/src`);
    expect(SERVICE_ACCESS[app].calls.map((contract) => contract.subject).filter((subject) => !own.has(subject) && !shared.has(subject))).toEqual([]);
  });
});
