/**
 * /telephony: carrier accounts, phone numbers and their routing (spec document 2, Telephony and phone numbers).
 * The routes every carrier shares are in numbers.ts; each carrier is one module, `<carrier>.ts`, listed in
 * CARRIER_MODULES below. Carrier failures are answered here for all of them (telephony/carrier-errors.ts).
 */
import type { FastifyInstance } from 'fastify';
import { validatorCompiler } from '../../../http/validation.ts';
import { asApiError } from '../../../carriers/carrier-errors.ts';
import { TelephonyContext, type TelephonyCarrierModule, type TelephonyOptions } from '../../../telephony/context.ts';
import { carrierA } from './carrier-a.ts';
import { carrierB } from './carrier-b.ts';
import { carrierC } from './carrier-c.ts';
import { carrierD } from './carrier-d.ts';
import managedRoutes from './managed.ts';
import numberRoutes from './numbers.ts';
import { sharedSchemas } from './schemas.ts';

/** Every carrier this server speaks to: one line each. */
const CARRIER_MODULES: readonly TelephonyCarrierModule[] = [carrierA, carrierB, carrierC, carrierD];

export type TelephonyRoutesOptions = TelephonyOptions;

export default async function telephonyRoutes(app: FastifyInstance, options: TelephonyRoutesOptions) {
  for (const schema of sharedSchemas) app.addSchema(schema);
  // Adding schemas gives this context a schema store of its own, and Fastify then builds its validators with the
  // default compiler (which drops unknown fields and stops at the first error): put the app's compiler back.
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler((error, _request, _reply) => {
    // The app's error handler answers everything; carrier failures become API errors on the way.
    throw asApiError(error);
  });

  const telephony = new TelephonyContext(app, options, CARRIER_MODULES);
  await app.register(numberRoutes, { telephony });
  await app.register(managedRoutes, { telephony });
  for (const module of telephony.modules) await app.register(module.routes, { telephony });
}
