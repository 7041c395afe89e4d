/** carrier-d as one CarrierModule: India numbers through the India numbering partner: number management only (no voice side of its own). */
import type { CarrierModule } from '../carrier-module.ts';
import { CarrierDService, PROVIDER } from './numbers.ts';

export const carrierDModule = {
  name: PROVIDER,
  numbers: (telephony) => new CarrierDService(telephony),
  account: (telephony, integration) => new CarrierDService(telephony).account(integration),
} as const satisfies CarrierModule<CarrierDService>;
