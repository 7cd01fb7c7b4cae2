import { CHAIN_SCHEMA } from '../context/chain-context';

/**
 * SQL: whether the deposit row `d` (to the hot wallet) was brought by one of the hot wallet's own sends whose booking
 * covers it: a sweep (which moves nothing in the books), a swap paid to the hot wallet (send.finished books its output),
 * or a send of the intent bridge (a repayment or a refund from the pool, booked as arriving; a fill to the hot wallet
 * itself, booked as nothing).
 * Nothing else the hot wallet sends to itself is excluded: it is booked as leaving, so its arrival must be booked too.
 * Parameters: $1 the chain id, and the named ones.
 */
export function ownArrival(d: string, hot: string, hotLower: string): string {
  return `exists (select 1 from ${CHAIN_SCHEMA}.chain_sends s left join ${CHAIN_SCHEMA}.swaps w on w.chain = s.chain and w.send_key = s.idempotency_key
                   where s.chain = $1 and s.sender = ${hot} and s.attempts ? ${d}.tx_hash
                     and (s.kind in ('sweep', 'bridge') or w.to_address = ${hotLower}))`;
}

/**
 * SQL: whether the deposit row `d` (to a managed wallet's account) was brought by a transfer or a swap of the hot
 * wallet into that wallet (`toWallet`: an on-ramp's delivery, a route's way back or last leg): a move within the
 * platform's holdings that the books show as the wallet's, not a deposit. Parameters: $1 the chain id.
 */
export function walletArrival(d: string): string {
  return `(exists (select 1 from ${CHAIN_SCHEMA}.transfers t join ${CHAIN_SCHEMA}.chain_sends s on s.chain = t.chain and s.idempotency_key = t.send_key
                    where t.chain = $1 and t.to_wallet is not null and lower(t.to_address) = ${d}.to_address and s.attempts ? ${d}.tx_hash)
          or exists (select 1 from ${CHAIN_SCHEMA}.swaps w join ${CHAIN_SCHEMA}.chain_sends s on s.chain = w.chain and s.idempotency_key = w.send_key
                    where w.chain = $1 and w.to_wallet is not null and w.to_address = ${d}.to_address and s.attempts ? ${d}.tx_hash))`;
}
