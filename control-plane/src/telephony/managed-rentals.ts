/**
 * Renting and giving back managed numbers (docs/architecture.md §10): numbers the service rents on its own carrier-a
 * account for an organisation that may use them (managed.ts: feature on, billed in India, no carrier account of its
 * own, business verified), paid a month ahead from its plan wallet (billing/rental-metering.ts).
 *
 * Money before the carrier, never the other way round: the intent is recorded (PENDING) and the plan wallet checked
 * before the carrier is asked; once the carrier confirms, the first month is charged in the transaction that
 * records the number. Should the charge then fail (the wallet was spent meanwhile), the number is given back at
 * once. A process that dies while the carrier is asked leaves a PENDING rental, which the rental job gives back.
 */
import { ApiError, notFound } from '../errors.ts';
import type { Principal } from '../auth/principal.ts';
import {
  RENTAL_PERIOD_MS,
  chargeRentalPeriod,
  rentalTerms,
  spendablePlanWalletE4,
} from '../billing/rental-metering.ts';
import { CarrierAInventory, type RentableNumber } from '../carriers/carrier-a/inventory.ts';
import { applicationUrls, CarrierAClient } from '../carriers/carrier-a/api.ts';
import { CarrierError } from './carrier.ts';
import type { TelephonyContext } from './context.ts';
import { MANAGED_COUNTRY, MANAGED_PROVIDER, MANAGED_SOURCE, managedStatus } from './managed.ts';
import {
  activateRental,
  closeRental,
  insertPendingRental,
  lockLiveRentalOfNumber,
  type NumberRental,
} from './number-rental-repository.ts';
import {
  findActiveNumber,
  mergeNumberMetadata,
  readNumber,
  retireNumber,
  savePurchasedNumber,
  type PhoneNumberRecord,
} from './phone-number-repository.ts';

export interface RentedNumber {
  number: PhoneNumberRecord;
  rental: RentalView;
}

/** A rental as the API shows it: what it costs and until when it is paid. */
export interface RentalView {
  id: string;
  status: NumberRental['status'];
  currency: string;
  monthlyPriceMinor: number;
  paidThrough: string | null;
  unpaidSince: string | null;
}

export function rentalView(rental: NumberRental): RentalView {
  return {
    id: rental.id,
    status: rental.status,
    currency: rental.currency,
    monthlyPriceMinor: rental.monthlyPriceE4 / 10_000,
    paidThrough: rental.paidThrough?.toISOString() ?? null,
    unpaidSince: rental.unpaidSince?.toISOString() ?? null,
  };
}

/** The service account's carrier-a clients: renting, and its application that answers the rented numbers. */
export function serviceCarrierA(telephony: TelephonyContext): {
  inventory: CarrierAInventory;
  account: CarrierAClient;
} {
  const credentials = telephony.serviceCredentials(MANAGED_PROVIDER);
  const baseUrl = telephony.apiUrl(MANAGED_PROVIDER);
  if (!credentials || !baseUrl) {
    throw new ApiError(
      'unavailable',
      'This server cannot rent numbers: PARLEY_CARRIER_A_SERVICE_AUTH_ID and PARLEY_CARRIER_A_SERVICE_AUTH_TOKEN must both be set',
    );
  }
  return {
    inventory: new CarrierAInventory({ baseUrl, credentials }),
    account: new CarrierAClient({ baseUrl, credentials }),
  };
}

/** Numbers the organisation could rent now, with what a month costs it. */
export async function searchManagedNumbers(
  telephony: TelephonyContext,
  principal: Principal,
  query: { pattern?: string; limit?: number },
): Promise<{ numbers: RentableNumber[]; monthlyPriceMinor: number; currency: string }> {
  const { currency, priceE4 } = await rentable(telephony, principal);
  const { inventory } = serviceCarrierA(telephony);
  const numbers = await carrier(() => inventory.search({ countryIso: MANAGED_COUNTRY, ...query }));
  return { numbers: numbers.filter((n) => n.voice), monthlyPriceMinor: priceE4 / 10_000, currency };
}

export async function rentManagedNumber(
  telephony: TelephonyContext,
  principal: Principal,
  phoneNumber: string,
): Promise<RentedNumber> {
  const { sql } = telephony;
  const organisationId = principal.organisationId;
  const { currency, priceE4 } = await rentable(telephony, principal);
  const at = new Date();
  if ((await spendablePlanWalletE4(sql, organisationId, currency, at)) < priceE4) {
    throw new ApiError(
      'payment_required',
      `A month of a rented number costs ${priceE4 / 10_000} ${currency} (minor units): top up the plan wallet first`,
    );
  }
  const pending = await insertPendingRental(sql, { organisationId, phoneNumber, currency, monthlyPriceE4: priceE4 });
  if (!pending) throw new ApiError('conflict', `${phoneNumber} is already rented or being rented`);

  const { inventory, account } = serviceCarrierA(telephony);
  try {
    const { appId } = await account.ensureApplication(applicationUrls(telephony.inboundVoiceUrl(MANAGED_PROVIDER)));
    await inventory.rent(phoneNumber, appId);
  } catch (error) {
    await closeRental(sql, pending.id, 'FAILED', 'the carrier did not rent it', new Date());
    throw carrierRefusal(error);
  }

  const outcome = await sql.begin(async (tx) => {
    const numberId = await savePurchasedNumber(tx, {
      organisationId,
      provider: MANAGED_PROVIDER,
      integrationId: null,
      remote: {
        providerNumberId: phoneNumber.replace(/^\+/, ''),
        phoneNumber,
        friendlyName: null,
        countryCode: MANAGED_COUNTRY,
        capabilities: { voice: true, sms: false },
        type: 'local',
        region: null,
        carrierCapabilities: { voice: true, sms: false, mms: false },
        inbound: 'parley',
      },
      routingStatus: 'READY',
    });
    await mergeNumberMetadata(tx, numberId, { source: MANAGED_SOURCE, rentalId: pending.id });
    const start = new Date();
    const end = new Date(start.getTime() + RENTAL_PERIOD_MS);
    const charge = await chargeRentalPeriod(tx, {
      organisationId,
      rentalId: pending.id,
      currency,
      priceE4,
      start,
      end,
      actor: `user:${principal.userId}`,
      description: `Phone number ${phoneNumber}: first month`,
    });
    if (charge.status === 'insufficient_funds') return { paid: false as const };
    await activateRental(tx, pending.id, { phoneNumberId: numberId, paidThrough: end, monthlyPriceE4: priceE4 });
    return { paid: true as const, numberId, paidThrough: end };
  });
  if (!outcome.paid) {
    // Spent between the check and the charge: give the number straight back, nothing charged.
    await giveBack(telephony, pending.id, phoneNumber, 'the plan wallet could not pay the first month');
    throw new ApiError('payment_required', 'The plan wallet could no longer pay the first month: nothing was rented');
  }
  const number = await readNumber(sql, organisationId, outcome.numberId);
  if (!number) throw notFound('Phone number');
  return {
    number,
    rental: rentalView({ ...pending, phoneNumberId: number.id, status: 'ACTIVE', paidThrough: outcome.paidThrough }),
  };
}

/** Gives a rented number back: it stops answering and is no longer charged (the month paid is not refunded). */
export async function releaseManagedNumber(
  telephony: TelephonyContext,
  principal: Principal,
  numberId: string,
): Promise<{ released: true; id: string }> {
  const { sql } = telephony;
  const number = await findActiveNumber(sql, principal.organisationId, numberId);
  if (!number || number.metadata.source !== MANAGED_SOURCE) throw notFound('Rented phone number');
  const rental = await sql.begin((tx) => lockLiveRentalOfNumber(tx, principal.organisationId, numberId));
  if (!rental) throw notFound('Rented phone number');
  await releaseRental(telephony, rental, 'given back by the customer');
  return { released: true, id: numberId };
}

/** Gives the rental's number back to the carrier, then closes the rental and retires the number. */
export async function releaseRental(telephony: TelephonyContext, rental: NumberRental, reason: string): Promise<void> {
  await giveBack(telephony, rental.id, rental.phoneNumber, reason);
  if (rental.phoneNumberId) await retireNumber(telephony.sql, rental.phoneNumberId);
}

async function giveBack(telephony: TelephonyContext, rentalId: string, phoneNumber: string, reason: string) {
  const { inventory } = serviceCarrierA(telephony);
  await carrier(() => inventory.release(phoneNumber));
  await closeRental(telephony.sql, rentalId, 'RELEASED', reason, new Date());
}

/** Whether the organisation may rent now, and at what monthly price; the API's refusal otherwise. */
async function rentable(
  telephony: TelephonyContext,
  principal: Principal,
): Promise<{ currency: string; priceE4: number }> {
  const status = await managedStatus(telephony, principal);
  if (status.unavailable) {
    const code = status.unavailable.code;
    throw new ApiError(
      code === 'feature_disabled' ? 'feature_disabled' : code === 'not_configured' ? 'unavailable' : 'conflict',
      status.unavailable.message,
    );
  }
  if (status.verification.state !== 'approved') {
    throw new ApiError(
      'kyc_not_approved',
      `Indian numbers need the business verified first (${status.verification.state}): ${status.verification.nextAction?.message ?? ''}`.trim(),
    );
  }
  const terms = await rentalTerms(telephony.sql, principal.organisationId, new Date());
  if (!terms.payable) throw new ApiError(terms.reason === 'unpriced' ? 'unavailable' : 'conflict', terms.message);
  return { currency: terms.currency, priceE4: terms.priceE4 };
}

async function carrier<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw carrierRefusal(error);
  }
}

function carrierRefusal(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof CarrierError) {
    if (error.code === 'not_found' || error.code === 'rejected') {
      return new ApiError('carrier_rejected', `carrier-a refused: ${error.message}`, { cause: error });
    }
    return new ApiError('upstream_failed', `carrier-a failed: ${error.message}. Nothing was charged`, { cause: error });
  }
  throw error;
}
