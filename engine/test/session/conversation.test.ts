/**
 * The conversation loop with scripted speech and language providers: greeting, turns, replies with tools, and the
 * ways a call ends. Audio is real PCM paced in real time; the recogniser and the model follow a script.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../src/audio/format.ts';
import { NO_LLM_MESSAGE, NUDGE_MESSAGE } from '../../src/session/call-session.ts';
import { Channel } from '../../src/streams/channel.ts';
import type { SttEvent, SttProvider } from '../../src/providers/stt-provider.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

let call: RunningCall | undefined;
afterEach(async () => {
  await call?.close();
  call = undefined;
});

const userLines = (c: RunningCall) =>
  c.events.flatMap((e) => (e.type === 'transcript' && e.speaker === 'user' ? [e.text] : []));
const agentLines = (c: RunningCall) =>
  c.events.flatMap((e) => (e.type === 'transcript' && e.speaker === 'assistant' ? [e.text] : []));

/**
 * A recogniser that settles the first words of a sentence at once and the rest `lateMs` later — after the turn has
 * ended on them, as a streaming recogniser under load can.
 */
function earlyFinalStt(first: string, rest: string, lateMs: number): SttProvider {
  return {
    name: 'early-final-stt',
    open(_options, signal) {
      const events = new Channel<SttEvent>(16, 'fail');
      let heard = false;
      let said = false;
      signal.addEventListener('abort', () => events.end(), { once: true });
      return {
        push: (frame) => {
          if (frame.some((v) => Math.abs(v) > 1000)) heard = true;
        },
        endOfUtterance: () => {
          if (!heard || said) return;
          said = true;
          events.push({ type: 'final', text: first, startMs: 0, endMs: 300 });
          setTimeout(() => events.push({ type: 'final', text: rest, startMs: 300, endMs: 600 }), lateMs);
        },
        end: () => events.end(),
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },
  };
}

describe('a conversation', () => {
  it('answers words that were settled after their turn ended, even when they cancel the reply to the first part', async () => {
    // The reply to the fragment is still being thought about (slow first clause) when the rest of the sentence lands.
    const llm = scriptedChat(
      [{ text: 'For which day would you like it booked?' }, { text: 'Tuesday morning it is.' }],
      { tokenDelayMs: 250 },
    );
    call = await startCall(callSpec({ greetingMessage: null }), {
      stt: earlyFinalStt('book me for', 'tuesday morning please', 400),
      tts: toneTts(),
      llm,
    });
    await call.speak(600);
    await call.silence(800);
    await call.waitFor(
      (e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === 'Tuesday morning it is.',
      15_000,
    );
    expect(userLines(call)).toEqual(['book me for', 'tuesday morning please']);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'book me for',
      'tuesday morning please',
    ]);
  }, 30_000);

  it('greets with variables filled, hears the caller, replies, and reports latency', async () => {
    const llm = scriptedChat([{ text: 'Your appointment is on Tuesday at ten.' }]);
    const tts = toneTts();
    call = await startCall(callSpec(), { stt: scriptedStt(['when is my appointment']), tts, llm });
    await call.waitFor((e) => e.type === 'state' && e.state === 'listening');
    expect(tts.spoken[0]).toBe('Hi Ravi, this is Maya.');
    await call.speak(600);
    await call.silence(800);
    await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text.includes('Tuesday'));
    expect(userLines(call)).toEqual(['when is my appointment']);
    expect(llm.requests[0]!.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('You are Maya.'),
    });
    expect(llm.requests[0]!.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hi Ravi, this is Maya.' },
      { role: 'user', content: 'when is my appointment' },
    ]);
    await call.silence(3_000);
    expect(call.caller.heard.length).toBeGreaterThan(100); // greeting and reply were played
    const summary = await call.session.end('test_over', 'completed', false);
    expect(summary.transcript.map((l) => l.speaker)).toEqual(['assistant', 'user', 'assistant']);
    const ended = await call.waitFor((e) => e.type === 'ended');
    if (ended.type !== 'ended') throw new Error('unreachable');
    expect(ended.latency.greetingMs).toBeGreaterThanOrEqual(0);
    expect(ended.latency.turns).toHaveLength(1);
    expect(ended.latency.turns[0]).toMatchObject({
      turn: 1,
      endToEndMs: expect.any(Number),
      llmFirstTokenMs: expect.any(Number),
      ttsFirstByteMs: expect.any(Number),
    });
  });

  it('stamps each agent line with when the caller heard it: from its first frame out to its last frame played', async () => {
    const msPerChar = 40;
    const greeting = 'Hi Ravi, this is Maya.';
    const reply = 'Your appointment is on Tuesday at ten.';
    call = await startCall(callSpec(), {
      stt: scriptedStt(['when is my appointment']),
      tts: toneTts('tone', msPerChar),
      llm: scriptedChat([{ text: reply }]),
    });
    // When each agent frame reached the caller: the playback the lines must describe, gaps included.
    const arrivals: number[] = [];
    call.caller.onAudio = () => arrivals.push(performance.now());
    await call.waitFor((e) => e.type === 'transcript' && e.text === greeting);
    await call.speak(600);
    await call.silence(800);
    await call.waitFor((e) => e.type === 'transcript' && e.text === reply);
    const lines = call.events.flatMap((e) => (e.type === 'transcript' ? [e] : []));
    expect(lines.map((l) => l.text)).toEqual([greeting, 'when is my appointment', reply]);
    const [heardGreeting, user, heardReply] = lines;
    // The tone voice makes msPerChar of audio per character, in whole frames: the greeting's frames come first.
    const greetingFrames = (greeting.length * msPerChar) / FRAME_MS;
    const replyFrames = (reply.length * msPerChar) / FRAME_MS;
    expect(arrivals).toHaveLength(greetingFrames + replyFrames);
    const played = (from: number, frames: number) => arrivals[from + frames - 1]! + FRAME_MS - arrivals[from]!;
    for (const [line, text, heard] of [
      [heardGreeting!, greeting, played(0, greetingFrames)],
      [heardReply!, reply, played(greetingFrames, replyFrames)],
    ] as const) {
      const span = line.endMs - line.startMs;
      expect(line.startMs).toBeLessThan(line.endMs);
      // As long as the caller heard it play: the same clock ticks, measured at the far end.
      expect(Math.abs(span - heard)).toBeLessThanOrEqual(FRAME_MS);
      // And as long as its audio, give or take the first frame leaving between ticks — longer only by a gap the
      // caller heard too (synthesis falling behind playback on a busy machine), which the check above covers. The
      // stamps are whole ms, each rounded: 1 ms may go to rounding (CI once saw 1499 for 1500).
      expect(span).toBeGreaterThanOrEqual(text.length * msPerChar - FRAME_MS - 1);
    }
    // The reply played after the caller's turn it answers.
    expect(heardReply!.startMs).toBeGreaterThanOrEqual(user!.endMs);
  });

  it('ends the call when the agent calls end_call, after saying goodbye', async () => {
    const llm = scriptedChat([
      { text: 'Thanks, goodbye!', toolCalls: [{ name: 'end_call', arguments: '{"reason":"done"}' }] },
    ]);
    call = await startCall(callSpec({ greetingMessage: null }), {
      stt: scriptedStt(['that is all thanks']),
      tts: toneTts(),
      llm,
    });
    await call.speak(500);
    await call.silence(700);
    const summary = await call.ended;
    expect(summary.reason).toBe('agent_ended');
    expect(await call.caller.hungUp).toBe('agent_ended');
    expect(call.events.some((e) => e.type === 'tool_call' && e.name === 'end_call')).toBe(true);
    expect(agentLines(call)).toContain('Thanks, goodbye!');
  });

  it('passes DTMF to the agent as a turn', async () => {
    const llm = scriptedChat([{ text: 'You chose option one.' }]);
    call = await startCall(callSpec({ greetingMessage: null }), { stt: scriptedStt([]), tts: toneTts(), llm });
    call.caller.press('1');
    await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant');
    expect(call.events.find((e) => e.type === 'dtmf')).toMatchObject({ digit: '1' });
    expect(llm.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: '[The caller pressed 1]' });
  });

  it('nudges a silent caller, then says the closing message and ends for inactivity', async () => {
    const tts = toneTts('tone', 20);
    call = await startCall(
      callSpec({ greetingMessage: null, closingMessage: 'Goodbye for now.' }, { inactivityMs: 2_000 }),
      { stt: scriptedStt([]), tts, llm: scriptedChat([{ text: 'x' }]) },
    );
    const summary = await call.ended;
    expect(summary.reason).toBe('inactivity');
    expect(tts.spoken).toEqual([NUDGE_MESSAGE, 'Goodbye for now.']);
  });

  it('ends at the maximum duration', async () => {
    call = await startCall(callSpec({ greetingMessage: null }, { maxDurationMs: 1_500 }), {
      stt: scriptedStt([]),
      tts: toneTts(),
      llm: scriptedChat([{ text: 'x' }]),
    });
    const summary = await call.ended;
    expect(summary.reason).toBe('max_duration');
    expect(summary.durationMs).toBeGreaterThanOrEqual(1_500);
  });

  it('leaves the voicemail message when a machine answers', async () => {
    const tts = toneTts('tone', 20);
    call = await startCall(callSpec({ voicemailMessage: 'Please call us back, {{customer}}.' }), {
      stt: scriptedStt([]),
      tts,
      llm: scriptedChat([{ text: 'x' }]),
    });
    call.caller.answeredBy('machine');
    const summary = await call.ended;
    expect(summary.outcome).toBe('voicemail');
    expect(tts.spoken).toContain('Please call us back, Ravi.');
  });

  it('detects voicemail from the first words heard on an outbound call', async () => {
    const tts = toneTts('tone', 20);
    call = await startCall(callSpec({ greetingMessage: null, voicemailMessage: 'Sorry we missed you.' }), {
      stt: scriptedStt(['hi you have reached the voicemail of ravi please leave a message after the tone']),
      tts,
      llm: scriptedChat([{ text: 'x' }]),
    });
    await call.speak(600);
    await call.silence(800);
    expect((await call.ended).outcome).toBe('voicemail');
    expect(tts.spoken).toEqual(['Sorry we missed you.']);
  });

  it('without a language model, greets, then says so plainly and ends', async () => {
    const tts = toneTts('tone', 20);
    call = await startCall(callSpec(), { stt: scriptedStt(['hello']), tts });
    await call.waitFor((e) => e.type === 'state' && e.state === 'listening');
    await call.speak(500);
    await call.silence(700);
    const summary = await call.ended;
    // It ended as designed, so it is a completed call that says why, not a failure.
    expect(summary).toMatchObject({ reason: 'no_language_model', outcome: 'completed' });
    expect(tts.spoken).toEqual(['Hi Ravi, this is Maya.', NO_LLM_MESSAGE]);
    // All of the message played before the hang-up.
    expect(summary.transcript.at(-1)).toEqual({ speaker: 'assistant', text: NO_LLM_MESSAGE });
    const line = call.events.find((e) => e.type === 'transcript' && e.text === NO_LLM_MESSAGE);
    expect(line).toMatchObject({ endMs: expect.any(Number) });
    if (line?.type !== 'transcript') throw new Error('unreachable');
    expect(Math.abs(line.endMs - line.startMs - NO_LLM_MESSAGE.length * 20)).toBeLessThanOrEqual(2 * FRAME_MS);
    expect(line.interrupted).toBeUndefined();
  });
});
