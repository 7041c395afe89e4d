/**
 * Barge-in: the caller talking over the agent pauses the agent's audio within a few frames of their first word (the
 * recogniser here sends no interim words), clearing what the far end buffered; words that interrupt then stop it,
 * cancel the reply, and leave in the conversation only what the caller heard. A backchannel pauses it briefly, and
 * it then goes on from where it paused: every frame of its reply reaches the caller.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../src/audio/format.ts';
import { PAUSE_REWIND_FRAMES } from '../../src/session/paced-agent-audio.ts';
import { frameNumber, numberedToneTts, scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

const LONG_REPLY =
  'Your appointment is on Tuesday the fourth at ten in the morning with doctor Rao. Please arrive fifteen minutes early and bring your insurance card and a list of your medicines.';

const AFTER = 'Sure, which day suits you?';

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

/**
 * Checks, frame by frame, that `heard` (numberedToneTts audio) holds every frame of every request in order, each
 * going back at most PAUSE_REWIND_FRAMES (a pause's replay) and never skipping one; returns how many were repeats.
 */
function repeatsIfNothingLost(heard: readonly Int16Array[], framesPerRequest: readonly number[]): number {
  const position = (n: { request: number; frame: number }) => n.request * 500 + n.frame;
  let expected = { request: 0, frame: 0 };
  let repeats = 0;
  for (const got of heard.map(frameNumber)) {
    if (position(got) < position(expected)) {
      repeats += 1;
      expect(position(expected) - position(got)).toBeLessThanOrEqual(PAUSE_REWIND_FRAMES);
      continue;
    }
    expect(got).toEqual(got.request === expected.request ? expected : { request: expected.request + 1, frame: 0 });
    expected =
      got.frame + 1 < framesPerRequest[got.request]!
        ? { ...got, frame: got.frame + 1 }
        : { request: got.request + 1, frame: 0 };
  }
  expect(expected).toEqual({ request: framesPerRequest.length, frame: 0 });
  return repeats;
}

/** Sends silence until the agent has cleared the far end at least once (a second at most); the clears so far. */
async function untilCleared(c: RunningCall): Promise<number> {
  for (let i = 0; i < 50 && c.caller.clears === 0; i += 1) await c.silence(20);
  return c.caller.clears;
}

describe('barge-in', () => {
  it('pauses the agent within 300 ms of the caller’s first word, then stops it and keeps only what was heard', async () => {
    const llm = scriptedChat([{ text: LONG_REPLY }, { text: AFTER }]);
    const tts = numberedToneTts();
    call = await startCall(callSpec({ greetingMessage: null }), {
      stt: scriptedStt(['when is it', 'wait I need to change it']),
      tts,
      llm,
    });
    await call.speak(500);
    await call.silence(700);
    await untilSpeaking(call);

    const onset = call.caller.spoken;
    const interrupted = call.waitFor((e) => e.type === 'transcript' && e.interrupted === true);
    await call.speak(1_000);
    // The recogniser's words come at the endpointing pause: they interrupt, and the barge-in is committed.
    await call.silence(1_000);
    const line = await interrupted;
    // The first clear is the pause: it fell within 300 ms of the caller's speech, counted in the caller's own frames
    // (the recogniser had sent nothing yet: its words come at the end of the utterance).
    const [pause] = call.caller.clearLog;
    expect(pause!.spoken - onset).toBeLessThanOrEqual(300 / FRAME_MS);
    // The pause held the agent's audio in the same step as the clear: not one frame of the long reply went out
    // after it (what follows is the next reply's), however late the test itself saw the interruption.
    const after = call.caller.heard.slice(pause!.heard).map((frame) => tts.texts[frameNumber(frame).request]);
    expect(after.every((text) => AFTER.includes(text!))).toBe(true);
    expect(call.caller.clears).toBe(1);
    if (line.type !== 'transcript') throw new Error('unreachable');
    expect(line.text.length).toBeGreaterThan(0);
    expect(LONG_REPLY.startsWith(line.text.replace(/\.$/, ''))).toBe(true);
    expect(line.text.length).toBeLessThan(LONG_REPLY.length);
    // The line lasts about as long as the reply played before it stopped (no greeting: every frame heard is the
    // reply's); a loaded machine sends some frames late, so the bound is two frames or a tenth, whichever is more.
    const playedMs = pause!.heard * FRAME_MS;
    expect(line.startMs).toBeLessThan(line.endMs);
    expect(Math.abs(line.endMs - line.startMs - playedMs)).toBeLessThanOrEqual(Math.max(2 * FRAME_MS, playedMs / 10));

    await call.silence(900);
    await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === AFTER);
    const second = llm.requests[1]!.messages;
    expect(second.at(-1)).toEqual({ role: 'user', content: 'wait I need to change it' });
    expect(second.at(-2)).toEqual({ role: 'assistant', content: line.text });
  });

  it('pauses briefly for each backchannel, then finishes the reply with nothing lost', async () => {
    const backchannels = ['uh-huh', 'okay', 'yeah', 'mm-hmm'];
    const llm = scriptedChat([{ text: LONG_REPLY }]);
    const tts = numberedToneTts();
    call = await startCall(callSpec({ greetingMessage: null }), {
      stt: scriptedStt(['when is it', ...backchannels]),
      tts,
      llm,
    });
    await call.speak(500);
    await call.silence(700);
    await untilSpeaking(call);
    for (let i = 0; i < backchannels.length; i += 1) {
      const clears = call.caller.clears;
      await call.speak(360);
      await call.silence(600);
      // Each one paused the agent (a clear), and the agent spoke again within 1.5 s of the caller's own audio
      // (the resume waits for the recogniser's word at the 600 ms endpointing pause, or a quiet second at most).
      expect(call.caller.clears).toBe(clears + 1);
      const paused = call.caller.clearLog.at(-1)!;
      while (call.caller.heard.length === paused.heard && call.caller.spoken - paused.spoken < 1_500 / FRAME_MS)
        await call.silence(20);
      expect(call.caller.heard.length).toBeGreaterThan(paused.heard);
      await call.silence(400);
    }
    const line = await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant', 20_000);
    if (line.type !== 'transcript') throw new Error('unreachable');
    expect(line.text).toBe(LONG_REPLY);
    expect(line.interrupted).not.toBe(true);
    expect(call.events.some((e) => e.type === 'transcript' && e.interrupted)).toBe(false);
    expect(llm.requests).toHaveLength(1);

    // What the caller received holds every frame synthesised, in order: after each pause the agent picked up at
    // most PAUSE_REWIND_FRAMES back (a repeat, never a gap), and it played to the last frame of the last clause.
    expect(repeatsIfNothingLost(call.caller.heard, tts.frames)).toBeLessThanOrEqual(
      backchannels.length * PAUSE_REWIND_FRAMES,
    );
  }, 40_000);

  it('resumes after a cough — voice too short for words — once the caller has been quiet a moment', async () => {
    const llm = scriptedChat([{ text: LONG_REPLY }]);
    const tts = numberedToneTts(30);
    call = await startCall(callSpec({ greetingMessage: null }), { stt: scriptedStt(['when is it']), tts, llm });
    await call.speak(500);
    await call.silence(700);
    await untilSpeaking(call);
    await call.speak(160); // a cough: enough voice to pause the agent, too little to start a turn the recogniser hears
    expect(await untilCleared(call)).toBe(1);
    const paused = call.caller.clearLog[0]!;
    while (call.caller.heard.length === paused.heard && call.caller.spoken - paused.spoken < 2_000 / FRAME_MS)
      await call.silence(20);
    // Resumed by the quiet window alone (endpointing 600 ms + 400 ms), no words having come.
    expect(call.caller.heard.length).toBeGreaterThan(paused.heard);
    expect((call.caller.spoken - paused.spoken) * FRAME_MS).toBeGreaterThanOrEqual(900);
    const line = await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant', 20_000);
    if (line.type !== 'transcript') throw new Error('unreachable');
    expect(line.text).toBe(LONG_REPLY);
    expect(line.interrupted).not.toBe(true);
    expect(repeatsIfNothingLost(call.caller.heard, tts.frames)).toBeLessThanOrEqual(PAUSE_REWIND_FRAMES);
  }, 30_000);

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
