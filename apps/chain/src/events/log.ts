import { EventLog } from '@ramp/event-store';

/** The chain service's event log (schema `chain`): what it tells the other services, relayed to `events.chain.<type>`. */
export const CHAIN_LOG = new EventLog('chain');
