import { readFileSync } from 'fs';
import { resolve } from 'path';
import { integrationEvents, rampEvents, WalletCredit } from '@ramp/contracts';
import { callersOf, NATS_SERVICE_USERS, natsPermissionsOf, natsServerAuthorization, SERVICE_ACCESS } from './permissions';

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
    const serving = NATS_SERVICE_USERS.filter((service) => natsPermissionsOf(service, 'test').subscribe.allow.some((allowed) => allowed === 'test.ledger.v1.>'));
    expect([publishing, serving]).toEqual([['ramp', 'swap-transfer'], ['ledger']]);
  });

  it('answers go to the inboxes of the callers only', () => {
    expect(callersOf('ledger')).toEqual(['gateway', 'ramp', 'swap-transfer']);
    expect(callersOf('gateway')).toEqual(['notifier']);
    expect(natsPermissionsOf('notifier').publish.allow.filter((subject) => subject.startsWith('_INBOX'))).toEqual(['_INBOX.gateway.>']);
    expect(natsPermissionsOf('ledger').publish.allow.filter((subject) => subject.startsWith('_INBOX'))).toEqual(['_INBOX.gateway.>', '_INBOX.ramp.>', '_INBOX.swap-transfer.>']);
    // Each subscribes to its own inbox, never another's.
    for (const service of NATS_SERVICE_USERS) expect(natsPermissionsOf(service).subscribe.allow.filter((subject) => subject.startsWith('_INBOX'))).toEqual([`_INBOX.${service}.>`]);
  });

  it("publishes a service's events only from that service, and each integration event only from the service of its type", () => {
    const publishers = (subject: string) => NATS_SERVICE_USERS.filter((service) => natsPermissionsOf(service).publish.allow.some((allowed) => allowed === subject));
    expect(publishers(`${rampEvents().subjectPrefix}.>`)).toEqual(['ramp']);
    expect(publishers(`${integrationEvents().subjectPrefix}.offramp.>`)).toEqual(['ramp']);
    expect(publishers(`${integrationEvents().subjectPrefix}.swap.>`)).toEqual(['swap-transfer']);
    // Nothing but the JetStream API of its own streams and consumers: no wildcard over every stream.
    for (const service of NATS_SERVICE_USERS) {
      expect([service, natsPermissionsOf(service).publish.allow.filter((subject) => /^\$JS\.API\.(STREAM|CONSUMER)\.[A-Z.]*>$/.test(subject) || subject === '>')]).toEqual([service, []]);
    }
  });
});
