/**
 * India numbers through carrier-d, the India numbering partner (spec document 2): the KYC wizard, the number
 * inventory, purchase and renewal, all on the service's reseller account at the partner.
 *
 * The India connection of an organisation is its carrier-d telephony integration. There is nothing for the customer
 * to connect: the first KYC step (register) creates it on the service's reseller account (PARLEY_CARRIER_D_USERNAME
 * and PARLEY_CARRIER_D_PASSWORD), keeping those credentials encrypted as `username` and `password` and the wizard's
 * progress in `kyc_status`, `kyc_step` (the next step) and `last_kyc_step`. Calls use the configured reseller
 * credentials, else the connection's stored ones (a server whose configuration lost them still serves the numbers it
 * sold). Without either there is no India connection (404). The partner refusing the reseller credentials is the
 * service's fault, not the customer's: 502.
 */
import type { Principal } from '../../auth/principal.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError, badField, notFound } from '../../errors.ts';
import type { CarrierAccount } from '../../telephony/carrier.ts';
import { CarrierError } from '../../telephony/carrier.ts';
import {
  CarrierDClient,
  CarrierDTokenCache,
  e164,
  type AvailableDid,
  type KycStep,
  type PartnerApplication,
  type ResellerCredentials,
} from './api.ts';
import { INDIA_PROVISIONING, type TelephonyContext } from '../../telephony/context.ts';
import { nextActionOf, stateOf, stepPayload, type KycState, type NextAction } from './india-kyc.ts';
import {
  activeRenewalRecord,
  markVerificationUnavailable,
  readApplication,
  recordLiveStatus,
  recordRenewal,
  recordStep,
  saveRenewalRecord,
} from './kyc-repository.ts';
import { mergeIntegrationConfig, type StoredIntegration } from '../../telephony/integration-repository.ts';
import {
  findActiveNumber,
  mergeNumberMetadata,
  readNumber,
  savePurchasedNumber,
  type PhoneNumberRecord,
} from '../../telephony/phone-number-repository.ts';
import { assertFunded } from '../../wallet/wallet.ts';
import type { DidsQuery, KycBody, PurchaseBody, RenewBody } from './types.ts';

export const PROVIDER = 'carrier-d';
const LABEL = 'India numbers';
const DEFAULT_DIAL_CODE = '91';
const DEFAULT_PER_PAGE = 20;

/** One token cache per server (per telephony context): reseller logins are shared by every organisation. */
const tokenCaches = new WeakMap<TelephonyContext, CarrierDTokenCache>();

export interface KycResult {
  provider: { state: KycState; providerStatus: string; rejectionReason: string | null };
  kyc: { state: KycState; lastStep: KycStep; nextAction: NextAction };
  aadhaarVerificationUrl?: string;
}

export interface DidsResult {
  dids: AvailableDid[];
  page: number;
  perPage: number;
  total: number;
}

export interface RenewResult {
  number: PhoneNumberRecord;
  renewal: { renewedAt: Date; purchaseId: string; expiresAt: Date | null };
}

export class CarrierDService {
  readonly #telephony: TelephonyContext;
  readonly #tokens: CarrierDTokenCache;

  constructor(telephony: TelephonyContext) {
    this.#telephony = telephony;
    let tokens = tokenCaches.get(telephony);
    if (!tokens) tokenCaches.set(telephony, (tokens = new CarrierDTokenCache()));
    this.#tokens = tokens;
  }

  /** The reseller account for an organisation's connection (or for one about to be made); 404 when there is none. */
  client(integration: StoredIntegration | undefined): CarrierDClient {
    const baseUrl = this.#telephony.apiUrl(PROVIDER);
    const credentials = this.#credentials(integration);
    if (!credentials) throw noConnection();
    return new CarrierDClient({ baseUrl, credentials, tokens: this.#tokens });
  }

  /** The connection's account for the shared routing code, with the reseller-credential refusal read as ours. */
  account(integration: StoredIntegration): CarrierAccount {
    return {
      routeInbound: (number, voiceUrl, signal) =>
        partner(() => this.client(integration).routeInbound(number, voiceUrl, signal)),
    };
  }

  async kyc(principal: Principal, step: KycStep, body: KycBody): Promise<KycResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await requireIndia(t, organisationId);
    const payload = stepPayload(step, body.payload ?? {});
    const integration = await t.integrations.active(t.sql, organisationId, PROVIDER);
    const client = this.client(integration);
    const application = await readApplication(t.sql, organisationId);
    if (step !== 'register' && !application) {
      throw new ApiError('invalid_state', 'No India profile yet: submit the register step first');
    }
    const answer = await partner(() =>
      step === 'register'
        ? client.register(organisationId, application?.providerApplicationId ?? null, payload)
        : client.submitStep(application!.providerApplicationId, step, payload),
    );
    const accountType =
      answer.accountType ??
      (step === 'register' ? (payload.account_type as 'individual' | 'business') : application!.accountType);
    const view = kycView(answer, step, accountType);
    const credentials = this.#credentials(integration)!;
    await t.sql.begin(async (tx) => {
      const saved = await t.integrations.save(tx, {
        organisationId,
        provider: PROVIDER,
        accountRef: credentials.username,
        config: {
          label: (integration?.config.label as string | undefined) ?? LABEL,
          connected_at: (integration?.config.connected_at as string | undefined) ?? new Date().toISOString(),
          ...kycConfig(view.kyc),
        },
        credentials: { username: credentials.username, password: credentials.password },
      });
      await recordStep(tx, {
        organisationId,
        integrationId: saved.id,
        step,
        partner: answer,
        accountType,
        acceptedBy: step === 'register' ? { userId: principal.userId, keyId: principal.keyId } : undefined,
      });
    });
    return step === 'aadhaar' && answer.aadhaarVerificationUrl
      ? { ...view, aadhaarVerificationUrl: answer.aadhaarVerificationUrl }
      : view;
  }

  async dids(principal: Principal, query: DidsQuery): Promise<DidsResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await requireIndia(t, organisationId);
    const client = this.client(await t.integrations.active(t.sql, organisationId, PROVIDER));
    return partner(() =>
      client.availableDids({
        countryCode: (query.countryCode ?? query.country_code ?? DEFAULT_DIAL_CODE).replace(/^\+/, ''),
        type: query.type,
        number: query.number,
        months: query.months,
        page: query.page ?? 1,
        perPage: query.perPage ?? query.per_page ?? DEFAULT_PER_PAGE,
      }),
    );
  }

  async purchase(principal: Principal, body: PurchaseBody): Promise<PhoneNumberRecord> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await requireIndia(t, organisationId);
    const integration = await requireConnection(t, organisationId);
    const application = await readApplication(t.sql, organisationId);
    if (!application)
      throw new ApiError('invalid_state', 'No India profile yet: complete the KYC wizard, starting with register');
    const phoneNumber = e164(body.didNumber);
    if (!phoneNumber)
      throw badField('didNumber', 'must be the did_number of a number from GET /telephony/carrier-d/dids');
    await assertFunded(t.sql, organisationId);
    const client = this.client(integration);

    // Checked live: a stored "approved" may have been withdrawn, and a stored "pending" may have been decided.
    let live: PartnerApplication;
    try {
      live = await partner(() => client.kycStatus(application.providerApplicationId));
    } catch (error) {
      if (!(error instanceof CarrierError) || error.code === 'credentials') throw error;
      await markVerificationUnavailable(t.sql, organisationId);
      throw new ApiError(
        'kyc_unconfirmed',
        'The India numbering partner could not confirm the KYC status; nothing was bought. Try again shortly',
        { cause: error },
      );
    }
    const checked = await t.sql.begin(async (tx) => {
      const recorded = await recordLiveStatus(tx, organisationId, live);
      await updateKycConfig(tx, integration.id, {
        state: recorded.state,
        lastStep: recorded.lastStep,
        nextAction: nextActionOf(recorded),
      });
      return recorded;
    });
    if (checked.state !== 'approved') {
      throw new ApiError(
        'kyc_not_approved',
        `KYC is not approved (${checked.state}): ${nextActionOf(checked).message}. Nothing was bought`,
      );
    }

    const months = body.months ?? 1;
    let bought;
    try {
      bought = await partner(() =>
        client.purchase({
          didId: body.didId,
          didNumber: body.didNumber,
          months,
          applicationId: application.providerApplicationId,
          voiceUrl: t.inboundVoiceUrl(PROVIDER),
        }),
      );
    } catch (error) {
      throw purchaseRefusal(error);
    }
    if (!bought.orderId || !bought.botId || !bought.number) {
      // The partner may have charged the float for it: the operator reconciles from the log.
      t.log.error(
        { organisationId, provider: PROVIDER, didId: body.didId, orderId: bought.orderId, botId: bought.botId },
        'carrier-d purchase answered without an order id or bot id: number not recorded',
      );
      throw new ApiError(
        'upstream_failed',
        'The India numbering partner returned no order id or bot id; the number was not recorded. Contact support before trying again',
      );
    }
    const { orderId, botId, number } = bought;
    const id = await t.sql.begin(async (tx) => {
      const numberId = await savePurchasedNumber(tx, {
        organisationId,
        provider: PROVIDER,
        integrationId: integration.id,
        remote: number,
        routingStatus: 'READY',
      });
      await mergeNumberMetadata(tx, numberId, { orderId, botId, months });
      await saveRenewalRecord(tx, {
        organisationId,
        phoneNumberId: numberId,
        integrationId: integration.id,
        providerDidId: number.providerNumberId,
        providerOrderId: orderId,
        botId,
        months,
        expiresAt: bought.expiresAt,
      });
      return numberId;
    });
    return this.#read(organisationId, id);
  }

  async renew(principal: Principal, numberId: string, _body: RenewBody): Promise<RenewResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await requireIndia(t, organisationId);
    const integration = await requireConnection(t, organisationId);
    const number = await findActiveNumber(t.sql, organisationId, numberId);
    if (!number || number.provider !== PROVIDER) throw notFound('India phone number');
    const record = await activeRenewalRecord(t.sql, organisationId, numberId);
    if (!record) throw new ApiError('not_found', 'The number has no active renewal record');
    await assertFunded(t.sql, organisationId);
    const client = this.client(integration);
    const renewal = await partner(() => client.renew(record.providerDidId, record.months));
    await recordRenewal(t.sql, record.id, renewal);
    return {
      number: await this.#read(organisationId, numberId),
      renewal: { renewedAt: renewal.renewedAt, purchaseId: renewal.purchaseId, expiresAt: renewal.expiresAt },
    };
  }

  #credentials(integration: StoredIntegration | undefined): ResellerCredentials | undefined {
    const configured = this.#telephony.reseller(PROVIDER);
    if (configured) return configured;
    if (!integration) return undefined;
    const stored = this.#telephony.integrations.credentials(integration);
    return stored.username && stored.password ? { username: stored.username, password: stored.password } : undefined;
  }

  async #read(organisationId: string, id: string): Promise<PhoneNumberRecord> {
    const record = await readNumber(this.#telephony.sql, organisationId, id);
    if (!record) throw notFound('Phone number');
    return record;
  }
}

function requireIndia(t: TelephonyContext, organisationId: string) {
  return t.requireFeature(t.sql, organisationId, INDIA_PROVISIONING, 'India provisioning');
}

function noConnection(): ApiError {
  return new ApiError(
    'not_found',
    'No India connection: this server has no reseller account with the India numbering partner (PARLEY_CARRIER_D_USERNAME/PASSWORD)',
  );
}

async function requireConnection(t: TelephonyContext, organisationId: string): Promise<StoredIntegration> {
  const integration = await t.integrations.active(t.sql, organisationId, PROVIDER);
  if (!integration) throw new ApiError('not_found', 'No India connection: start the KYC wizard with its register step');
  return integration;
}

/** Runs a partner call; the partner refusing the service's reseller credentials is a 502, never the customer's 400. */
async function partner<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CarrierError && error.code === 'credentials') {
      throw new ApiError('upstream_failed', "The India numbering partner refused this server's reseller credentials", {
        cause: error,
      });
    }
    throw error;
  }
}

/** A purchase the partner refused, in the spec's terms. */
function purchaseRefusal(error: unknown): unknown {
  if (!(error instanceof CarrierError)) return error;
  if (error.carrierCode === 'insufficient_balance') {
    return new ApiError(
      'payment_required',
      "The service's float at the India numbering partner does not cover this number, and an API key never tops it up: " +
        'an owner or admin completes one purchase from the dashboard. Nothing was bought',
      { cause: error },
    );
  }
  if (error.carrierCode === 'kyc_not_approved') {
    return new ApiError(
      'kyc_not_approved',
      'The India numbering partner reports the KYC as not approved; nothing was bought',
      { cause: error },
    );
  }
  return error;
}

function kycView(answer: PartnerApplication, step: KycStep, accountType: 'individual' | 'business'): KycResult {
  const state = stateOf(answer.status);
  const lastStep = answer.step ?? step;
  const nextAction = nextActionOf({
    state,
    lastStep,
    accountType,
    aadhaarVerified: answer.aadhaarVerified,
    rejectionReason: answer.rejectionReason,
  });
  return {
    provider: { state, providerStatus: answer.status, rejectionReason: answer.rejectionReason },
    kyc: { state, lastStep, nextAction },
  };
}

/** The integration's config keys of the KYC (spec document 1): status, next step, last step. */
function kycConfig(kyc: KycResult['kyc']): Record<string, string> {
  return { kyc_status: kyc.state, kyc_step: kyc.nextAction.code, last_kyc_step: kyc.lastStep };
}

function updateKycConfig(sql: Queryable, integrationId: string, kyc: KycResult['kyc']): Promise<void> {
  return mergeIntegrationConfig(sql, integrationId, kycConfig(kyc));
}
