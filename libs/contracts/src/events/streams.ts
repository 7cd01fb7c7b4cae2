/**
 * Where each service's events live in JetStream. `namespace` (EVENTS_NAMESPACE, empty in production) keeps
 * environments that share one NATS server apart: the tests use `test`, so a developer's running stack and the test
 * suite never share a stream or a durable consumer.
 */
export interface EventStreamName {
  stream: string;
  /** `<prefix>.<event type>`, e.g. `events.ramp.offramp.completed`. */
  subjectPrefix: string;
}

export function rampEvents(namespace = ''): EventStreamName {
  return namespace
    ? { stream: `RAMP_EVENTS_${namespace.toUpperCase()}`, subjectPrefix: `${namespace}.events.ramp` }
    : { stream: 'RAMP_EVENTS', subjectPrefix: 'events.ramp' };
}
