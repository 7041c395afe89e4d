/**
 * A child process that posts one debit through the real ledger and stays in its transaction until it is killed
 * or the parent lets it go: wallet-ledger-faults.test.ts SIGKILLs it between statements.
 * Arguments: DATABASE_URL schema organisationId amountMinor.
 */
import { openDatabase } from '../../src/db/database.ts';
import { post } from '../../src/wallet/ledger.ts';

const [url, schema, organisationId, amount] = process.argv.slice(2);
const db = await openDatabase({ databaseUrl: url, schema: schema!, dataDir: undefined, maxConnections: 1 });
await db.sql.begin(async (tx) => {
  const [backend] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
  process.stdout.write(`backend ${backend!.pid}\n`);
  const result = await post(tx, {
    organisationId: organisationId!,
    wallet: 'WALLET',
    currency: 'USD',
    type: 'DEBIT',
    amount: -Number(amount),
    counterparty: 'revenue',
    referenceType: 'VOICE_CALL',
    description: 'debit in a child process',
    actor: 'child',
    idempotencyKey: `child:${process.pid}`,
  });
  process.stdout.write(`${result.status}\n`);
});
process.stdout.write('committed\n');
await db.close();
