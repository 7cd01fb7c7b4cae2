import { Controller, Get, Inject, Req } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CHAIN_TYPES, ChainList, SETTLEMENTS } from '@ramp/contracts';
import { Forwarder } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';

export class TokenSchema {
  @ApiProperty({ example: 'USDC' }) symbol!: string;
  @ApiProperty({ example: 'USD Coin' }) name!: string;
  @ApiProperty({ example: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }) contractAddress!: string;
  @ApiProperty({ example: 6 }) decimals!: number;
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({
    example: 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains/smartchain/assets/0x55d398326f99059fF775485246999027B3197955/logo.png',
  })
  logoUrl!: string;
}

export class DexSchema {
  @ApiProperty({ example: 'Uniswap V2' }) name!: string;
  @ApiProperty({ description: 'The router of the pools (`getAmountsOut`, `swapExactTokensForTokens`).', example: '0x5FbDB2315678afecb367f032d93F642f64180aa3' })
  router!: string;
  @ApiProperty({ description: 'The factory of the pools (`getPair`).', example: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' }) factory!: string;
  @ApiProperty({ description: 'The token every pool pairs with: a swap between two others goes through it.', example: 'USDC' }) hub!: string;
  @ApiProperty({
    description: "The wrapped native coin (WETH, WBNB): the native coin's side of its pool.",
    example: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  })
  wrappedNative!: string;
}

export class IntentBridgeSchema {
  @ApiProperty({ example: 'Ramp Intents' }) name!: string;
  @ApiProperty({
    description: "The intent pool on this chain: a route's bridge deposits here (`Deposited`), and fills deposits of other chains here (`Filled`).",
    example: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
  })
  pool!: string;
}

export class ChainSchema {
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({ example: 8453 }) chainId!: number;
  @ApiProperty({ example: 'Base' }) name!: string;
  @ApiProperty({ enum: CHAIN_TYPES, description: '`primary` marks the chains where managed wallets operate.' }) type!: string;
  @ApiPropertyOptional({
    description:
      "The network's public block explorer. Absent on a local test chain (a node the platform runs, with the sandbox faucet): its transactions are on that node alone, so look them up there (`eth_getTransactionReceipt` on the node's RPC).",
    example: 'https://basescan.org',
  })
  explorerUrl?: string;
  @ApiProperty({ type: [TokenSchema] }) tokens!: TokenSchema[];
  @ApiProperty({
    enum: SETTLEMENTS,
    description:
      "`onchain`: transfers on this chain are real transactions of the network your key's environment uses (test keys: a test network, whose `chainId` and token `contractAddress` values are shown); `simulated`: a sandbox rail, whose hashes are on no chain.",
  })
  settlement!: string;
  @ApiPropertyOptional({ description: '`onchain` chains: the blocks a deposit needs before it is credited.', example: 1 }) confirmations?: number;
  @ApiPropertyOptional({
    type: DexSchema,
    description:
      "The DEX this chain's swaps run on. Local test chains: the platform's pools, which swap quotes, and transfer quotes with a swap, on this chain are priced from (a large amount shows its price impact); anyone may trade on them, which moves the next quote. Live chains: a third party's (Uniswap V2 on base, PancakeSwap V2 on bsc).",
  })
  dex?: DexSchema;
  @ApiPropertyOptional({
    type: IntentBridgeSchema,
    description:
      "Local test chains: the platform's intent bridge. A swap or transfer between two chains that have it bridges by intent, on chain: a deposit into the source chain's pool, filled on the destination chain by the platform's relayer before a deadline, else refunded (POST /sandbox/relayer holds the relayer).",
  })
  bridge?: IntentBridgeSchema;
}

@Controller('transfer/chains')
export class ChainsHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Get()
  @ApiEndpoint({
    operationId: 'listChains',
    tag: 'Chains',
    summary: 'List supported chains with their tokens',
    description:
      'The seven chains: `base` and `bsc` are `primary` (managed wallets, and the source of swaps and transfers), the others are transfer destinations. ' +
      'Each token has its symbol, contract address (native tokens: `0xEeee…EEeE` on EVM chains) and decimals, which bound the decimal places of amounts. ' +
      "The chains are those of your key's environment: with a test key, a chain with `settlement: onchain` is a test network (by default a local node of the platform) with its own `chainId` and test token contracts; a live key sees mainnets. Needs only the key: live keys may read it before live mode.",
    status: 200,
    data: [ChainSchema],
    errors: [],
  })
  async list(@Req() request: FastifyRequest) {
    return this.forwarder.get(ChainList.contract, request, {}, { status: 200, needsProviders: false });
  }
}
