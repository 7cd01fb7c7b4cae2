import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ApiClient } from './http';

/**
 * An integrator's end user on a local test chain: a fresh key, given test tokens (and the coin for gas) by the
 * platform's own faucet (`POST /sandbox/faucet`), each transfer waited for. What it then sends is an outside wallet's.
 */
export async function endUserWith(api: ApiClient, chain: string, rpcUrl: string, tokens: Record<string, string>) {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = createPublicClient({ transport: http(rpcUrl) });
  for (const [tokenSymbol, amount] of Object.entries(tokens)) {
    const sent = await api.post('/sandbox/faucet', { chain, address: account.address, tokenSymbol, amount });
    if (sent.status !== 200) throw new Error(`the faucet refused ${amount} ${tokenSymbol}: ${sent.text}`);
    await client.waitForTransactionReceipt({ hash: sent.body.data.transactionHash as Hex });
  }
  return { account, wallet: createWalletClient({ account, transport: http(rpcUrl) }) };
}
