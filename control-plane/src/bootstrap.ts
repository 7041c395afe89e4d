/**
 * First start: with an empty database, create an organisation (every feature on, its wallet credited with
 * PARLEY_BOOTSTRAP_CREDIT_USD so that a first call can be placed), its owner and an API key with every scope, print
 * the key once, and write it to $PARLEY_DATA_DIR/bootstrap.json (mode 0600) for scripts.
 */
import { BOOTSTRAP_FILE, type BootstrapFile } from './bootstrap-file.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import { lockForTransaction, type Sql } from './db/database.ts';
import { countOrganisations } from './accounts/repository.ts';
import { FEATURES, provisionOrganisationIn, type ProvisionedOrganisation } from './accounts/provisioning.ts';

export { BOOTSTRAP_FILE, type BootstrapFile };
export const BOOTSTRAP_ORGANISATION_NAME = 'My organisation';
export const BOOTSTRAP_OWNER_EMAIL = 'owner@parley.local';

/** Who the journal names for the bootstrap credit. */
export const BOOTSTRAP_CREDIT_ACTOR = 'parley start (first start)';

/**
 * Creates the first organisation when there is none, its wallet credited with `creditMinor` (US cents); returns it,
 * or undefined when the database had data.
 */
export async function bootstrapIfEmpty(sql: Sql, creditMinor: number): Promise<ProvisionedOrganisation | undefined> {
  return sql.begin(async (tx) => {
    // Two processes starting on one empty database: the lock makes the second wait, then see the first's work.
    await lockForTransaction(tx, 'parley.bootstrap');
    if ((await countOrganisations(tx)) > 0) return undefined;
    return provisionOrganisationIn(tx, {
      name: BOOTSTRAP_ORGANISATION_NAME,
      ownerEmail: BOOTSTRAP_OWNER_EMAIL,
      ownerName: 'Owner',
      features: FEATURES,
      credit: {
        amountMinor: creditMinor,
        reason: 'Bootstrap credit (PARLEY_BOOTSTRAP_CREDIT_USD)',
        actor: BOOTSTRAP_CREDIT_ACTOR,
      },
    });
  });
}

export async function writeBootstrapFile(dataDir: string, contents: BootstrapFile): Promise<string> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, BOOTSTRAP_FILE);
  await fs.writeFile(file, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
  // writeFile keeps the mode of a file that already existed; make sure it is private either way.
  await fs.chmod(file, 0o600);
  return file;
}
