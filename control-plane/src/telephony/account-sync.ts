/**
 * The skeleton every carrier's connect and sync share (spec document 2); each carrier supplies only its wire-specific
 * parts: which account the request names and with what credentials, the carrier-side work (read every page, point
 * numbers at Parley), the config it keeps, and the answer it gives.
 *
 * connect: one change of the account (change-lock.ts) → the account connected now → the account asked for → when
 * that is another account, 409 while agents use the old one's numbers (before the carrier is asked anything) → the
 * carrier-side work → in the commit: the old account's numbers retired, the integration saved, the read applied.
 * sync: 404 without an account → one change → the account read again under the claim → the carrier-side work → the
 * read applied in the commit.
 * Applying a read: reconcile (upsert present and new numbers, deactivate gone ones only after a whole, complete read,
 * counting each kind), the sync time recorded after a complete read, a partial read logged.
 */
import type { TransactionSql } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { assertNumbersFree, retireReplacedAccount } from './account-switch.ts';
import type { Carrier } from './carrier.ts';
import type { Change } from './change-lock.ts';
import type { TelephonyContext } from './context.ts';
import type { StoredIntegration } from './integrations.ts';
import { reconcile, type ReconcileCounts, type RemoteRead } from './reconciler.ts';

/** The account a connect names, as the carrier knows it, with the credentials to store for it. */
export interface ConnectingAccount {
  /** The carrier's account id (carrier-a auth_id, carrier-b/c AccountSid): the integration's accountRef. */
  accountRef: string;
  /** Credentials in clear by config key, as the integration stores them (encrypted). */
  stored: Record<string, string>;
}

/** Where a connect starts from: the account connected now, and the one it replaces when it names another. */
export interface ConnectStart {
  current: StoredIntegration | undefined;
  /** The account connected now, when the connect names a different one: its numbers are retired in the commit. */
  replaced: StoredIntegration | undefined;
}

/** What a connect's commit has to apply. */
export interface ConnectDone<Account, Work> {
  account: Account;
  integration: StoredIntegration;
  work: Work;
  change: Change;
  retired: number;
}

export interface ConnectSteps<Account extends ConnectingAccount, Work, Result> {
  organisationId: string;
  provider: Carrier;
  /** The account the request names, completed from the one connected now; throws 400/403 when it cannot be used. */
  account(current: StoredIntegration | undefined): Account;
  /** The carrier-side work (read every page, point numbers): idempotent, done before the commit. */
  bringIn(account: Account, start: ConnectStart): Promise<Work>;
  /** The integration's config to save. */
  config(account: Account, work: Work, start: ConnectStart): Record<string, unknown>;
  /**
   * Inside the commit, after the integration was saved: applies the work and answers. `retired` counts the old
   * account's numbers retired.
   */
  apply(tx: TransactionSql, done: ConnectDone<Account, Work>): Promise<Result>;
}

/** Connects (or reconnects) the organisation's account of a carrier as one change. */
export function connectAccount<Account extends ConnectingAccount, Work, Result>(
  t: TelephonyContext,
  steps: ConnectSteps<Account, Work, Result>,
): Promise<Result> {
  const { organisationId, provider } = steps;
  return t.changeLock.run({ organisationId, provider, operation: 'connect' }, async (change) => {
    const current = await t.integrations.active(t.sql, organisationId, provider);
    const account = steps.account(current);
    const replaced = current && current.accountRef !== account.accountRef ? current : undefined;
    // Refused before the carrier is asked anything; checked again in the commit, which is what counts.
    if (replaced) await assertNumbersFree(t.sql, replaced);
    const start = { current, replaced };
    const work = await steps.bringIn(account, start);
    const config = steps.config(account, work, start);
    return change.commit(async (tx) => {
      const retired = await retireReplacedAccount(tx, replaced);
      const integration = await t.integrations.save(tx, {
        organisationId,
        provider,
        accountRef: account.accountRef,
        config,
        credentials: account.stored,
      });
      return steps.apply(tx, { account, integration, work, change, retired });
    });
  });
}

export interface SyncSteps<Work, Result> {
  organisationId: string;
  provider: Carrier;
  /** The carrier-side work on the account connected now (read again under the change's claim). */
  bringIn(integration: StoredIntegration): Promise<Work>;
  /** Inside the commit: applies the work and answers. */
  apply(tx: TransactionSql, done: { integration: StoredIntegration; work: Work; change: Change }): Promise<Result>;
}

/** Syncs the organisation's connected account of a carrier as one change; 404 when none is connected. */
export async function syncAccount<Work, Result>(t: TelephonyContext, steps: SyncSteps<Work, Result>): Promise<Result> {
  const { organisationId, provider } = steps;
  await t.requireIntegration(t.sql, organisationId, provider);
  return t.changeLock.run({ organisationId, provider, operation: 'sync' }, async (change) => {
    // Read again under the claim: a connect that switched accounts just before is what this sync sees.
    const integration = await t.requireIntegration(t.sql, organisationId, provider);
    const work = await steps.bringIn(integration);
    return change.commit((tx) => steps.apply(tx, { integration, work, change }));
  });
}

export interface ApplyRead {
  organisationId: string;
  provider: Carrier;
  integrationId: string;
  read: RemoteRead;
  change: Change;
  /**
   * Whether the read covers the whole account (default true). A read of one number (carrier-a's connect naming a
   * phoneNumber) deactivates nothing and is no sync of the account.
   */
  wholeAccount?: boolean;
}

/** Applies a carrier read inside the change's commit: reconcile, the sync time when complete, a partial read logged. */
export async function applyRead(t: TelephonyContext, tx: TransactionSql, input: ApplyRead): Promise<ReconcileCounts> {
  const { organisationId, provider, integrationId, read, change } = input;
  // Only a whole, complete read of the account may deactivate numbers missing from it.
  const settles = (input.wholeAccount ?? true) && read.complete;
  const counts = await reconcile(tx, {
    organisationId,
    provider,
    integrationId,
    read: { ...read, complete: settles },
    readStartedAt: change.startedAtExact,
  });
  if (settles) await t.integrations.markSynced(tx, integrationId, change.startedAt);
  if (!read.complete) {
    t.log.warn(
      { organisationId, provider, pages: read.pages, err: read.failure },
      'carrier read stopped part-way: nothing deactivated',
    );
  }
  return counts;
}

/** How a carrier names the two credentials of its account in a connect body and in the stored integration. */
export interface CredentialNames {
  provider: Carrier;
  /** The account id's field in the body (authId, accountSid). */
  idField: string;
  /** The secret's field in the body (authToken). */
  secretField: string;
  /** The secret's key among the stored credentials (auth_token). */
  secretKey: string;
}

/**
 * The account id and secret a connect uses: those sent, the secret completed from the stored one only for the
 * account already connected (a different account needs its own secret). 400 credentials_required otherwise.
 */
export function connectCredentials(
  t: TelephonyContext,
  names: CredentialNames,
  sent: { id: string | undefined; secret: string | undefined },
  current: StoredIntegration | undefined,
): { id: string; secret: string; reused: boolean } {
  const id = sent.id ?? current?.accountRef;
  if (!id) {
    throw new ApiError(
      'credentials_required',
      `${names.idField} and ${names.secretField} are required: no ${names.provider} account is connected yet`,
    );
  }
  if (sent.secret) return { id, secret: sent.secret, reused: false };
  if (!current || current.accountRef !== id) {
    throw new ApiError(
      'credentials_required',
      `${names.secretField} is required: it is reused only when reconnecting the account already connected`,
    );
  }
  const secret = t.integrations.credentials(current)[names.secretKey];
  if (!secret)
    throw new ApiError('credentials_required', `${names.secretField} is required: none is stored for this account`);
  return { id, secret, reused: true };
}

/** The stored secret of a connected account; 400 credentials_required when it is missing. */
export function storedSecret(t: TelephonyContext, names: CredentialNames, integration: StoredIntegration): string {
  const secret = t.integrations.credentials(integration)[names.secretKey];
  if (!secret) {
    throw new ApiError(
      'credentials_required',
      `The stored ${names.provider} credentials are incomplete: connect the account again with its ${names.secretField}`,
    );
  }
  return secret;
}
