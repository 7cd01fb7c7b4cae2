export * from './route/plan';
export * from './route/route';
export * from './route/view';
export * from './swap/swap';
export * from './transfer/transfer';

import { SWAP_KIND } from './swap/swap';
import { TRANSFER_KIND } from './transfer/transfer';

/** The transaction kinds of the swap-transfer service's log. */
export const ROUTE_KINDS = [SWAP_KIND, TRANSFER_KIND] as const;
