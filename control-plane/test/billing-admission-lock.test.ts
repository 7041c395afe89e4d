/**
 * Call admission's lock, deterministically (billing/call-admission.ts): while one placement holds its
 * organisation's billing row with the call it is recording, a second placement of the same organisation waits,
 * and once the first commits it counts that call — so a limit of one admits one. Without the lock the second
 * would count nothing and be admitted too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitCall } from '../src/billing/call-admission.ts';
import { newId } from '../src/db/ids.ts';
import { ApiError } from '../src/errors.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedAgent, seedOrganisation } from './support/seed.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => db?.close());

describe.skipIf(!process.env.DATABASE_URL)('call admission (two connections to one server)', () => {
  it('a second placement waits for the first to record its call, then counts it', async () => {
    const org = await seedOrganisation(db.sql, 'Admission');
    const agentId = await seedAgent(db.sql, org.organisationId, 'VOICE');
    const limits = { defaultConcurrentCalls: 1 };
    const first = await db.sql.reserve();
    const second = await db.sql.reserve();
    try {
      await first`begin`;
      await admitCall(first, org.organisationId, limits);
      const callId = newId();
      await first`insert into call_records (id, organisation_id, agent_id, room_name, call_type, call_status)
                  values (${callId}, ${org.organisationId}, ${agentId}, ${`room-${callId}`}, 'websocket', 'QUEUED')`;

      await second`begin`;
      const [backend] = (await second`select pg_backend_pid() as pid`) as unknown as { pid: number }[];
      const pid = backend!.pid;
      const secondAdmission = admitCall(second, org.organisationId, limits).then(
        () => 'admitted',
        (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
      );
      // The second placement is held at the billing row while the first has not committed.
      await expect
        .poll(
          async () => {
            const [row] = await db.sql<{ waiting: boolean }[]>`
              select wait_event_type = 'Lock' as waiting from pg_stat_activity where pid = ${pid}`;
            return row?.waiting;
          },
          { timeout: 10_000 },
        )
        .toBe(true);
      await first`commit`;
      expect(await secondAdmission).toBe('payment_required');
      await second`rollback`;
    } finally {
      first.release();
      second.release();
    }
  });
});
