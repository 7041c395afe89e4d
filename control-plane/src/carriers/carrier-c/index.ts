/** carrier-c as one CarrierModule: its voice side and its number management on the customer's own account. */
import type { CarrierModule } from '../carrier-module.ts';
import { CarrierCService, PROVIDER } from './numbers.ts';
import { carrierC } from './voice.ts';

export const carrierCModule = {
  name: PROVIDER,
  voice: carrierC,
  numbers: (telephony) => new CarrierCService(telephony),
  account: (telephony, integration) => new CarrierCService(telephony).client(integration),
} as const satisfies CarrierModule<CarrierCService>;
