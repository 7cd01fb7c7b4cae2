import { EventLog } from '@ramp/event-store';

/** The ramp service's event log (schema `ramp`). */
export const RAMP_LOG = new EventLog('ramp');
