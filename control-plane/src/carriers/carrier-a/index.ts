/** carrier-a as one CarrierModule: its voice side and its number management on the customer's own account. */
import type { CarrierModule } from '../carrier-module.ts';
import { CarrierAService, PROVIDER } from './numbers.ts';
import { carrierA } from './voice.ts';

export const carrierAModule = {
  name: PROVIDER,
  voice: carrierA,
  numbers: (telephony) => new CarrierAService(telephony),
  account: (telephony, integration) => new CarrierAService(telephony).client(integration),
} as const satisfies CarrierModule<CarrierAService>;
