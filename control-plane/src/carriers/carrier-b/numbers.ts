/**
 * carrier-b on the customer's own account (spec document 2): connect, search, purchase and sync, with the rules
 * the spec gives each. Connect and sync run as one change of the account (change-lock.ts); purchase and search
 * need a funded wallet and are not serialised with them (a purchase during a sync is never deactivated by it).
 */
import type { Principal } from '../../auth/principal.ts';
import { ApiError, notFound } from '../../errors.ts';
import {
  CarrierBClient,
  NUMBER_TYPES,
  SEARCH_LIMIT,
  type AvailableNumber,
  type CarrierBCredentials,
  type NumberType,
} from './api.ts';
import type { RemoteNumber } from '../../telephony/carrier.ts';
import type { TelephonyContext } from '../../telephony/context.ts';
import { integrationRecord, type IntegrationRecord, type StoredIntegration } from '../../telephony/integrations.ts';
import { readNumber, savePurchasedNumber, type PhoneNumberRecord } from '../../telephony/phone-numbers.ts';
import { readEveryPage, reconcile, type RemoteRead } from '../../telephony/reconciler.ts';
import { assertFunded } from '../../wallet/wallet.ts';
import type { ConnectBody, PurchaseBody, SearchBody, SyncBody } from './types.ts';
import { assertNumbersFree, retireReplacedAccount } from '../../telephony/account-switch.ts';

export const PROVIDER = 'carrier-b';
/** The label of an account connected without one, when none was set before. */
export const DEFAULT_LABEL = 'carrier-b account';
const DEFAULT_COUNTRY = 'US';

export interface ConnectResult {
  integration: IntegrationRecord;
  reusedStoredCredentials: boolean;
  imported: number;
  updated: number;
  deactivated: number;
  complete: boolean;
}

export interface SearchResult {
  country: string;
  type: NumberType | null;
  numbers: AvailableNumber[];
}

export interface SyncResult {
  remoteCount: number;
  imported: number;
  updated: number;
  needsSetup: number;
  skippedOtherProvider: number;
  deactivated: number;
  syncedAt: Date;
  complete: boolean;
}

export class CarrierBService {
  readonly #telephony: TelephonyContext;

  constructor(telephony: TelephonyContext) {
    this.#telephony = telephony;
  }

  /** A client of the account behind a stored integration. */
  client(integration: StoredIntegration): CarrierBClient {
    const stored = this.#telephony.integrations.credentials(integration);
    const accountSid = stored.account_sid ?? integration.accountRef;
    const authToken = stored.auth_token;
    if (!authToken)
      throw new ApiError(
        'credentials_required',
        'The stored carrier-b credentials are incomplete: connect the account again with its authToken',
      );
    return this.#clientFor({ accountSid, authToken });
  }

  async connect(principal: Principal, body: ConnectBody): Promise<ConnectResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    return t.changeLock.run({ organisationId, provider: PROVIDER, operation: 'connect' }, async (change) => {
      const current = await t.integrations.active(t.sql, organisationId, PROVIDER);
      const { credentials, reused } = this.#connectCredentials(body, current);
      const replaced = current && current.accountRef !== credentials.accountSid ? current : undefined;
      // Refused before the carrier is asked anything; checked again in the commit, which is what counts.
      if (replaced) await assertNumbersFree(t.sql, replaced);
      const read = await readVoiceNumbers(this.#clientFor(credentials));
      const config = {
        label: body.label ?? (current?.config.label as string | undefined) ?? DEFAULT_LABEL,
        amd: body.amd ?? (current && !replaced ? current.config.amd === true : false),
        connected_at: new Date().toISOString(),
      };
      return change.commit(async (tx) => {
        const retired = await retireReplacedAccount(tx, replaced);
        const integration = await t.integrations.save(tx, {
          organisationId,
          provider: PROVIDER,
          accountRef: credentials.accountSid,
          config,
          credentials: { account_sid: credentials.accountSid, auth_token: credentials.authToken },
        });
        const counts = await reconcile(tx, {
          organisationId,
          provider: PROVIDER,
          integrationId: integration.id,
          read,
          readStartedAt: change.startedAtExact,
        });
        if (read.complete) await t.integrations.markSynced(tx, integration.id, change.startedAt);
        this.#logPartial(read, organisationId);
        return {
          integration: integrationRecord(integration),
          reusedStoredCredentials: reused,
          imported: counts.imported,
          updated: counts.updated,
          deactivated: counts.deactivated + retired,
          complete: read.complete,
        };
      });
    });
  }

  async search(principal: Principal, body: SearchBody): Promise<SearchResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    await assertFunded(t.sql, organisationId);
    const client = this.client(await t.requireIntegration(t.sql, organisationId, PROVIDER));
    const country = (body.country ?? DEFAULT_COUNTRY).toUpperCase();
    const filters = { areaCode: body.areaCode, contains: body.contains, limit: SEARCH_LIMIT };
    for (const type of NUMBER_TYPES) {
      const numbers = await client.availableNumbers(country, type, filters);
      if (numbers?.length) return { country, type, numbers: numbers.slice(0, SEARCH_LIMIT) };
    }
    return { country, type: null, numbers: [] };
  }

  async purchase(principal: Principal, body: PurchaseBody): Promise<PhoneNumberRecord> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    await assertFunded(t.sql, organisationId);
    const integration = await t.requireIntegration(t.sql, organisationId, PROVIDER);
    const bought = await this.client(integration).purchase(body.phoneNumber, t.inboundVoiceUrl(PROVIDER));
    const id = await savePurchasedNumber(t.sql, {
      organisationId,
      provider: PROVIDER,
      integrationId: integration.id,
      remote: bought,
      routingStatus: 'PURCHASED',
    });
    const record = await readNumber(t.sql, organisationId, id);
    if (!record) throw notFound('Phone number');
    return record;
  }

  async sync(principal: Principal, _body: SyncBody): Promise<SyncResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    await t.requireIntegration(t.sql, organisationId, PROVIDER);
    return t.changeLock.run({ organisationId, provider: PROVIDER, operation: 'sync' }, async (change) => {
      // Read again under the claim: a connect that switched accounts just before is what this sync sees.
      const integration = await t.requireIntegration(t.sql, organisationId, PROVIDER);
      const read = await readVoiceNumbers(this.client(integration));
      return change.commit(async (tx) => {
        const counts = await reconcile(tx, {
          organisationId,
          provider: PROVIDER,
          integrationId: integration.id,
          read,
          readStartedAt: change.startedAtExact,
        });
        if (read.complete) await t.integrations.markSynced(tx, integration.id, change.startedAt);
        this.#logPartial(read, organisationId);
        return { ...counts, syncedAt: change.startedAt, complete: read.complete };
      });
    });
  }

  /**
   * The credentials a connect uses: those sent, completed from the stored ones only for the account already
   * connected (a different accountSid needs its own authToken).
   */
  #connectCredentials(
    body: ConnectBody,
    current: StoredIntegration | undefined,
  ): { credentials: CarrierBCredentials; reused: boolean } {
    const accountSid = body.accountSid ?? current?.accountRef;
    if (!accountSid) {
      throw new ApiError(
        'credentials_required',
        'accountSid and authToken are required: no carrier-b account is connected yet',
      );
    }
    if (body.authToken) return { credentials: { accountSid, authToken: body.authToken }, reused: false };
    if (!current || current.accountRef !== accountSid) {
      throw new ApiError(
        'credentials_required',
        'authToken is required: it is reused only when reconnecting the account already connected',
      );
    }
    const authToken = this.#telephony.integrations.credentials(current).auth_token;
    if (!authToken)
      throw new ApiError('credentials_required', 'authToken is required: none is stored for this account');
    return { credentials: { accountSid, authToken }, reused: true };
  }

  #clientFor(credentials: CarrierBCredentials): CarrierBClient {
    return new CarrierBClient({
      baseUrl: this.#telephony.apiUrl(PROVIDER),
      credentials,
      parleyVoiceUrl: this.#telephony.inboundVoiceUrl(PROVIDER),
    });
  }

  #logPartial(read: RemoteRead, organisationId: string): void {
    if (read.complete) return;
    this.#telephony.log.warn(
      { organisationId, provider: PROVIDER, pages: read.pages, err: read.failure },
      'carrier read stopped part-way: nothing deactivated',
    );
  }
}

/** Every page of the account's numbers; only voice numbers are Parley's business. */
async function readVoiceNumbers(client: CarrierBClient): Promise<RemoteRead> {
  const read = await readEveryPage(client.incomingNumbers());
  return { ...read, numbers: read.numbers.filter((n: RemoteNumber) => n.capabilities.voice) };
}
