import { rpc } from '../rpc/rpc';
import type { InitiatedTransaction, TransactionRecord } from '../ramp/ramp';

/** `POST /swap/initiate`: executes a swap quote from a managed wallet; answers the pending Transaction. */
export namespace SwapInitiate {
  export interface Request {
    quoteId: string;
    walletId: string;
    /** Where the proceeds go: required across chains; on one chain they return to the wallet when it is absent. */
    destinationAddress?: string;
    reference?: string;
    callbackUrl?: string;
  }
  export const contract = rpc<Request, InitiatedTransaction>('swap-transfer.v1.swap.initiate');
}

/** `POST /transfer/initiate`: executes a transfer quote from a managed wallet; answers the pending Transaction. */
export namespace TransferInitiate {
  export interface Request {
    quoteId: string;
    walletId: string;
    reference?: string;
    callbackUrl?: string;
  }
  export const contract = rpc<Request, InitiatedTransaction>('swap-transfer.v1.transfer.initiate');
}

/** `GET /swap/{id}` and `GET /transfer/{id}`: the transaction folded from its events, for its own tenant only. */
export namespace RouteTransactionGet {
  export interface Request {
    transactionId: string;
    type: 'swap' | 'transfer';
  }
  export const contract = rpc<Request, TransactionRecord>('swap-transfer.v1.transactions.get');
}
