import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class PaymentInstructionsSchema {
  @ApiProperty({ example: 'Wema Bank' }) bankName!: string;
  @ApiProperty({ example: '035' }) bankCode!: string;
  @ApiProperty({ example: '0123456789' }) accountNumber!: string;
  @ApiProperty({ example: 'RAMP CHECKOUT' }) accountName!: string;
  @ApiProperty({ description: 'Exactly this many NGN: another amount is refunded and fails the on-ramp.', example: '50000' }) amount!: string;
  @ApiProperty({ description: 'Pay before this; later payments are refunded.' }) expiresAt!: string;
}

export class BankAccountSchema {
  @ApiProperty() bankName!: string;
  @ApiProperty() accountNumber!: string;
  @ApiProperty() accountName!: string;
  @ApiPropertyOptional() bankCode?: string;
}

export class RampDetailsSchema {
  @ApiProperty({ example: '149250.00' }) fiatAmount!: string;
  @ApiProperty({ enum: ['NGN'] }) fiatCurrency!: string;
  @ApiProperty({ type: BankAccountSchema }) bankAccount!: BankAccountSchema;
  @ApiPropertyOptional({ description: 'Extra: what the bank account receives.', example: '149010.75' }) payoutAmount?: string;
  @ApiPropertyOptional({ description: 'Extra: the quoted rate, NGN per token.', example: '1492.5' }) rate?: string;
}

export class TransactionFeesSchema {
  @ApiProperty({ example: '20.00' }) platformFee!: string;
  @ApiProperty({ example: '199.25' }) providerFee!: string;
  @ApiProperty({ example: '239.25' }) totalFee!: string;
  @ApiPropertyOptional({ example: '20.00' }) swapFee?: string;
}

export class TransactionSchema {
  @ApiProperty({ example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) id!: string;
  @ApiProperty({ enum: ['onramp', 'offramp', 'swap', 'transfer'] }) type!: string;
  @ApiProperty({ enum: ['pending', 'completed', 'failed'] }) status!: string;
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({ example: '100' }) amount!: string;
  @ApiProperty({ example: 'USDC' }) tokenSymbol!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The latest on-chain hash of the transaction (null before any).' }) transactionHash!: string | null;
  @ApiProperty({ type: String, nullable: true }) reference!: string | null;
  @ApiProperty({ type: String, nullable: true }) walletId!: string | null;
  @ApiProperty({ type: TransactionFeesSchema }) fees!: TransactionFeesSchema;
  @ApiPropertyOptional({ type: RampDetailsSchema }) ramp?: RampDetailsSchema;
  @ApiPropertyOptional({ type: PaymentInstructionsSchema, description: 'Extra, on-ramps: the virtual account to pay the NGN into.' }) paymentInstructions?: PaymentInstructionsSchema;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Extra, on-ramps to an external address: where the crypto goes.' }) destinationAddress?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Extra, non-custodial off-ramps: where the crypto goes.' }) depositAddress?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Extra: until when the deposit address waits.' }) depositExpiresAt?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Extra, non-custodial off-ramps: where the crypto comes from.' }) sourceAddress?: string | null;
  @ApiPropertyOptional({ description: 'Present when status is failed: why, and that what was taken was given back.' }) errorMessage?: string;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

