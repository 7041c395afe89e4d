import { describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES, FRAME_MS } from '../audio/format.ts';
import { SpeechHandle, type HeardSpeech } from './speech-handle.ts';

/** A handle on a hand-turned clock: `at` is the call's time in ms. */
function utterance(text: string) {
  const clock = { at: 0 };
  const settled: HeardSpeech[] = [];
  const speech = new SpeechHandle({ turn: 1, text, now: () => clock.at, settled: (_s, heard) => settled.push(heard) });
  speech.clauses.push({ tag: 'line', text, frames: 0 });
  const queue = (frames: number) => {
    for (let i = 0; i < frames; i += 1) {
      speech.frameQueued();
      speech.clauses[0]!.frames += 1;
    }
  };
  const play = (frames: number) => {
    for (let i = 0; i < frames; i += 1) {
      speech.frameSent(ENGINE_FRAME_SAMPLES);
      clock.at += FRAME_MS;
    }
  };
  return { speech, clock, settled, queue, play };
}

describe('a speech handle', () => {
  it('settles once its last frame has played: from the first frame out to the end of the last', () => {
    const { speech, clock, settled, queue, play } = utterance('hello there');
    clock.at = 100;
    queue(10);
    play(4);
    speech.allQueued();
    expect(settled).toEqual([]); // six frames still to go
    play(6);
    expect(settled).toEqual([{ text: 'hello there', startMs: 100, endMs: 300, interrupted: false }]);
    expect(speech.heard).toEqual(settled[0]);
  });

  it('cut short, keeps what was played and ends when playback stopped', () => {
    const { speech, clock, settled, queue, play } = utterance('one two three four');
    clock.at = 1_000;
    queue(8);
    play(4);
    clock.at += 5; // the barge-in falls mid-frame
    speech.cutShort((tag) => (tag === 'line' ? 4 : 0));
    expect(speech.cancelled).toBe(true);
    expect(settled).toEqual([{ text: 'one two', startMs: 1_000, endMs: 1_080, interrupted: true }]);
    play(4); // frames already on their way change nothing
    speech.cutShort(() => 8);
    expect(settled).toHaveLength(1);
  });

  it('is interrupted when cut while still being produced, even if all it had made so far played', () => {
    const { speech, settled, queue, play } = utterance('short');
    queue(2);
    play(2);
    expect(speech.producing).toBe(true);
    speech.cutShort(() => 2, 'short');
    expect(settled[0]).toMatchObject({ text: 'short', interrupted: true });
  });

  it('once cancelled, waits to be cut short instead of claiming it all played', () => {
    const { speech, settled, queue, play } = utterance('never mind');
    queue(3);
    speech.cancel();
    play(3);
    speech.allQueued();
    expect(settled).toEqual([]);
    speech.cutShort(() => 3);
    expect(settled[0]).toMatchObject({ text: 'never mind', interrupted: true });
  });
});
