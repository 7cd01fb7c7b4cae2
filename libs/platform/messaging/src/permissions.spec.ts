import { readFileSync } from 'fs';
import { resolve } from 'path';
import { integrationEvents, rampEvents, WalletCredit } from '@ramp/contracts';
import { NATS_SERVICE_USERS, natsPermissionsOf, natsServerAuthorization, SERVICE_ACCESS } from './permissions';

describe('NATS permissions - each service its own subjects', () => {
  it('deploy/nats/authorization.conf is the rendering of SERVICE_ACCESS (run `npm run nats:config` after a change)', () => {
    const onDisk = readFileSync(resolve(__dirname, '../../../../deploy/nats/authorization.conf'), 'utf8');
    expect(onDisk).toBe(natsServerAuthorization());
  });

  it('every contract a service calls is served by a service, under that service name', () => {
    const called = NATS_SERVICE_USERS.flatMap((service) => SERVICE_ACCESS[service].calls.map((contract) => contract.subject.split('.')[0]));
    expect(called.filter((owner) => !NATS_SERVICE_USERS.includes(owner as never))).toEqual([]);
  });

  it('lets only the ledger serve a wallet credit, and only ramp and swap-transfer ask for one', () => {
    const credit = `test.${WalletCredit.contract.subject}`;
    const publishing = NATS_SERVICE_USERS.filter((service) => natsPermissionsOf(service, 'test').publish.allow.includes(credit));
    const serving = NATS_SERVICE_USERS.filter((service) =>
      natsPermissionsOf(service, 'test').subscribe.allow.some((allowed) => allowed === 'test.ledger.v1.>'),
    );
    expect([publishing, serving]).toEqual([['ramp', 'swap-transfer'], ['ledger']]);
  });

  it('lets a service read its own inbox only, and answer only the requests it is given (no grant on an inbox)', () => {
    for (const service of NATS_SERVICE_USERS) {
      const permissions = natsPermissionsOf(service);
      expect([service, permissions.subscribe.allow.filter((subject) => subject.startsWith('_INBOX'))]).toEqual([service, [`_INBOX.${service}.>`]]);
      expect([service, permissions.publish.allow.filter((subject) => subject.startsWith('_INBOX')), permissions.allow_responses]).toEqual([service, [], true]);
    }
  });

  it("lets only ramp and swap-transfer (a wallet's funds between its account and the hot wallet) transfer, only ramp mint, and only swap-transfer bridge", () => {
    const callers = (subject: string) => NATS_SERVICE_USERS.filter((service) => natsPermissionsOf(service).publish.allow.includes(subject));
    expect(callers('chain.v1.transfers.send')).toEqual(['ramp', 'swap-transfer']);
    expect(callers('chain.v1.bridges.send')).toEqual(['swap-transfer']);
    expect(callers('chain.v1.faucet.send').sort()).toEqual(['gateway', 'ledger', 'ramp']);
  });

  it("publishes a service's events only from that service, and each integration event only from the service of its type", () => {
    const publishers = (subject: string) =>
      NATS_SERVICE_USERS.filter((service) => natsPermissionsOf(service).publish.allow.some((allowed) => allowed === subject));
    expect(publishers(`${rampEvents().subjectPrefix}.>`)).toEqual(['ramp']);
    expect(publishers(`${integrationEvents().subjectPrefix}.offramp.>`)).toEqual(['ramp']);
    expect(publishers(`${integrationEvents().subjectPrefix}.swap.>`)).toEqual(['swap-transfer']);
    // Nothing but the JetStream API of its own streams and consumers: a wildcard only after a durable's own name (the
    // filter subject nats.js puts there), none over every stream or consumer.
    for (const service of NATS_SERVICE_USERS) {
      const durables = SERVICE_ACCESS[service].consumes.flatMap(({ durables: names }) => names);
      const wild = natsPermissionsOf(service).publish.allow.filter((subject) => /[>*]/.test(subject) && subject.startsWith('$JS'));
      expect([service, wild.filter((subject) => !durables.some((durable) => subject.endsWith(`.${durable}.>`)))]).toEqual([service, []]);
    }
    // Only a stream's publishers may change it; its consumers may only create it as configured.
    const updaters = (stream: string) =>
      NATS_SERVICE_USERS.filter((service) => natsPermissionsOf(service).publish.allow.includes(`$JS.API.STREAM.UPDATE.${stream}`));
    expect(updaters(rampEvents().stream)).toEqual(['ramp']);
    expect(updaters(integrationEvents().stream)).toEqual(['ramp', 'swap-transfer']);
    expect(updaters('DEAD_LETTERS')).toEqual([]);
  });
});
