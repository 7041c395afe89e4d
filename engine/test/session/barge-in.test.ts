/**
 * Barge-in: the caller talking over the agent stops the agent's audio at once, clears what the far end buffered,
 * cancels the reply, and leaves in the conversation only what the caller heard. Backchannels do not interrupt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../src/audio/format.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

const LONG_REPLY =
  'Your appointment is on Tuesday the fourth at ten in the morning with doctor Rao. Please arrive fifteen minutes early and bring your insurance card and a list of your medicines.';

let call: RunningCall | undefined;
afterEach(async () => {
  await call?.close();
  call = undefined;
});

async function untilSpeaking(c: RunningCall): Promise<void> {
  const before = c.caller.heard.length;
  await c.waitFor((e) => e.type === 'state' && e.state === 'speaking');
  while (c.caller.heard.length < before + 25) await c.silence(20); // half a second of the reply has played
}

describe('barge-in', () => {
  it('stops the agent within a frame, clears the far end, and keeps only what was heard', async () => {
    const llm = scriptedChat([{ text: LONG_REPLY }, { text: 'Sure, which day suits you?' }]);
    call = await startCall(callSpec({ greetingMessage: null }), {
      stt: scriptedStt(['when is it', 'wait I need to change it']),
      tts: toneTts(),
      llm,
    });
    await call.speak(500);
    await call.silence(700);
    await untilSpeaking(call);

    let framesAtInterrupt = -1;
    const interrupted = call
      .waitFor((e) => e.type === 'transcript' && e.interrupted === true)
      .then((e) => {
        framesAtInterrupt = call!.caller.heard.length;
        return e;
      });
    await call.speak(1_000);
    const line = await interrupted;
    await call.silence(300);
    // At most the frame already on its way when the decision fell.
    expect(call.caller.heard.length - framesAtInterrupt).toBeLessThanOrEqual(1);
    expect(call.caller.clears).toBeGreaterThanOrEqual(1);
    if (line.type !== 'transcript') throw new Error('unreachable');
    expect(line.text.length).toBeGreaterThan(0);
    expect(LONG_REPLY.startsWith(line.text.replace(/\.$/, ''))).toBe(true);
    expect(line.text.length).toBeLessThan(LONG_REPLY.length);
    // The line lasts as long as the reply played before it stopped (no greeting: every frame heard is the reply's).
    expect(line.startMs).toBeLessThan(line.endMs);
    expect(Math.abs(line.endMs - line.startMs - framesAtInterrupt * FRAME_MS)).toBeLessThanOrEqual(2 * FRAME_MS);

    await call.silence(900);
    await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text.startsWith('Sure'));
    const second = llm.requests[1]!.messages;
    expect(second.at(-1)).toEqual({ role: 'user', content: 'wait I need to change it' });
    expect(second.at(-2)).toEqual({ role: 'assistant', content: line.text });
  });

  it('lets a backchannel pass without interrupting', async () => {
    const llm = scriptedChat([{ text: LONG_REPLY }]);
    call = await startCall(callSpec({ greetingMessage: null }), {
      stt: scriptedStt(['when is it', 'uh-huh']),
      tts: toneTts('tone', 25),
      llm,
    });
    await call.speak(500);
    await call.silence(700);
    await untilSpeaking(call);
    await call.speak(300);
    await call.silence(800);
    await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant', 15_000);
    expect(call.caller.clears).toBe(0);
    expect(call.events.some((e) => e.type === 'transcript' && e.interrupted)).toBe(false);
    expect(
      call.events
        .filter((e) => e.type === 'transcript' && e.speaker === 'assistant')
        .map((e) => (e as { text: string }).text),
    ).toEqual([LONG_REPLY]);
  });

  it('on a line that echoes, the agent’s own voice never interrupts it', async () => {
    const llm = scriptedChat([{ text: LONG_REPLY }]);
    call = await startCall(
      callSpec({ greetingMessage: null }),
      { stt: scriptedStt(['when is it', 'appointment is on tuesday the fourth']), tts: toneTts('tone', 25), llm },
      { echoes: true },
    );
    await call.speak(500);
    await call.silence(700);
    await untilSpeaking(call);
    await call.speak(1_200); // the echo: long, loud, and recognised as the agent's own words
    await call.silence(800);
    await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant', 15_000);
    expect(call.caller.clears).toBe(0);
  });
});
