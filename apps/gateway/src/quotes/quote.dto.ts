import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHAIN_NAMES, OFFRAMP_TOKENS, PRIMARY_CHAINS } from '@ramp/chains';
import { FIAT_CURRENCY, type OfframpQuote, type OnrampQuote, type SwapQuote, type TransferQuote } from '@ramp/contracts';
import { OptionalNumber, OptionalString, RequiredString } from '../edge/validation';

export class OnrampQuoteRequest implements OnrampQuote.Request {
  @ApiProperty({ description: 'Naira to pay, a decimal string with at most 2 places.', example: '50000' })
  @RequiredString(60)
  amount!: string;
  @ApiProperty({ description: 'Token to buy (see GET /transfer/chains).', example: 'USDC' })
  @RequiredString(20)
  tokenSymbol!: string;
  @ApiProperty({ enum: PRIMARY_CHAINS, example: 'base' })
  @RequiredString(20)
  chain!: string;
}

export class OfframpQuoteRequest implements OfframpQuote.Request {
  @ApiProperty({ description: "Crypto to sell, a decimal string with at most the token's decimals.", example: '100' })
  @RequiredString(60)
  amount!: string;
  @ApiProperty({ enum: OFFRAMP_TOKENS, example: 'USDC' })
  @RequiredString(20)
  tokenSymbol!: string;
  @ApiProperty({ description: 'Bank code from GET /onramp/banks.', example: '058' })
  @RequiredString(10)
  bankCode!: string;
  @ApiProperty({ description: '10-digit NUBAN account number, its check digit valid for the bank.', example: '0123456785' })
  @RequiredString(20)
  accountNumber!: string;
  @ApiProperty({ enum: PRIMARY_CHAINS, example: 'base' })
  @RequiredString(20)
  chain!: string;
}

export class SwapQuoteRequest implements SwapQuote.Request {
  @ApiProperty({ example: 'USDC' }) @RequiredString(20) fromToken!: string;
  @ApiProperty({ example: 'ETH' }) @RequiredString(20) toToken!: string;
  @ApiProperty({ description: 'Amount of fromToken.', example: '250' }) @RequiredString(60) amount!: string;
  @ApiProperty({ enum: PRIMARY_CHAINS, example: 'base' }) @RequiredString(20) fromChain!: string;
  @ApiProperty({ enum: PRIMARY_CHAINS, example: 'bsc', description: 'Differs from fromChain for a cross-chain swap.' }) @RequiredString(20) toChain!: string;
  @ApiPropertyOptional({ description: 'Maximum slippage in percent, greater than 0 and at most 50. Default 0.5.', example: 0.5 })
  @OptionalNumber()
  slippage?: number;
}

export class TransferQuoteRequest implements TransferQuote.Request {
  @ApiProperty({ enum: PRIMARY_CHAINS, example: 'base' }) @RequiredString(20) fromChain!: string;
  @ApiProperty({ enum: CHAIN_NAMES, example: 'arbitrum' }) @RequiredString(20) toChain!: string;
  @ApiProperty({ example: 'USDC' }) @RequiredString(20) token!: string;
  @ApiProperty({ example: '100' }) @RequiredString(60) amount!: string;
  @ApiPropertyOptional({ description: 'Destination token when it differs from token (bridge plus swap).', example: 'ETH' })
  @OptionalString(20)
  toToken?: string;
  @ApiPropertyOptional({
    description: 'Recipient on the destination chain; required when the chains differ.',
    example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  })
  @OptionalString(100)
  destinationAddress?: string;
}

export class RampFeesSchema {
  @ApiProperty({ example: '199.25', description: 'Bank-side charges: processing fee (0.1%, capped at 200 NGN) plus stamp duty (50 NGN from 10,000 NGN).' })
  providerFee!: string;
  @ApiProperty({ example: '20.00' }) platformFee!: string;
  @ApiProperty({ example: '20.00', description: '20 NGN when the token is not CNGN, else 0.00.' }) swapFee!: string;
  @ApiProperty({ example: '239.25' }) totalFee!: string;
}

export class SwapFeesSchema {
  @ApiProperty({ example: '0.75', description: 'In fromToken units.' }) platformFee!: string;
  @ApiProperty({ example: '1125.00', description: 'The platform fee in NGN.' }) platformFeeFiat!: string;
  @ApiProperty({ example: '0.5', description: 'In fromToken units; 0 on one chain.' }) bridgeFee!: string;
  @ApiProperty({ example: '1.25', description: 'In fromToken units.' }) totalFee!: string;
}

export class BankAccountSchema {
  @ApiProperty({ example: 'Guaranty Trust Bank' }) bankName!: string;
  @ApiProperty({ example: '058' }) bankCode!: string;
  @ApiProperty({ example: '0123456785' }) accountNumber!: string;
  @ApiProperty({ example: 'NGOZI OKONKWO' }) accountName!: string;
}

export class OnrampQuoteSchema {
  @ApiProperty({ example: 'qt_01JDX3J1W5Z8Q4N6V7M2K9P0RS' }) quoteId!: string;
  @ApiProperty({ example: '50000.00' }) fiatAmount!: string;
  @ApiProperty({ enum: [FIAT_CURRENCY] }) fiatCurrency!: string;
  @ApiProperty({ example: '33.088061' }) cryptoAmount!: string;
  @ApiProperty({ example: 'USDC' }) tokenSymbol!: string;
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({ example: '1507.5', description: 'NGN per token.' }) rate!: string;
  @ApiProperty({ type: RampFeesSchema }) fees!: RampFeesSchema;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:05:00.000Z' }) expiresAt!: string;
}

export class OfframpQuoteSchema {
  @ApiProperty({ example: 'qt_01JDX3J1W5Z8Q4N6V7M2K9P0RS' }) quoteId!: string;
  @ApiProperty({ example: '100' }) cryptoAmount!: string;
  @ApiProperty({ example: 'USDC' }) tokenSymbol!: string;
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({ example: '149250.00', description: "The crypto's value at the rate, before fees." }) fiatAmount!: string;
  @ApiProperty({ enum: [FIAT_CURRENCY] }) fiatCurrency!: string;
  @ApiProperty({ example: '1492.5', description: 'NGN per token.' }) rate!: string;
  @ApiProperty({ type: RampFeesSchema }) fees!: RampFeesSchema;
  @ApiProperty({ example: '149010.75', description: 'What the bank account receives: fiatAmount minus totalFee.' }) payoutAmount!: string;
  @ApiProperty({ type: BankAccountSchema }) bankAccount!: BankAccountSchema;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:05:00.000Z' }) expiresAt!: string;
}

export class SwapRouteSchema {
  @ApiProperty({ example: 1 }) steps!: number;
  @ApiProperty({ example: '~15 seconds' }) estimatedTime!: string;
  @ApiProperty({ type: [String], example: ['Aerodrome'] }) providers!: string[];
}

export class SwapQuoteSchema {
  @ApiProperty({ example: 'qt_01JDX3J1W5Z8Q4N6V7M2K9P0RS' }) quoteId!: string;
  @ApiProperty({ example: 'USDC' }) fromToken!: string;
  @ApiProperty({ example: 'ETH' }) toToken!: string;
  @ApiProperty({ example: 'base' }) fromChain!: string;
  @ApiProperty({ example: 'base' }) toChain!: string;
  @ApiProperty({ example: '250' }) fromAmount!: string;
  @ApiProperty({ example: '0.077890625' }) toAmount!: string;
  @ApiProperty({ example: '0.077501171', description: 'The least toAmount the swap executes for (slippage applied).' }) minimumToAmount!: string;
  @ApiProperty({ example: 0.5 }) slippage!: number;
  @ApiProperty({ example: '0.0003125', description: 'toToken per fromToken.' }) rate!: string;
  @ApiProperty({ example: true }) isCrossChain!: boolean;
  @ApiProperty({ type: SwapFeesSchema }) fees!: SwapFeesSchema;
  @ApiProperty({ type: SwapRouteSchema }) route!: SwapRouteSchema;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:05:00.000Z' }) expiresAt!: string;
}

export class TransferRouteSchema {
  @ApiProperty({ example: 1 }) steps!: number;
  @ApiProperty({ example: '~3 minutes' }) estimatedTime!: string;
  @ApiProperty({ example: 'Across' }) bridge!: string;
}

export class TransferQuoteSchema {
  @ApiProperty({ example: 'qt_01JDX3J1W5Z8Q4N6V7M2K9P0RS' }) quoteId!: string;
  @ApiProperty({ example: 'base' }) fromChain!: string;
  @ApiProperty({ example: 'arbitrum' }) toChain!: string;
  @ApiProperty({ example: 'USDC' }) fromToken!: string;
  @ApiProperty({ example: 'USDC' }) toToken!: string;
  @ApiProperty({ example: '100' }) fromAmount!: string;
  @ApiProperty({ example: '99.2' }) toAmount!: string;
  @ApiPropertyOptional({ type: String, example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }) destinationAddress?: string;
  @ApiProperty({ type: SwapFeesSchema }) fees!: SwapFeesSchema;
  @ApiProperty({ type: TransferRouteSchema }) route!: TransferRouteSchema;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:05:00.000Z' }) expiresAt!: string;
}
