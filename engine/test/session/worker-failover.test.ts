/**
 * A call survives the death of the STT worker serving it: the session notices the silence of its heartbeats,
 * reopens the stream on another worker, and the caller's next sentence is heard and answered.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WORKER_DEAD_AFTER_MS } from '../../src/protocol/index.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

for (const fabric of fabrics()) {
  describe(`a call on the ${fabric.name}`, () => {
    let call: RunningCall | undefined;
    afterAll(async () => {
      await call?.close();
      await fabric.close();
    });

    it('goes on with another STT worker when the one serving it dies mid-call', async () => {
      // Each worker has its own script, as each would be its own process; both know the same two sentences.
      const lines = () => scriptedStt(['first question', 'second question']);
      const llm = scriptedChat([{ text: 'First answer.' }, { text: 'Second answer.' }]);
      call = await startCall(
        callSpec({ greetingMessage: null }),
        { stt: lines, tts: toneTts('tone', 20), llm },
        { connect: () => fabric.connect(), sttWorkers: 2 },
      );
      await call.speak(500);
      await call.silence(800);
      await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === 'First answer.');

      const serving = call.workers.slice(1, 3).find((w) => w.streamCount > 0)!;
      const other = call.workers.slice(1, 3).find((w) => w !== serving)!;
      await serving.stop({ handBack: false }); // dies without a word
      await call.silence(WORKER_DEAD_AFTER_MS + 1_000);
      expect(call.sttFailovers()).toBe(1);
      expect(other.streamCount).toBe(1);

      await call.speak(500);
      await call.silence(800);
      await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === 'Second answer.');
      expect(call.session.state).not.toBe('ended');
      // The second worker's script starts at its first line: what matters is that the caller was heard again.
      const heard = call.events
        .filter((e) => e.type === 'transcript' && e.speaker === 'user')
        .map((e) => (e as { text: string }).text);
      expect(heard).toHaveLength(2);
    }, 30_000);
  });
}
