/** carrier-b as one CarrierModule: its voice side and its number management on the customer's own account. */
import type { CarrierModule } from '../carrier-module.ts';
import { CarrierBService, PROVIDER } from './numbers.ts';
import { carrierB } from './voice.ts';

export const carrierBModule = {
  name: PROVIDER,
  voice: carrierB,
  numbers: (telephony) => new CarrierBService(telephony),
  account: (telephony, integration) => new CarrierBService(telephony).client(integration),
} as const satisfies CarrierModule<CarrierBService>;
