import type { TransactionKind } from '@ramp/transactions';
import { evolveOfframp, initialOfframpState, type OfframpEvent, type OfframpState } from './offramp';
import { evolveOnramp, initialOnrampState, type OnrampEvent, type OnrampState } from './onramp';
import { offrampView, onrampView } from './transaction-view';

export const OFFRAMP_KIND: TransactionKind<OfframpState, OfframpEvent> = {
  type: 'offramp',
  initialState: initialOfframpState,
  evolve: evolveOfframp,
  view: offrampView,
};
export const ONRAMP_KIND: TransactionKind<OnrampState, OnrampEvent> = {
  type: 'onramp',
  initialState: initialOnrampState,
  evolve: evolveOnramp,
  view: onrampView,
};
/** The transaction kinds of the ramp service's log. */
export const RAMP_KINDS = [OFFRAMP_KIND, ONRAMP_KIND] as const;
