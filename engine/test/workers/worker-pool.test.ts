/**
 * The worker pool as heartbeats show it (docs/architecture.md §2, §4): which language models are there, learnt from
 * the llm workers alone — their `models` field, or an older worker's provider names — and not from a draining or a
 * silent worker. Each "process" (the pool's, each worker's) has its own bus connection.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Bus } from '../../src/bus/index.ts';
import { codecs, subjects, WORKER_DEAD_AFTER_MS } from '../../src/protocol/index.ts';
import { POOL_SETTLE_MS, WorkerPool } from '../../src/workers/client/worker-pool.ts';
import { llmWorker } from '../../src/workers/llm/llm-worker.ts';
import { sttWorker } from '../../src/workers/stt/stt-worker.ts';
import { startWorker } from '../../src/workers/worker-host.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedLlm, scriptedStt } from '../support/scripted-providers.ts';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A provider that names its model, as OpenAiCompatLlm does. */
function modelLlm(model: string) {
  return { ...scriptedLlm('Hello.', { name: `llm.example.com/${model}` }), model };
}

for (const fabric of fabrics()) {
  describe(`the worker pool on the ${fabric.name}`, () => {
    afterAll(() => fabric.close());

    async function pool(): Promise<{ pool: WorkerPool; bus: Bus }> {
      const bus = await fabric.connect();
      const watched = WorkerPool.watch(bus);
      cleanups.push(() => watched.stop());
      return { pool: watched, bus };
    }

    it('names the models the llm workers run, and none while only other kinds are alive', async () => {
      const { pool: watched } = await pool();
      const stt = startWorker(await fabric.connect(), sttWorker([scriptedStt(['hi'])]));
      cleanups.push(() => stt.stop({ handBack: false }));
      // Settled with an stt worker alone: no language model, and the answer waited for the pool to settle.
      const started = Date.now();
      expect(await watched.hasLanguageModel()).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(POOL_SETTLE_MS - 100);
      expect(watched.live('stt')).toHaveLength(1);

      const llm = startWorker(await fabric.connect(), llmWorker([modelLlm('gpt-4o-mini'), modelLlm('llama3')]));
      cleanups.push(() => llm.stop({ handBack: false }));
      await expect.poll(() => watched.languageModels(), { timeout: 5_000 }).toEqual(['gpt-4o-mini', 'llama3']);
      expect(await watched.hasLanguageModel()).toBe(true);
    });

    it('answers at once when an llm worker beats while it settles, instead of waiting the settle out', async () => {
      const { pool: watched } = await pool();
      const asking = watched.hasLanguageModel();
      const llm = startWorker(await fabric.connect(), llmWorker([modelLlm('gpt-4o-mini')]));
      cleanups.push(() => llm.stop({ handBack: false }));
      expect(await asking).toBe(true);
    });

    it('takes an older llm worker (no models field) for one, by its provider names', async () => {
      const { pool: watched } = await pool();
      const worker = await fabric.connect();
      const beat = codecs.heartbeat.encode({
        workerId: 'llm-older',
        kind: 'llm',
        streams: 0,
        providers: ['llm.example.com/gpt-4o-mini'],
      });
      const timer = setInterval(() => worker.publish(subjects.workerHeartbeat('llm', 'llm-older'), beat), 200);
      cleanups.push(() => clearInterval(timer));
      await expect.poll(() => watched.languageModels(), { timeout: 5_000 }).toEqual(['llm.example.com/gpt-4o-mini']);
    });

    it('forgets a draining llm worker at once, and a silent one after WORKER_DEAD_AFTER_MS', async () => {
      const { pool: watched } = await pool();
      const draining = startWorker(await fabric.connect(), llmWorker([modelLlm('a')]));
      const dying = startWorker(await fabric.connect(), llmWorker([modelLlm('b')]));
      await expect.poll(() => watched.languageModels().sort(), { timeout: 5_000 }).toEqual(['a', 'b']);

      await draining.stop(); // hands back (nothing open): its last beat says it is draining
      await expect.poll(() => watched.languageModels(), { timeout: 5_000 }).toEqual(['b']);

      const silentAt = Date.now();
      await dying.stop({ handBack: false }); // dies without a word
      await expect
        .poll(() => watched.languageModels(), { timeout: WORKER_DEAD_AFTER_MS + 5_000, interval: 100 })
        .toEqual([]);
      // Not forgotten before the sessions themselves would take it for dead (less one heartbeat of slack).
      expect(Date.now() - silentAt).toBeGreaterThan(WORKER_DEAD_AFTER_MS - 1_000);
    }, 20_000);

    it('counts nothing from a malformed heartbeat, and keeps listening after it', async () => {
      const { pool: watched, bus } = await pool();
      bus.publish(subjects.workerHeartbeat('llm', 'llm-bad'), '{"workerId": "llm-bad", "kind": "llm"}');
      const llm = startWorker(await fabric.connect(), llmWorker([modelLlm('gpt-4o-mini')]));
      cleanups.push(() => llm.stop({ handBack: false }));
      await expect.poll(() => watched.languageModels(), { timeout: 5_000 }).toEqual(['gpt-4o-mini']);
      expect(watched.live('llm').map((w) => w.workerId)).toEqual([llm.workerId]);
    });
  });
}
