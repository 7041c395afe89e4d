/**
 * Worker streams end to end over the bus: a session-side client opens a stream on a queue group of workers,
 * talks to it, and survives the death of the worker serving it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES } from '../../src/audio/format.ts';
import type { Bus } from '../../src/bus/index.ts';
import { WORKER_DEAD_AFTER_MS } from '../../src/protocol/index.ts';
import { LlmClient } from '../../src/workers/client/llm-client.ts';
import { SttClient } from '../../src/workers/client/stt-client.ts';
import { llmWorker } from '../../src/workers/llm/llm-worker.ts';
import { sttWorker } from '../../src/workers/stt/stt-worker.ts';
import { startWorker, type WorkerHandle } from '../../src/workers/worker-host.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { countingStt, scriptedLlm } from '../support/scripted-providers.ts';

const FAILOVER_BUDGET_MS = WORKER_DEAD_AFTER_MS + 4_000;
/**
 * A failover test's whole run: the failover itself is held to FAILOVER_BUDGET_MS by its own poll; the rest (opening
 * streams, two utterances) only needs to finish, and on a loaded 2-core CI machine that has taken seconds.
 */
const FAILOVER_TEST_TIMEOUT_MS = FAILOVER_BUDGET_MS + 20_000;

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

for (const fabric of fabrics()) {
  describe(`worker streams on the ${fabric.name}`, () => {
    const workers: WorkerHandle[] = [];
    afterAll(async () => {
      for (const w of workers) await w.stop();
      await fabric.close();
    });

    it('streams an LLM turn through a worker and cancels on abort', async () => {
      const worker = startWorker(
        await fabric.connect(),
        llmWorker([scriptedLlm('hello there caller', { tokenDelayMs: 5 })]),
      );
      workers.push(worker);
      const client = await LlmClient.open(await fabric.connect(), 'call-a');
      const events = await collect(
        client.turn({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal),
      );
      expect(
        events
          .filter((e) => e.type === 'token')
          .map((e) => (e as { text: string }).text)
          .join(''),
      ).toBe('hello there caller ');
      expect(events.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });

      const abort = new AbortController();
      const partial: string[] = [];
      for await (const event of client.turn({ messages: [{ role: 'user', content: 'again' }] }, abort.signal)) {
        if (event.type === 'token') partial.push(event.text);
        abort.abort();
      }
      expect(partial).toHaveLength(1);
      client.close();
      await worker.stop();
    });

    it('refuses a provider the workers do not have, naming it', async () => {
      const worker = startWorker(await fabric.connect(), llmWorker([scriptedLlm('x', { name: 'only-this' })]));
      workers.push(worker);
      await expect(LlmClient.open(await fabric.connect(), 'call-b', { provider: 'gpt-9' })).rejects.toMatchObject({
        code: 'unknown_provider',
      });
      await worker.stop();
    });

    it(
      'moves an LLM turn to another worker when its worker dies before answering',
      async () => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const busA = await fabric.connect();
        const a = startWorker(busA, llmWorker([scriptedLlm('from worker a', { gate: () => gate })]));
        const client = await LlmClient.open(await fabric.connect(), 'call-c');
        const b = startWorker(await fabric.connect(), llmWorker([scriptedLlm('from worker b')]));
        workers.push(a, b);
        const turn = collect(
          client.turn({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal),
        );
        // Worker a dies without a word: its heartbeats stop and its streams vanish.
        await a.stop({ handBack: false });
        const events = await turn;
        release();
        expect(
          events
            .filter((e) => e.type === 'token')
            .map((e) => (e as { text: string }).text)
            .join(''),
        ).toBe('from worker b ');
        expect(client.failovers).toBe(1);
        client.close();
      },
      FAILOVER_TEST_TIMEOUT_MS,
    );

    it(
      'keeps a call transcribing across an STT worker failure, replaying the utterance in progress',
      async () => {
        const a = startWorker(await fabric.connect(), sttWorker([countingStt()]));
        workers.push(a);
        const client = await SttClient.open(await fabric.connect(), 'call-d', { language: 'en-US' });
        const b = startWorker(await fabric.connect(), sttWorker([countingStt()]));
        workers.push(b);
        const frame = new Int16Array(ENGINE_FRAME_SAMPLES);
        const reader = client.events[Symbol.asyncIterator]();
        for (let i = 0; i < 10; i += 1) client.push(frame);
        client.endOfUtterance();
        expect((await reader.next()).value).toMatchObject({ type: 'final', text: 'heard 200 ms' });

        for (let i = 0; i < 25; i += 1) client.push(frame); // half an utterance…
        await new Promise((r) => setTimeout(r, 50));
        await (a.streamCount > 0 ? a : b).stop({ handBack: false }); // …when its worker dies
        await expect.poll(() => client.failovers, { timeout: FAILOVER_BUDGET_MS }).toBe(1);
        for (let i = 0; i < 25; i += 1) client.push(frame);
        client.endOfUtterance();
        // The new worker heard the whole utterance: the 25 frames before the failure were replayed.
        expect((await reader.next()).value).toMatchObject({ type: 'final', text: 'heard 1000 ms' });
        client.close();
      },
      FAILOVER_TEST_TIMEOUT_MS,
    );

    it(
      'keeps an utterance that ends while the failover is still looking for a worker',
      async () => {
        // Earlier tests' workers would take the failover at once: this one needs a moment with no worker at all.
        for (const earlier of workers.splice(0)) await earlier.stop();
        const a = startWorker(await fabric.connect(), sttWorker([countingStt()]));
        workers.push(a);
        const client = await SttClient.open(await fabric.connect(), 'call-e', { language: 'en-US' });
        const frame = new Int16Array(ENGINE_FRAME_SAMPLES);
        const reader = client.events[Symbol.asyncIterator]();
        for (let i = 0; i < 25; i += 1) client.push(frame);
        await new Promise((r) => setTimeout(r, 50));
        await a.stop({ handBack: false }); // the only worker dies: the failover starts and finds nobody
        await expect.poll(() => client.failovers, { timeout: FAILOVER_BUDGET_MS }).toBe(1);
        // The caller finishes the sentence meanwhile; its audio and its end cannot go anywhere yet.
        for (let i = 0; i < 25; i += 1) client.push(frame);
        client.endOfUtterance();
        const b = startWorker(await fabric.connect(), sttWorker([countingStt()]));
        workers.push(b);
        // The new worker hears the whole sentence, and its end.
        expect((await reader.next()).value).toMatchObject({ type: 'final', text: 'heard 1000 ms' });
        client.close();
      },
      FAILOVER_TEST_TIMEOUT_MS,
    );

    it(
      'hands its streams back when it stops: the session moves to another worker at once, its utterance replayed',
      async () => {
        for (const earlier of workers.splice(0)) await earlier.stop();
        const said: string[] = [];
        const a = startWorker(await fabric.connect(), sttWorker([countingStt()]), (event) => said.push(event));
        workers.push(a);
        const client = await SttClient.open(await fabric.connect(), 'call-f', { language: 'en-US' });
        const b = startWorker(await fabric.connect(), sttWorker([countingStt()]));
        workers.push(b);
        const frame = new Int16Array(ENGINE_FRAME_SAMPLES);
        const reader = client.events[Symbol.asyncIterator]();
        for (let i = 0; i < 25; i += 1) client.push(frame); // half an utterance…
        await new Promise((r) => setTimeout(r, 50));
        expect(a.streamCount).toBe(1);
        await a.stop(); // …when its worker is told to stop (SIGTERM)
        // The session ended its stream on a itself (nothing was left for a to close) and opened one on b.
        expect(said).not.toContain('streams not handed back in time, closing');
        expect(client.failovers).toBe(1);
        await expect.poll(() => b.streamCount, { timeout: FAILOVER_BUDGET_MS }).toBe(1);
        for (let i = 0; i < 25; i += 1) client.push(frame);
        client.endOfUtterance();
        expect((await reader.next()).value).toMatchObject({ type: 'final', text: 'heard 1000 ms' });
        client.close();
      },
      FAILOVER_TEST_TIMEOUT_MS,
    );
  });
}

export type { Bus };
