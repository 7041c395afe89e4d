/**
 * The caller speaks over the greeting (issue 21: the greeting was written twice, whole and then interrupted). However
 * the greeting ends there is one transcript line for it, and the conversation the model answers from holds it once:
 * cut to the words the caller heard when the caller took the floor — early in the greeting, or in its last second,
 * when all of its audio is already queued (this case had it twice in the conversation: whole when queued, then as
 * heard) — and whole when a backchannel only paused it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../src/audio/format.ts';
import type { CallEvent } from '../../src/protocol/index.ts';
import { numberedToneTts, scriptedChat, scriptedStt } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

const GREETING = 'Hi Ravi, this is Maya from the clinic, calling about your appointment next week.';
/** ms per character of the tone voice: the greeting lasts about 4.9 s. */
const MS_PER_CHAR = 60;
const GREETING_FRAMES = Math.ceil((GREETING.length * MS_PER_CHAR) / FRAME_MS);
const REPLY = 'Of course, what would you like to change?';

let call: RunningCall | undefined;
afterEach(async () => {
  await call?.close();
  call = undefined;
});

type Transcript = Extract<CallEvent, { type: 'transcript' }>;
const agentLines = (c: RunningCall): Transcript[] =>
  c.events.filter((e): e is Transcript => e.type === 'transcript' && e.speaker === 'assistant');

async function greetingCall(callerWords: string[]): Promise<{ c: RunningCall; llm: ReturnType<typeof scriptedChat> }> {
  const llm = scriptedChat([{ text: REPLY }]);
  const c = await startCall(
    callSpec({
      greetingMessage: 'Hi {{customer}}, this is Maya from the clinic, calling about your appointment next week.',
    }),
    {
      stt: scriptedStt(callerWords),
      tts: numberedToneTts(MS_PER_CHAR),
      llm,
    },
  );
  call = c;
  await c.waitFor((e) => e.type === 'state' && e.state === 'greeting');
  return { c, llm };
}

/** Sends silence until `frames` of the greeting have reached the caller. */
async function untilHeard(c: RunningCall, frames: number): Promise<void> {
  while (c.caller.heard.length < frames) await c.silence(20);
}

/** The greeting as the model's conversation holds it: every assistant message before the first caller words. */
function greetingMessages(llm: ReturnType<typeof scriptedChat>): string[] {
  const messages = llm.requests[0]!.messages;
  const firstUser = messages.findIndex((m) => m.role === 'user');
  return messages.slice(0, firstUser).flatMap((m) => (m.role === 'assistant' ? [String(m.content)] : []));
}

async function interruptedOnce(c: RunningCall, llm: ReturnType<typeof scriptedChat>): Promise<void> {
  await c.speak(1_000);
  await c.silence(900);
  await c.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === REPLY, 15_000);
  const lines = agentLines(c);
  expect(lines.map((l) => l.text)).toHaveLength(2);
  const [greeting] = lines;
  expect(greeting!.interrupted).toBe(true);
  expect(greeting!.text.length).toBeGreaterThan(0);
  expect(greeting!.text.length).toBeLessThan(GREETING.length);
  expect(GREETING.startsWith(greeting!.text.replace(/\.$/, ''))).toBe(true);
  // The model hears the greeting once, as the caller heard it.
  expect(greetingMessages(llm)).toEqual([greeting!.text]);
  expect(llm.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'wait I need to change it' });
}

describe('the caller speaks over the greeting', () => {
  it('early: one greeting line, interrupted, with the words heard', async () => {
    const { c, llm } = await greetingCall(['wait I need to change it']);
    await untilHeard(c, 60); // 1.2 s into the greeting: most of it is still to be made
    await interruptedOnce(c, llm);
  }, 30_000);

  it('in its last second, all of it queued: one greeting line, interrupted, with the words heard', async () => {
    const { c, llm } = await greetingCall(['wait I need to change it']);
    // 0.7 s before its end: the pause falls some 0.1 s later, with its last frames queued and not yet played.
    await untilHeard(c, GREETING_FRAMES - 35);
    await interruptedOnce(c, llm);
  }, 30_000);

  it('with a backchannel: one greeting line, whole, and the model hears it once', async () => {
    const { c, llm } = await greetingCall(['uh-huh', 'wait I need to change it']);
    await untilHeard(c, 60);
    await c.speak(360);
    await c.silence(600);
    await c.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant', 15_000);
    const [greeting] = agentLines(c);
    expect(greeting!.text).toBe(GREETING);
    expect(greeting!.interrupted).not.toBe(true);
    // The caller's next sentence is answered from a conversation holding the greeting once, whole.
    await c.silence(400);
    await c.speak(800);
    await c.silence(900);
    await c.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === REPLY, 15_000);
    expect(agentLines(c).map((l) => l.text)).toEqual([GREETING, REPLY]);
    expect(greetingMessages(llm)).toEqual([GREETING]);
  }, 30_000);
});
