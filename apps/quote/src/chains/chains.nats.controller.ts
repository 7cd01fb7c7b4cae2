import { Controller } from '@nestjs/common';
import { CHAINS } from '@ramp/chains';
import { ChainList } from '@ramp/contracts';
import { Handles } from '@ramp/messaging';

@Controller()
export class ChainsNatsController {
  @Handles(ChainList.contract)
  async list(): Promise<ChainList.Response> {
    return CHAINS.map((chain) => ({ ...chain, tokens: chain.tokens.map((token) => ({ ...token })) }));
  }
}
