/**
 * carrier-a on the customer's own account (spec document 2): connect and sync, with the rules the spec gives each.
 * Parley answers the account's calls through one application of its own there (answer URL: the inbound voice
 * webhook); connect and sync make sure it exists and point at it every imported number on no application, leaving
 * numbers of other applications alone (NEEDS_SETUP) unless connect names one in phoneNumber. Subaccount numbers are
 * never imported. Both run as one change of the account (change-lock.ts); their carrier-side work (the application,
 * numbers pointed) happens before the commit and is idempotent, so a change that fails is finished by the next.
 */
import type { Principal } from '../../auth/principal.ts';
import type { Queryable, TransactionSql } from '../../db/database.ts';
import { ApiError, badField } from '../../errors.ts';
import {
  APPLICATION_NAME,
  CarrierAClient,
  applicationUrls,
  inboundVia,
  type CarrierACredentials,
  type CarrierANumber,
} from './api.ts';
import { CarrierError } from '../../telephony/carrier.ts';
import type { TelephonyContext } from '../../telephony/context.ts';
import {
  integrationRecord,
  type IntegrationRecord,
  type StoredIntegration,
} from '../../telephony/integration-repository.ts';
import { numberIdByValue, readNumber, type PhoneNumberRecord } from '../../telephony/phone-number-repository.ts';
import { readEveryPage, type ReconcileCounts, type RemoteRead } from '../../telephony/reconciler.ts';
import type { ConnectBody, SyncBody } from './types.ts';
import { receivesManagedNumbers } from '../../telephony/managed.ts';
import {
  applyRead,
  connectAccount,
  connectCredentials,
  storedSecret,
  syncAccount,
  type CredentialNames,
} from '../../telephony/account-sync.ts';
import type { Change } from '../../telephony/change-lock.ts';

export const PROVIDER = 'carrier-a';
/** The label of an account connected without one, when none was set before. */
export const DEFAULT_LABEL = 'carrier-a account';
/**
 * Numbers pointed at Parley's application at once. The carrier answers each update in well under a second; four at a
 * time moves a few hundred numbers within seconds, far inside the change's lease, without leaning on the account's
 * API rate limit (which the carrier shares with the customer's own traffic).
 */
const POINT_CONCURRENCY = 4;
const CREDENTIALS: CredentialNames = {
  provider: PROVIDER,
  idField: 'authId',
  secretField: 'authToken',
  secretKey: 'auth_token',
};

export interface ConnectResult extends Omit<ReconcileCounts, 'deactivated'> {
  integration: IntegrationRecord;
  reusedStoredCredentials: boolean;
  applicationCreated: boolean;
  pointed: number;
  skippedSubaccount: number;
  deactivated: number;
  complete: boolean;
  number: PhoneNumberRecord | null;
}

export interface SyncResult extends ReconcileCounts {
  pointed: number;
  skippedSubaccount: number;
  syncedAt: Date;
  complete: boolean;
  appId: string;
}

/** What the carrier-side work of a connect or sync produced, ready for the commit. */
interface BroughtIn {
  appId: string;
  applicationCreated: boolean;
  /** The numbers to reconcile, each with its routing as it now is. */
  read: RemoteRead;
  /** Whether the whole account was read (only then may numbers missing from it be deactivated). */
  wholeAccount: boolean;
  pointed: number;
  skippedSubaccount: number;
}

export class CarrierAService {
  readonly #telephony: TelephonyContext;

  constructor(telephony: TelephonyContext) {
    this.#telephony = telephony;
  }

  /** A client of the account behind a stored integration, knowing its application. */
  client(integration: StoredIntegration): CarrierAClient {
    return this.#clientFor(this.#storedCredentials(integration), appIdOf(integration));
  }

  async connect(principal: Principal, body: ConnectBody): Promise<ConnectResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    return connectAccount(t, {
      organisationId,
      provider: PROVIDER,
      account: (current) => {
        const sent = { id: body.authId?.toUpperCase(), secret: body.authToken };
        const { id: authId, secret: authToken, reused } = connectCredentials(t, CREDENTIALS, sent, current);
        this.#refuseServiceAccount(authId);
        const stored = { auth_id: authId, auth_token: authToken };
        return { accountRef: authId, stored, credentials: { authId, authToken }, reused };
      },
      bringIn: async (account, { current, replaced }) => {
        const client = this.#clientFor(account.credentials, replaced ? null : appIdOf(current));
        return body.phoneNumber ? await this.#bringInOne(client, body.phoneNumber) : await this.#bringInAll(client);
      },
      config: (_account, work, { current }) => ({
        label: body.label ?? (current?.config.label as string | undefined) ?? DEFAULT_LABEL,
        app_id: work.appId,
        app_name: APPLICATION_NAME,
        connected_at: new Date().toISOString(),
      }),
      apply: async (tx, { account, integration, work, change, retired }) => {
        const counts = await this.#apply(tx, organisationId, integration.id, work, change);
        return {
          integration: integrationRecord(integration),
          reusedStoredCredentials: account.reused,
          applicationCreated: work.applicationCreated,
          ...counts,
          pointed: work.pointed,
          skippedSubaccount: work.skippedSubaccount,
          deactivated: counts.deactivated + retired,
          complete: work.read.complete,
          number: body.phoneNumber ? ((await readNumberByPhone(tx, organisationId, body.phoneNumber)) ?? null) : null,
        };
      },
    });
  }

  async sync(principal: Principal, _body: SyncBody): Promise<SyncResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    const organisation = await t.organisation(t.sql, organisationId);
    if (receivesManagedNumbers(organisation)) {
      throw new ApiError(
        'conflict',
        'This organisation gets its numbers from the service itself (managed numbers), not from a carrier-a account of ' +
          `its own: see GET /telephony/managed/${organisationId}`,
      );
    }
    await t.requireSelfServe(t.sql, organisationId);
    return syncAccount(t, {
      organisationId,
      provider: PROVIDER,
      bringIn: (integration) => {
        this.#refuseServiceAccount(integration.accountRef);
        return this.#bringInAll(this.#clientFor(this.#storedCredentials(integration), appIdOf(integration)));
      },
      apply: async (tx, { integration, work, change }) => {
        if (work.appId !== appIdOf(integration)) {
          // The application was deleted at the carrier (or never recorded) and made again: remember the new one.
          const credentials = this.#storedCredentials(integration);
          await t.integrations.save(tx, {
            organisationId,
            provider: PROVIDER,
            accountRef: integration.accountRef,
            config: { ...integration.config, app_id: work.appId, app_name: APPLICATION_NAME },
            credentials: { auth_id: credentials.authId, auth_token: credentials.authToken },
          });
        }
        const counts = await this.#apply(tx, organisationId, integration.id, work, change);
        return {
          ...counts,
          pointed: work.pointed,
          skippedSubaccount: work.skippedSubaccount,
          syncedAt: change.startedAt,
          complete: work.read.complete,
          appId: work.appId,
        };
      },
    });
  }

  /**
   * Every number of the main account: Parley's application made sure of, then every page read, then the numbers on
   * no application pointed at it. Numbers on another application are left as they are (NEEDS_SETUP).
   */
  async #bringInAll(client: CarrierAClient): Promise<BroughtIn> {
    const app = await client.ensureApplication(this.#applicationUrls());
    let skippedSubaccount = 0;
    async function* mainAccountVoice(): AsyncGenerator<CarrierANumber[]> {
      for await (const page of client.accountNumbers()) {
        yield page.filter((n) => {
          if (n.subaccount) skippedSubaccount += 1;
          return !n.subaccount && n.capabilities.voice;
        });
      }
    }
    const read = await readEveryPage(mainAccountVoice());
    // readEveryPage hands back the numbers the generator yielded: carrier-a's, with their application.
    const numbers = read.numbers as CarrierANumber[];
    const unrouted = numbers.filter((n) => inboundVia(n, app.appId) === 'unset');
    const pointed = await this.#pointAll(client, unrouted, app.appId);
    return {
      appId: app.appId,
      applicationCreated: app.created,
      read: {
        ...read,
        numbers: numbers.map((n) => ({
          ...n,
          inbound: pointed.has(n.phoneNumber) ? 'parley' : inboundVia(n, app.appId),
        })),
      },
      wholeAccount: true,
      pointed: pointed.size,
      skippedSubaccount,
    };
  }

  /** The one number named in a connect: checked to be a voice number of the main account, and moved to Parley. */
  async #bringInOne(client: CarrierAClient, phoneNumber: string): Promise<BroughtIn> {
    const found = await client.findNumber(phoneNumber);
    if (!found) throw badField('phoneNumber', 'is not a number of this carrier-a account');
    if (found.subaccount)
      throw badField(
        'phoneNumber',
        'belongs to a subaccount of this carrier-a account: subaccount numbers are never imported',
      );
    if (!found.capabilities.voice)
      throw badField('phoneNumber', 'cannot take calls: voice is not enabled on it at the carrier');
    const app = await client.ensureApplication(this.#applicationUrls());
    const moved = inboundVia(found, app.appId) !== 'parley';
    if (moved) await client.pointAt(found, app.appId);
    return {
      appId: app.appId,
      applicationCreated: app.created,
      read: { numbers: [{ ...found, inbound: 'parley' }], complete: true, pages: 1 },
      wholeAccount: false,
      pointed: moved ? 1 : 0,
      skippedSubaccount: 0,
    };
  }

  /**
   * Points the numbers at the application, a few at a time; the phone numbers pointed. A number the carrier refuses
   * to move (or no longer has) stays as it was and is reported in the log; assigning it to an agent later tries
   * again and shows the carrier's reason. Any other failure (credentials, carrier down) fails the change: whatever
   * was pointed already stays pointed, which the next connect or sync takes as done.
   */
  async #pointAll(client: CarrierAClient, numbers: CarrierANumber[], appId: string): Promise<Set<string>> {
    const pointed = new Set<string>();
    const abort = new AbortController();
    let next = 0;
    const worker = async () => {
      while (next < numbers.length && !abort.signal.aborted) {
        const number = numbers[next++]!;
        try {
          await client.pointAt(number, appId, abort.signal);
          pointed.add(number.phoneNumber);
        } catch (error) {
          if (error instanceof CarrierError && (error.code === 'rejected' || error.code === 'not_found')) {
            this.#telephony.log.warn(
              { provider: PROVIDER, phoneNumber: number.phoneNumber, err: error },
              "carrier refused to point a number at Parley's application",
            );
            continue;
          }
          abort.abort(error);
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(POINT_CONCURRENCY, numbers.length) }, worker));
    return pointed;
  }

  /** Applies the work in the change's commit; a connect naming one number is no read of the whole account. */
  #apply(tx: TransactionSql, organisationId: string, integrationId: string, work: BroughtIn, change: Change) {
    const { read, wholeAccount } = work;
    return applyRead(this.#telephony, tx, {
      organisationId,
      provider: PROVIDER,
      integrationId,
      read,
      change,
      wholeAccount,
    });
  }

  /** The account's credentials behind a stored integration, decrypted. */
  credentials(integration: StoredIntegration): CarrierACredentials {
    return this.#storedCredentials(integration);
  }

  #storedCredentials(integration: StoredIntegration): CarrierACredentials {
    const authToken = storedSecret(this.#telephony, CREDENTIALS, integration);
    return {
      authId: this.#telephony.integrations.credentials(integration).auth_id ?? integration.accountRef,
      authToken,
    };
  }

  /** 403: the service's own main account carries the numbers it rents to organisations; no organisation may take it. */
  #refuseServiceAccount(authId: string): void {
    if (!this.#telephony.isServiceAccount(PROVIDER, authId)) return;
    throw new ApiError(
      'forbidden',
      "authId is this service's own carrier-a account (the one its managed numbers are rented on), which cannot be " +
        "connected as an organisation's account: connect a carrier-a account of your own",
    );
  }

  #applicationUrls() {
    return applicationUrls(this.#telephony.inboundVoiceUrl(PROVIDER));
  }

  #clientFor(credentials: CarrierACredentials, knownAppId: string | null): CarrierAClient {
    return new CarrierAClient({ baseUrl: this.#telephony.apiUrl(PROVIDER), credentials }, knownAppId);
  }
}

/** The id of Parley's application recorded on an integration, if any. */
function appIdOf(integration: StoredIntegration | undefined): string | null {
  const appId = integration?.config.app_id;
  return typeof appId === 'string' && appId !== '' ? appId : null;
}

/** The organisation's number with this E.164 value, as the API shows it. */
async function readNumberByPhone(
  sql: Queryable,
  organisationId: string,
  phoneNumber: string,
): Promise<PhoneNumberRecord | undefined> {
  const id = await numberIdByValue(sql, organisationId, phoneNumber);
  return id ? readNumber(sql, organisationId, id) : undefined;
}
