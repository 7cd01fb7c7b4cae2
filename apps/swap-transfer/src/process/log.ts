import { EventLog } from '@ramp/event-store';

/** The swap-transfer service's event log (schema `swap_transfer`). */
export const SWAP_TRANSFER_LOG = new EventLog('swap_transfer');
