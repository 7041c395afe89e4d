/** The bus a test uses: the NATS of NATS_URL when set (required under PARLEY_REQUIRE_ALL=1), else in-process. */
import { connectBus, type Bus } from '@parley/engine/bus';
import { requireAll } from './database.ts';

export async function createTestBus(name = 'parley-test'): Promise<Bus> {
  const url = process.env.NATS_URL || undefined;
  if (!url && requireAll) throw new Error('NATS_URL is required when PARLEY_REQUIRE_ALL=1');
  return connectBus(url, name);
}
