import type { CommandArgs } from '../command.ts';
import { print, withDatabase } from '../command.ts';
import { migrate } from '../../db/migrator.ts';

export async function runMigrate(args: CommandArgs): Promise<number> {
  // withDatabase applies migrations itself; asking again reports what is applied now (nothing pending).
  const applied = await withDatabase(async (db) => migrate(db.sql, db.schema));
  print(args.flags.json, { ok: true, pending: applied }, 'Database is up to date.');
  return 0;
}
