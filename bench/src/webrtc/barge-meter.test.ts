import { describe, expect, it } from 'vitest';
import { BargeMeter } from './barge-meter.ts';

/** Agent audio every 20 ms over [from, to). */
function talk(meter: BargeMeter, from: number, to: number): void {
  for (let at = from; at < to; at += 20) meter.agentAudio(at);
}

describe('BargeMeter', () => {
  it('counts a line that stops during the caller speech, from onset to its last audio', () => {
    const meter = new BargeMeter();
    meter.open();
    talk(meter, 0, 1_000);
    meter.utteranceStarted(1_000);
    talk(meter, 1_000, 1_120);
    meter.utteranceEnded(3_000);
    expect(meter.stopMs).toEqual([100]);
    expect(meter.notStopped).toBe(0);
  });

  it('counts a line that talks on through the whole utterance as not stopped, and ignores speech into silence', () => {
    const meter = new BargeMeter();
    meter.open();
    talk(meter, 0, 1_000);
    meter.utteranceStarted(1_000);
    talk(meter, 1_000, 3_000);
    meter.utteranceEnded(3_000);
    meter.utteranceStarted(5_000);
    meter.utteranceEnded(6_000);
    expect(meter.stopMs).toEqual([]);
    expect(meter.notStopped).toBe(1);
  });

  it('counts nothing outside the window', () => {
    const meter = new BargeMeter();
    talk(meter, 0, 1_000);
    meter.utteranceStarted(1_000);
    meter.utteranceEnded(3_000);
    expect(meter.stopMs).toEqual([]);
  });
});
