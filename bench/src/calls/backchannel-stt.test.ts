import { describe, expect, it } from 'vitest';
import { BACKCHANNEL_WORDS, backchannelStt, PROBE_QUESTION, QUESTION_MIN_VOICED_MS } from './backchannel-stt.ts';

const FRAME = 320;
const loud = () => Int16Array.from({ length: FRAME }, (_, i) => (i % 2 ? 8_000 : -8_000));

describe('the backchannel probe’s recogniser', () => {
  it('writes the question for long speech and the next backchannel word for short speech, finals only', async () => {
    const abort = new AbortController();
    const stream = backchannelStt(30).open({ language: 'en-US' }, abort.signal);
    const utterance = async (ms: number) => {
      for (let at = 0; at < ms; at += 20) stream.push(loud());
      for (let i = 0; i < 5; i += 1) stream.push(new Int16Array(FRAME));
      await new Promise((r) => setTimeout(r, 80));
    };
    await utterance(QUESTION_MIN_VOICED_MS + 200);
    await utterance(300);
    await utterance(400);
    abort.abort();
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => [e.type, e.text])).toEqual([
      ['final', PROBE_QUESTION],
      ['final', BACKCHANNEL_WORDS[0]],
      ['final', BACKCHANNEL_WORDS[1]],
    ]);
  });
});
