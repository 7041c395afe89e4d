/**
 * A whole turn with real audio and no network: the caller speaks a sentence synthesised by flite (kal16),
 * pocketsphinx transcribes it, the local fake OpenAI-compatible server answers with a tool call to a local webhook
 * and then a sentence, flite speaks it, and the caller receives the audio frames.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE } from '../../src/audio/format.ts';
import { resample } from '../../src/audio/resampler.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { OpenAiCompatLlm } from '../../src/providers/openai-compat/index.ts';
import { createPocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/index.ts';
import {
  collectAudio,
  describeInstalled,
  frames,
  rms,
  unavailableReason,
  wordOverlap,
} from '../offline-speech/support/offline-speech-kit.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

const SENTENCE = 'please book me for tuesday morning';
const REPLY = 'Done. You are booked for Tuesday at ten in the morning.';
const reason = unavailableReason(() => createFliteTts()) ?? unavailableReason(() => createPocketsphinxStt());

describeInstalled('a call with real speech (flite and pocketsphinx)', reason, () => {
  let fake: FakeOpenAi;
  let webhook: http.Server;
  let webhookUrl: string;
  const bookings: { authorization?: string; body: string }[] = [];
  let call: RunningCall | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    webhook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        bookings.push({ authorization: req.headers.authorization, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"booked":true,"slot":"Tuesday 10:00"}');
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/bookings`;
  });
  afterAll(async () => {
    await call?.close();
    await fake?.close();
    webhook?.closeAllConnections();
    webhook?.close();
  });

  it('hears the caller, calls the tool, answers aloud, and keeps both turns and the tool call', async () => {
    fake.chat.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'book_slot', arguments: '{"day":"tuesday","time":"morning"}' }] },
      { tokens: REPLY.split(/(?<= )/) },
    );
    const spec = callSpec({
      greetingMessage: null,
      functionTools: [
        {
          key: 'book_slot',
          description: 'Book an appointment slot',
          parameters: { type: 'object', properties: { day: { type: 'string' }, time: { type: 'string' } } },
          url: webhookUrl,
          bearerToken: 'hook-secret',
        },
      ],
    });
    call = await startCall(spec, {
      stt: createPocketsphinxStt(),
      tts: createFliteTts(),
      llm: new OpenAiCompatLlm({ baseUrl: fake.baseUrl, model: 'gpt-test' }),
    });

    // The caller's sentence, spoken by flite and sent as a phone would: 20 ms frames in real time.
    const spoken = await collectAudio(
      createFliteTts().synthesize({ text: SENTENCE, voiceId: 'kal16' }, new AbortController().signal),
    );
    const audio =
      spoken.sampleRate === ENGINE_SAMPLE_RATE
        ? spoken.samples
        : resample(spoken.samples, spoken.sampleRate, ENGINE_SAMPLE_RATE);
    await call.silence(200);
    const heardBefore = call.caller.heard.length;
    for (const frame of frames(audio, ENGINE_FRAME_SAMPLES)) {
      call.caller.speak(frame);
      await new Promise((r) => setTimeout(r, 20));
    }
    await call.silence(1_500);

    const reply = await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant', 30_000);
    await call.silence(3_000);

    const user = call.events.find((e) => e.type === 'transcript' && e.speaker === 'user');
    if (user?.type !== 'transcript' || reply.type !== 'transcript') throw new Error('no transcript lines');
    expect(wordOverlap(SENTENCE, user.text), `pocketsphinx heard "${user.text}"`).toBeGreaterThanOrEqual(0.6);
    expect(reply.text).toBe(REPLY);

    expect(bookings).toHaveLength(1);
    expect(bookings[0]!.authorization).toBe('Bearer hook-secret');
    expect(JSON.parse(bookings[0]!.body)).toEqual({ day: 'tuesday', time: 'morning' });
    expect(call.events.find((e) => e.type === 'tool_call')).toMatchObject({ name: 'book_slot', ok: true });

    // The model saw the caller's words, then the webhook's answer as the tool result.
    const second = fake.chat.requests[1]!.body.messages as { role: string; content?: string; tool_call_id?: string }[];
    expect(second.find((m) => m.role === 'user')?.content).toBe(user.text);
    expect(second.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_1',
      content: expect.stringContaining('Tuesday 10:00'),
    });

    // The caller received the agent's voice: well over a second of non-silent frames after speaking.
    const agentAudio = call.caller.heard.slice(heardBefore);
    expect(agentAudio.filter((frame) => rms(frame) > 200).length).toBeGreaterThan(50);
  }, 60_000);
});
