/**
 * A fingerprint of everything one organisation owns: every row of every table with an organisation_id column,
 * plus the rows of its people. Equal fingerprints before and after a foreign request prove it changed nothing.
 * Bookkeeping that any authenticated request touches (a key's last_used_at) is left out.
 */

const BOOKKEEPING_COLUMNS = new Set(['last_used_at']);

function withoutBookkeeping(rows: readonly Record<string, unknown>[]): unknown[] {
  return rows.map((row) =>
    Object.fromEntries(Object.entries(row).filter(([column]) => !BOOKKEEPING_COLUMNS.has(column))),
  );
}
import { createHash } from 'node:crypto';
import type { Sql } from '../../../src/db/database.ts';

export async function fingerprint(sql: Sql, organisationId: string): Promise<string> {
  const tables = await sql<{ table_name: string }[]>`
    select table_name from information_schema.columns
     where table_schema = current_schema() and column_name = 'organisation_id' order by table_name`;
  const hash = createHash('sha256');
  for (const { table_name: table } of tables) {
    // The first column is the table's key (id, or organisation_id where the organisation is the key).
    const rows = await sql.unsafe(`select * from "${table}" where organisation_id = $1 order by 1`, [organisationId]);
    hash.update(`${table}:${JSON.stringify(withoutBookkeeping(rows))}`);
  }
  const people =
    await sql`select * from users where id in (select owner_id from organisations where id = ${organisationId})
                              or id in (select user_id from members where organisation_id = ${organisationId}) order by id`;
  hash.update(`users:${JSON.stringify(people)}`);
  const organisation = await sql`select * from organisations where id = ${organisationId}`;
  hash.update(`organisations:${JSON.stringify(organisation)}`);
  return hash.digest('hex');
}
