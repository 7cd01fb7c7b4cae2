import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  FAILURE_REASON_NAMES,
  FAILURE_REASONS,
  FIAT_CURRENCY,
  RAMP_HASH_STEPS,
  ROUTE_STEP_KINDS,
  ROUTE_STEP_STATUSES,
  SETTLEMENTS,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  type FailureReason,
} from '@ramp/contracts';
import { catalogue } from '../openapi/envelopes';

export class PaymentInstructionsSchema {
  @ApiProperty({ example: 'Wema Bank' }) bankName!: string;
  @ApiProperty({ example: '035' }) bankCode!: string;
  @ApiProperty({ example: '0123456789' }) accountNumber!: string;
  @ApiProperty({ example: 'RAMP CHECKOUT' }) accountName!: string;
  @ApiProperty({ description: 'Exactly this many NGN: another amount is refunded and fails the on-ramp.', example: '50000' }) amount!: string;
  @ApiProperty({ description: 'Pay before this; later payments are refunded.', format: 'date-time', example: '2026-11-23T10:05:00.000Z' }) expiresAt!: string;
}

export class BankAccountSchema {
  @ApiProperty() bankName!: string;
  @ApiProperty() accountNumber!: string;
  @ApiProperty() accountName!: string;
  @ApiPropertyOptional() bankCode?: string;
}

export class RampDetailsSchema {
  @ApiProperty({ example: '149250.00' }) fiatAmount!: string;
  @ApiProperty({ enum: [FIAT_CURRENCY] }) fiatCurrency!: string;
  @ApiProperty({ type: BankAccountSchema }) bankAccount!: BankAccountSchema;
  @ApiPropertyOptional({ description: 'Extra, off-ramps: the NGN the bank account receives (`fiatAmount` less `fees.totalFee`).', example: '149010.75' })
  payoutAmount?: string;
  @ApiPropertyOptional({ description: 'Extra: the quoted rate, NGN per token.', example: '1492.5' }) rate?: string;
}

export class TransactionFeesSchema {
  @ApiProperty({ description: 'Ramps: NGN. Swaps and transfers: in the source token.', example: '20.00' }) platformFee!: string;
  @ApiProperty({ description: 'Ramps: processing plus stamp duty, NGN. Swaps and transfers: the bridge fee, in the source token.', example: '199.25' })
  providerFee!: string;
  @ApiProperty({ example: '239.25' }) totalFee!: string;
  @ApiPropertyOptional({ description: 'Ramps with a token other than CNGN.', example: '20.00' }) swapFee?: string;
  @ApiPropertyOptional({ description: 'Swaps and transfers: the bridge fee (0 on one chain), in the source token.', example: '0.5' }) bridgeFee?: string;
  @ApiPropertyOptional({ description: 'Swaps and transfers: the platform fee in NGN.', example: '450.00' }) platformFeeFiat?: string;
}

export class SwapDetailsSchema {
  @ApiProperty({ example: 'USDC' }) fromToken!: string;
  @ApiProperty({ example: 'ETH' }) toToken!: string;
  @ApiProperty({ example: '100' }) fromAmount!: string;
  @ApiProperty({ description: 'What the swap gives: quoted while pending, delivered once completed.', example: '0.03115625' }) toAmount!: string;
  @ApiPropertyOptional({ example: 'base' }) fromChain?: string;
  @ApiPropertyOptional({ example: 'base' }) toChain?: string;
  @ApiPropertyOptional({ description: "Extra: the least the swap may give (the quote's slippage).", example: '0.031' }) minimumToAmount?: string;
  @ApiPropertyOptional({ description: 'Extra: the slippage tolerance in percent.', example: 0.5 }) slippage?: number;
}

export class TransferDetailsSchema {
  @ApiProperty({ example: 'base' }) fromChain!: string;
  @ApiProperty({ example: 'arbitrum' }) toChain!: string;
  @ApiProperty({ example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }) destinationAddress!: string;
  @ApiPropertyOptional({ example: 'USDC' }) fromToken?: string;
  @ApiPropertyOptional({ example: 'USDC' }) toToken?: string;
  @ApiPropertyOptional({ example: '100' }) fromAmount?: string;
  @ApiPropertyOptional({ example: '99.2' }) toAmount?: string;
}

export class RouteStepSchema {
  @ApiProperty({ description: 'From 1, in the order the steps run.', example: 1 }) step!: number;
  @ApiProperty({ enum: ROUTE_STEP_KINDS }) kind!: string;
  @ApiProperty({ example: 'Uniswap V2' }) provider!: string;
  @ApiProperty({ example: 'base' }) fromChain!: string;
  @ApiProperty({ example: 'base' }) toChain!: string;
  @ApiProperty({ example: 'USDC' }) fromToken!: string;
  @ApiProperty({ example: 'ETH' }) toToken!: string;
  @ApiProperty({ example: '99.7' }) amountIn!: string;
  @ApiProperty({ description: 'Expected until the step has run, then what it gave.', example: '0.03115625' }) amountOut!: string;
  @ApiProperty({ enum: ROUTE_STEP_STATUSES }) status!: string;
  @ApiPropertyOptional({ type: String, example: '0x9f2c6a1d3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8' }) transactionHash?: string;
  @ApiPropertyOptional({
    type: String,
    description:
      "Once the step has run from a managed wallet whose address is its smart account: the hash of the ERC-4337 UserOperation that spent the wallet's funds (`transactionHash` is then the bundle transaction that carried it, or for a bridge its fill).",
    example: '0x2b7e1516a9d3f4c6e8b0a2c4d6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3',
  })
  userOperationHash?: string;
  @ApiPropertyOptional({
    type: String,
    description: 'When a failure unwound the step: the hash that gave its funds back.',
    example: '0x4e1a7c2b9d8f6e5a3c1b0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a',
  })
  reversalHash?: string;
  @ApiProperty({
    enum: SETTLEMENTS,
    description:
      "`onchain`: the step's hashes are transactions on their chain (test keys: a route of swaps on chains with a `dex` and bridges between chains with a `bridge` in the chains list; a bridge step's hash is its fill, on the destination chain); `simulated`: a sandbox rail's (routes through a chain without a node, or bridging a native coin).",
  })
  settlement!: string;
}

export class RampHashSchema {
  @ApiProperty({
    enum: RAMP_HASH_STEPS,
    description:
      "What the hash is: an off-ramp's deposit, swap, settlement (the CNGN to the off-ramp provider) or refund; an on-ramp's mint, swap or delivery.",
  })
  step!: string;
  @ApiProperty({ example: '0x9f2c6a1d3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8' }) transactionHash!: string;
  @ApiProperty({ enum: SETTLEMENTS, description: "`onchain`: a transaction on the chain (look it up there); `simulated`: a sandbox rail's hash, on no chain." })
  settlement!: string;
  @ApiPropertyOptional({
    type: String,
    description:
      "An off-ramp's `swap` run from a managed wallet whose address is its smart account: the hash of the ERC-4337 UserOperation that swapped the wallet's tokens (`transactionHash` is then the bundle transaction that carried it).",
    example: '0x2b7e1516a9d3f4c6e8b0a2c4d6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3',
  })
  userOperationHash?: string;
}

export class RouteSchema {
  @ApiProperty({ type: [RouteStepSchema] }) steps!: RouteStepSchema[];
}

export class TransactionSchema {
  @ApiProperty({ example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) id!: string;
  @ApiProperty({ enum: TRANSACTION_TYPES }) type!: string;
  @ApiProperty({ enum: TRANSACTION_STATUSES }) status!: string;
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({ example: '100' }) amount!: string;
  @ApiProperty({ example: 'USDC' }) tokenSymbol!: string;
  @ApiPropertyOptional({
    type: String,
    description: 'The latest on-chain hash of the transaction; absent before the first.',
    example: '0x9f2c6a1d3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
  })
  transactionHash?: string;
  @ApiPropertyOptional({ type: String, example: 'payout-7781' }) reference?: string;
  @ApiPropertyOptional({ type: String, example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) walletId?: string;
  @ApiProperty({ type: TransactionFeesSchema }) fees!: TransactionFeesSchema;
  @ApiPropertyOptional({ type: RampDetailsSchema }) ramp?: RampDetailsSchema;
  @ApiPropertyOptional({ type: SwapDetailsSchema, description: 'Swaps.' }) swap?: SwapDetailsSchema;
  @ApiPropertyOptional({ type: TransferDetailsSchema, description: 'Cross-chain transfers.' }) transfer?: TransferDetailsSchema;
  @ApiPropertyOptional({ type: RouteSchema, description: 'Extra, swaps and transfers: each step of the route with its own status and hash.' })
  route?: RouteSchema;
  @ApiPropertyOptional({ type: PaymentInstructionsSchema, description: 'Extra, on-ramps: the virtual account to pay the NGN into.' })
  paymentInstructions?: PaymentInstructionsSchema;
  @ApiPropertyOptional({
    type: String,
    description: 'Extra, on-ramps, swaps and transfers: where the crypto goes.',
    example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  })
  destinationAddress?: string;
  @ApiPropertyOptional({
    type: String,
    description: 'Extra, non-custodial off-ramps: where the crypto goes.',
    example: '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984',
  })
  depositAddress?: string;
  @ApiPropertyOptional({ type: String, description: 'Extra: until when the deposit address waits.', format: 'date-time', example: '2026-11-23T10:05:00.000Z' })
  depositExpiresAt?: string;
  @ApiPropertyOptional({
    type: String,
    description: 'Extra, non-custodial off-ramps: where the crypto comes from.',
    example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  })
  sourceAddress?: string;
  @ApiPropertyOptional({
    type: [RampHashSchema],
    description: 'Extra, on-ramps and off-ramps: every hash so far, in order, with what it is and whether it is a transaction on its chain.',
  })
  hashes?: RampHashSchema[];
  @ApiPropertyOptional({
    type: String,
    description:
      "Extra, non-custodial off-ramps: the deposit's transaction on its chain, once received (on a chain with `settlement: onchain`, look it up there).",
    example: '0x4f1e1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
  })
  depositTransactionHash?: string;
  @ApiPropertyOptional({
    type: String,
    description: 'Extra, non-custodial off-ramps: the transaction that sent the deposit back to its sender (a deposit of another amount, or one after expiry).',
    example: '0x9a8b7c6d5e4f30211223344556677889900aabbccddeeff00112233445566778',
  })
  refundTransactionHash?: string;
  @ApiPropertyOptional({
    description: 'Present when status is failed: what happened, for people, and that what was taken was given back.',
    example: 'The bank payout was rejected: the beneficiary bank rejected the credit',
  })
  errorMessage?: string;
  @ApiPropertyOptional({
    enum: FAILURE_REASON_NAMES,
    description: `Present when status is failed: why, for programs to branch on.\n\n${catalogue(FAILURE_REASONS)}`,
    example: 'PAYOUT_REJECTED',
  })
  failureReason?: FailureReason;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:02:41.000Z' }) updatedAt!: string;
}

/** What the on-ramp, swap and transfer initiations answer: the pending Transaction, with its id as `transactionId` too. */
export class InitiatedTransactionSchema extends TransactionSchema {
  @ApiProperty({ description: "The new transaction's id (the same as `id`), as every initiation answers it.", example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  transactionId!: string;
}
