import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, maxUint256, parseAbi, parseGwei, type Address, type Hex } from 'viem';
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

/**
 * Someone else trading on a local chain's pools (through the router, as anyone may): `push` buys `token` with the
 * `hubAmount` of the hub (USDC) it was given, so its price rises and a swap into it quoted before gives less; `restore` sells it all back, which
 * leaves the pool within its fees of where it was for the tests after. The platform's own slippage failures are made
 * this way on chain, never by a magic amount.
 */
export async function poolTrader(api: ApiClient, chain: string, rpcUrl: string, token: string, hubAmount: string) {
  const network = (await api.get('/transfer/chains')).body.data.find((candidate: any) => candidate.chain === chain);
  if (!network?.dex) throw new Error(`${chain} has no pools`);
  const tokens: Record<string, { contractAddress: Address; decimals: number }> = Object.fromEntries(network.tokens.map((entry: any) => [entry.symbol, entry]));
  // The registry's stand-in address of the native coin (0xEeee…): its pool holds the wrapped coin.
  const native: string = network.tokens.find((entry: any) => /^0xe{40}$/i.test(entry.contractAddress)).symbol;
  const poolToken = (symbol: string): Address => (symbol === native ? network.dex.wrappedNative : tokens[symbol]!.contractAddress);
  const hub = network.dex.hub as string;
  const trader = await endUserWith(api, chain, rpcUrl, { [native]: '1', [hub]: hubAmount });
  const client = createPublicClient({ transport: http(rpcUrl) });
  const send = async (to: Address, data: Hex) => {
    // A gas limit of its own, well above a swap's: an estimate is exact for the state and the block it was made on, and
    // the pair's once-a-block price update (or another send before it in its block) can make the mined swap cost more:
    // one ran out of gas in CI (110,189 of its estimated 111,051: the pair's call out of gas, its 1/64 left to the router).
    const receipt = await client.waitForTransactionReceipt({ hash: await trader.wallet.sendTransaction({ chain: null, to, data, gas: TRADER_GAS }) });
    if (receipt.status !== 'success') {
      // Why, for the failure's message: the same call replayed on the state it ran on.
      const reason = await client.call({ account: trader.account.address, to, data, blockNumber: receipt.blockNumber - 1n }).then(
        () => 'it succeeds when replayed',
        (error: Error) => error.message.split('\n')[0],
      );
      throw new Error(`the trader's transaction ${receipt.transactionHash} reverted: ${reason}`);
    }
  };
  const approval = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [network.dex.router, maxUint256] });
  const swapCall = (from: Address, to: Address, amount: bigint) =>
    encodeFunctionData({ abi: ROUTER_ABI, functionName: 'swapExactTokensForTokens', args: [amount, 0n, [from, to], trader.account.address, maxUint256] });
  const swap = async (from: Address, to: Address, amount: bigint) => {
    // Nothing to sell (a push that bought nothing): nothing to send.
    if (amount === 0n) return;
    await send(from, approval);
    await send(network.dex.router, swapCall(from, to, amount));
  };
  const balanceOf = (address: Address) => client.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [trader.account.address] });
  return {
    trader,
    // Everything the trader holds of the hub: `hubAmount` at first, a little less after each round trip's fees.
    push: async () => swap(poolToken(hub), poolToken(token), await balanceOf(poolToken(hub))),
    restore: async () => swap(poolToken(token), poolToken(hub), await balanceOf(poolToken(token))),
    /**
     * The push left in the node's pool, not waited for (a test that mines by hand: anvil's automine off): its approval
     * and swap with a tip far above the platform's, so that a block mined with them holds them first. The swap's hash.
     */
    pushPending: async (): Promise<Hex> => {
      const [from, to] = [poolToken(hub), poolToken(token)];
      const fees = { gas: TRADER_GAS, maxFeePerGas: parseGwei('500'), maxPriorityFeePerGas: parseGwei('400') };
      const nonce = await client.getTransactionCount({ address: trader.account.address, blockTag: 'pending' });
      await trader.wallet.sendTransaction({ chain: null, to: from, data: approval, nonce, ...fees });
      return trader.wallet.sendTransaction({ chain: null, to: network.dex.router, data: swapCall(from, to, await balanceOf(from)), nonce: nonce + 1, ...fees });
    },
  };
}

const TRADER_GAS = 400_000n;
const ROUTER_ABI = parseAbi([
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
]);
