/**
 * A call whose only STT worker dies, with none to take its stream back within the failover budget
 * (docs/architecture.md §18): the agent says it cannot hear the caller — real TTS frames reach the caller after the
 * failure — and the call ends FAILED with reason `stt_unavailable`. With the TTS worker gone too, it ends at once,
 * silent, with the same reason.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { OPEN_DEADLINE_MS } from '../../src/workers/client/worker-stream.ts';
import { WORKER_DEAD_AFTER_MS } from '../../src/protocol/index.ts';
import { RECOGNISER_LOST_LINES, STT_UNAVAILABLE } from '../../src/session/recogniser-lost.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { frameNumber, numberedToneTts, scriptedChat, scriptedStt } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

/** From the death to the call's end: the worker is found dead, the reopen deadline passes, with room for a loaded machine. */
const LOST_WITHIN_MS = WORKER_DEAD_AFTER_MS + OPEN_DEADLINE_MS + 10_000;

for (const fabric of fabrics()) {
  describe(`a call on the ${fabric.name} whose recogniser is lost for good`, () => {
    let call: RunningCall | undefined;
    afterEach(async () => {
      await call?.close();
      call = undefined;
    });
    afterAll(() => fabric.close());

    async function answeredOnce(tts: ReturnType<typeof numberedToneTts>): Promise<RunningCall> {
      const running = await startCall(
        // Limits far off: the call must end for its recogniser, not for the caller's silence while the test waits.
        callSpec({ greetingMessage: null }, { maxDurationMs: 300_000, inactivityMs: 300_000 }),
        { stt: scriptedStt(['first question']), tts, llm: scriptedChat([{ text: 'First answer.' }]) },
        { connect: () => fabric.connect() },
      );
      call = running;
      await running.speak(500);
      await running.silence(800);
      await running.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === 'First answer.');
      return running;
    }

    it('apologises with real audio, then ends FAILED with reason stt_unavailable', async () => {
      const tts = numberedToneTts(20);
      const running = await answeredOnce(tts);
      const [, stt] = running.workers;
      const heardBefore = running.caller.heard.length;
      const killedAt = performance.now();
      await stt!.stop({ handBack: false }); // the only STT worker dies without a word

      const summary = await Promise.race([
        running.ended,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the call never ended')), LOST_WITHIN_MS)),
      ]);
      // Not before the failover budget: the call waited for another worker first.
      expect(performance.now() - killedAt).toBeGreaterThanOrEqual(WORKER_DEAD_AFTER_MS);
      expect(summary).toMatchObject({ reason: STT_UNAVAILABLE, outcome: 'failed' });
      const ended = await running.waitFor((e) => e.type === 'ended');
      expect(ended).toMatchObject({ reason: STT_UNAVAILABLE, outcome: 'failed' });
      expect(running.events.some((e) => e.type === 'state' && e.state === 'ending')).toBe(true);

      // The apology was synthesised, and every one of its frames reached the caller after the death.
      const apology = RECOGNISER_LOST_LINES.en!;
      const request = tts.texts.indexOf(apology);
      expect(request).toBeGreaterThan(0);
      const apologyFrames = running.caller.heard.slice(heardBefore).filter((f) => frameNumber(f).request === request);
      expect(apologyFrames.length).toBe(tts.frames[request]);
      expect(apologyFrames.length).toBeGreaterThan(50); // a second of speech at least
      const line = await running.waitFor((e) => e.type === 'transcript' && e.text === apology);
      expect(line).toMatchObject({ speaker: 'assistant' });
      expect((line as { interrupted?: boolean }).interrupted).not.toBe(true);
      expect(await running.caller.hungUp).toBe(STT_UNAVAILABLE);
    }, 60_000);

    it('ends at once, silent, with the same reason when the TTS worker is already gone', async () => {
      const tts = numberedToneTts(20);
      const running = await answeredOnce(tts);
      const [ttsWorker, stt] = running.workers;
      const heardBefore = running.caller.heard.length;
      const synthesisedBefore = tts.texts.length;
      await ttsWorker!.stop({ handBack: false });
      // Past the TTS stream's failover budget: it is lost for good, and the call goes on (it has nothing to say).
      await running.silence(WORKER_DEAD_AFTER_MS + OPEN_DEADLINE_MS + 3_000);
      expect(running.session.state).not.toBe('ended');
      await stt!.stop({ handBack: false });

      const summary = await Promise.race([
        running.ended,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the call never ended')), LOST_WITHIN_MS)),
      ]);
      expect(summary).toMatchObject({ reason: STT_UNAVAILABLE, outcome: 'failed' });
      expect(await running.waitFor((e) => e.type === 'ended')).toMatchObject({ reason: STT_UNAVAILABLE });
      // Ended as soon as it decided to: no line waited on a voice that cannot answer.
      const ending = await running.waitFor((e) => e.type === 'state' && e.state === 'ending');
      expect(summary.durationMs - (ending as { atMs: number }).atMs).toBeLessThan(3_000);
      // Nothing more was synthesised or sent.
      expect(tts.texts.length).toBe(synthesisedBefore);
      expect(running.caller.heard.length).toBe(heardBefore);
      expect(await running.caller.hungUp).toBe(STT_UNAVAILABLE);
    }, 90_000);
  });
}
