import { Controller, Inject } from '@nestjs/common';
import { PartnerEventReceive } from '@ramp/contracts';
import { Handles, RequestData } from '@ramp/messaging';
import { PartnerEvents } from './partner-events';

@Controller()
export class PartnerEventsNatsController {
  constructor(@Inject(PartnerEvents) private readonly events: PartnerEvents) {}

  @Handles(PartnerEventReceive.contract)
  receive(@RequestData() request: PartnerEventReceive.Request): Promise<PartnerEventReceive.Response> {
    return this.events.receive(request);
  }
}
