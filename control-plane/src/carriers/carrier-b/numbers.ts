/**
 * carrier-b on the customer's own account (spec document 2): connect, search, purchase and sync, with the rules
 * the spec gives each. Connect and sync run as one change of the account (change-lock.ts); purchase and search
 * need a funded wallet and are not serialised with them (a purchase during a sync is never deactivated by it).
 */
import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../errors.ts';
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
import { readEveryPage, type RemoteRead } from '../../telephony/reconciler.ts';
import { assertFunded } from '../../wallet/wallet.ts';
import type { ConnectBody, PurchaseBody, SearchBody, SyncBody } from './types.ts';
import {
  applyRead,
  connectAccount,
  connectCredentials,
  storedSecret,
  syncAccount,
  type CredentialNames,
} from '../../telephony/account-sync.ts';

export const PROVIDER = 'carrier-b';
/** The label of an account connected without one, when none was set before. */
export const DEFAULT_LABEL = 'carrier-b account';
const DEFAULT_COUNTRY = 'US';
const CREDENTIALS: CredentialNames = {
  provider: PROVIDER,
  idField: 'accountSid',
  secretField: 'authToken',
  secretKey: 'auth_token',
};

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
    const authToken = storedSecret(this.#telephony, CREDENTIALS, integration);
    return this.#clientFor({ accountSid: stored.account_sid ?? integration.accountRef, authToken });
  }

  async connect(principal: Principal, body: ConnectBody): Promise<ConnectResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    return connectAccount(t, {
      organisationId,
      provider: PROVIDER,
      account: (current) => {
        const sent = { id: body.accountSid, secret: body.authToken };
        const { id: accountSid, secret: authToken, reused } = connectCredentials(t, CREDENTIALS, sent, current);
        const stored = { account_sid: accountSid, auth_token: authToken };
        return { accountRef: accountSid, stored, credentials: { accountSid, authToken }, reused };
      },
      bringIn: (account) => readVoiceNumbers(this.#clientFor(account.credentials)),
      config: (_account, _read, { current, replaced }) => ({
        label: body.label ?? (current?.config.label as string | undefined) ?? DEFAULT_LABEL,
        amd: body.amd ?? (current && !replaced ? current.config.amd === true : false),
        connected_at: new Date().toISOString(),
      }),
      apply: async (tx, { account, integration, work: read, change, retired }) => {
        const counts = await applyRead(t, tx, {
          organisationId,
          provider: PROVIDER,
          integrationId: integration.id,
          read,
          change,
        });
        return {
          integration: integrationRecord(integration),
          reusedStoredCredentials: account.reused,
          imported: counts.imported,
          updated: counts.updated,
          deactivated: counts.deactivated + retired,
          complete: read.complete,
        };
      },
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
    return syncAccount(t, {
      organisationId,
      provider: PROVIDER,
      bringIn: (integration) => readVoiceNumbers(this.client(integration)),
      apply: async (tx, { integration, work: read, change }) => {
        const counts = await applyRead(t, tx, {
          organisationId,
          provider: PROVIDER,
          integrationId: integration.id,
          read,
          change,
        });
        return { ...counts, syncedAt: change.startedAt, complete: read.complete };
      },
    });
  }

  #clientFor(credentials: CarrierBCredentials): CarrierBClient {
    return new CarrierBClient({
      baseUrl: this.#telephony.apiUrl(PROVIDER),
      credentials,
      parleyVoiceUrl: this.#telephony.inboundVoiceUrl(PROVIDER),
    });
  }
}

/** Every page of the account's numbers; only voice numbers are Parley's business. */
async function readVoiceNumbers(client: CarrierBClient): Promise<RemoteRead> {
  const read = await readEveryPage(client.incomingNumbers());
  return { ...read, numbers: read.numbers.filter((n: RemoteNumber) => n.capabilities.voice) };
}
