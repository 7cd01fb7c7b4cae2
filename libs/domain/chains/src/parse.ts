import { invalidField } from '@ramp/contracts';
import { isValidAddress } from './addresses';
import { CHAIN_NAMES, chainFamily, findToken, isChainName, type ChainName, type TokenDescriptor } from './registry';

/** Echoing request text in an error message is capped, so a huge or hostile value cannot flood logs and responses. */
const MAX_ECHOED_LENGTH = 20;

const EVM_ADDRESS_RULE = 'must be an EVM address (0x followed by 40 hex digits, EIP-55 checksummed or lowercase)';
const SOLANA_ADDRESS_RULE = 'must be a Solana address (base58, 32 to 44 characters, decoding to a 32-byte public key)';

/**
 * Reads a chain field of a request, allowing only `allowed` (all seven by default; `PRIMARY_CHAINS` where the
 * platform holds funds). The result is narrowed to the allowed names.
 */
export function parseChain<T extends ChainName = ChainName>(
  raw: unknown,
  field: string,
  allowed: readonly T[] = CHAIN_NAMES as readonly ChainName[] as readonly T[],
): T {
  if (!isChainName(raw) || !(allowed as readonly ChainName[]).includes(raw)) {
    throw invalidField(field, `must be one of ${allowed.join(', ')}`, 'UNSUPPORTED_CHAIN');
  }
  return raw as T;
}

/** Reads a token symbol field that must name a token of the chain (case-sensitive: `cbBTC`). */
export function parseToken(chain: ChainName, raw: unknown, field: string): TokenDescriptor {
  if (typeof raw !== 'string' || raw === '') {
    throw invalidField(field, 'must be a token symbol string, like "USDC"; see GET /transfer/chains');
  }
  const token = findToken(chain, raw);
  if (!token) {
    throw invalidField(field, `${raw.slice(0, MAX_ECHOED_LENGTH)} is not available on ${chain}; see GET /transfer/chains`, 'UNSUPPORTED_TOKEN');
  }
  return token;
}

/** Reads a recipient address field, valid for the chain's family (EVM or Solana); returns it unchanged. */
export function parseAddress(chain: ChainName, raw: unknown, field: string): string {
  if (typeof raw === 'string' && isValidAddress(chain, raw)) return raw;
  throw invalidField(field, chainFamily(chain) === 'solana' ? SOLANA_ADDRESS_RULE : EVM_ADDRESS_RULE, 'INVALID_ADDRESS');
}
