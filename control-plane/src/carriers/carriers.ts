/** Every carrier module of this server (carrier-module.ts), by name: the one registry of carriers. */
import { carrierAModule } from './carrier-a/index.ts';
import { carrierBModule } from './carrier-b/index.ts';
import { carrierCModule } from './carrier-c/index.ts';
import { carrierDModule } from './carrier-d/index.ts';
import type { CarrierModule } from './carrier-module.ts';

export { carrierAModule, carrierBModule, carrierCModule, carrierDModule };

export const CARRIER_MODULES: readonly CarrierModule[] = [
  carrierAModule,
  carrierBModule,
  carrierCModule,
  carrierDModule,
];
