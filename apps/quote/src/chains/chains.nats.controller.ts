import { Injectable } from '@nestjs/common';
import { CHAINS } from '@ramp/chains';
import { ChainList } from '@ramp/contracts';
import { RpcHandler } from '@ramp/service-kit';

@Injectable()
export class ChainsNatsController {
  @RpcHandler(ChainList.contract)
  async list(): Promise<ChainList.Response> {
    return CHAINS.map((chain) => ({ ...chain, tokens: chain.tokens.map((token) => ({ ...token })) }));
  }
}
