import { describe, expect, it } from 'vitest';
import { ANSWER_GRACE_MS, CallMeter, LEAK_WINDOW_MS, QUIET_MS, SPURT_BREAK_MS } from './call-meter.ts';

/** 8 kHz: a 20 ms frame is 160 samples. */
const RATE = 8_000;
const FRAME = 160;

/** Agent frames every `every` ms from `from`, `count` of them. */
function frames(meter: CallMeter, from: number, count: number, every = 20, samples = FRAME): number {
  let at = from;
  for (let i = 0; i < count; i++, at += every) meter.agentAudio(at, samples);
  return at - every;
}

describe('CallMeter', () => {
  it('measures the greeting from the stream start to the first agent audio, even before the window', () => {
    const meter = new CallMeter(RATE);
    meter.streamStarted(1_000);
    frames(meter, 1_012.5, 10);
    meter.openWindow(5_000);
    meter.closeWindow(70_000);
    expect(meter.result().greetingMs).toBe(12.5);
    // Nothing of the greeting falls in the window.
    expect(meter.result().agentMessages).toBe(0);
  });

  it('times each reply from the end of the utterance to the first message of the next spurt', () => {
    const meter = new CallMeter(RATE);
    meter.openWindow(0);
    meter.utteranceStarted(1_000);
    meter.utteranceEnded(4_000);
    frames(meter, 4_455, 20);
    meter.utteranceStarted(4_720);
    meter.clearArrived(5_100);
    meter.utteranceEnded(7_800);
    frames(meter, 8_262, 5);
    meter.closeWindow(7_800 + ANSWER_GRACE_MS + 1);
    const result = meter.result();
    expect(result.turnMs).toEqual([455, 462]);
    expect(result.utterances).toBe(2);
    expect(result.answered).toBe(2);
  });

  it('counts an utterance with no reply before the next one ends as unanswered', () => {
    const meter = new CallMeter(RATE);
    meter.openWindow(0);
    meter.utteranceEnded(1_000);
    meter.utteranceEnded(5_000);
    frames(meter, 5_450, 3);
    meter.closeWindow(60_000);
    expect(meter.result()).toMatchObject({ utterances: 2, answered: 1, turnMs: [450] });
  });

  it('leaves out utterances that ended within the grace before the window closed', () => {
    const meter = new CallMeter(RATE);
    meter.openWindow(0);
    meter.utteranceEnded(10_000);
    frames(meter, 10_440, 2);
    meter.utteranceEnded(59_000);
    meter.closeWindow(60_000);
    expect(meter.result()).toMatchObject({ utterances: 1, answered: 1, turnMs: [440] });
  });

  it('records a gap for each whole frame later than its 20 ms cadence, and none across a break or a clear', () => {
    const meter = new CallMeter(RATE);
    meter.openWindow(0);
    meter.agentAudio(100, FRAME); // starts a spurt: no gap sample
    meter.agentAudio(120, FRAME); // on time
    meter.agentAudio(147, FRAME); // 7 ms late
    meter.agentAudio(147.5, 20); // a clause's resampler tail: not a frame
    meter.agentAudio(160, FRAME); // early: 0
    meter.agentAudio(160 + SPURT_BREAK_MS + 1, FRAME); // a new line
    meter.clearArrived(800);
    meter.agentAudio(900, FRAME); // after a clear: a new line
    meter.closeWindow(1_000);
    expect(meter.result().gapsMs).toEqual([0, 7, 0]);
    expect(meter.result().agentMessages).toBe(7);
    expect(meter.result().agentAudioMs).toBeCloseTo(6 * 20 + 2.5, 6);
  });

  it("measures a barge-in from the caller's first frame over a live line to its last audio and to the clear", () => {
    const meter = new CallMeter(RATE);
    meter.openWindow(0);
    frames(meter, 1_000, 50); // the agent speaks 1 000–1 980
    meter.utteranceStarted(1_500);
    meter.clearArrived(1_990);
    meter.utteranceEnded(4_500);
    meter.closeWindow(60_000);
    expect(meter.result().bargeIns).toEqual([{ stopMs: 480, decisionMs: 490, afterClearMs: 0, messagesAfterClear: 0 }]);
  });

  it('charges audio that still arrives just after the clear to the stop, and not audio of a later line', () => {
    const meter = new CallMeter(RATE);
    meter.openWindow(0);
    frames(meter, 1_000, 30); // to 1 580
    meter.utteranceStarted(1_300);
    meter.clearArrived(1_590);
    meter.agentAudio(1_590 + LEAK_WINDOW_MS - 10, FRAME); // was on its way
    meter.agentAudio(3_000, FRAME); // a new line, long after: not the interrupted one
    meter.utteranceEnded(3_500);
    meter.closeWindow(60_000);
    expect(meter.result().bargeIns).toEqual([
      { stopMs: 380, decisionMs: 290, afterClearMs: 90, messagesAfterClear: 1 },
    ]);
  });

  it('does not count caller speech as a barge-in when the agent was silent, and counts a line that ended by itself', () => {
    const meter = new CallMeter(RATE);
    meter.openWindow(0);
    frames(meter, 1_000, 10); // to 1 180
    meter.utteranceStarted(3_000); // line long over
    meter.utteranceEnded(6_000);
    frames(meter, 6_400, 10); // to 6 580
    meter.utteranceStarted(6_500); // over a live line that then ends with no clear
    meter.utteranceEnded(9_500);
    meter.closeWindow(60_000);
    expect(meter.result().bargeIns).toEqual([]);
    expect(meter.result().overlapsWithoutClear).toBe(1);
  });
});

describe('CallMeter.lineQuiet', () => {
  it('holds while the caller speaks and the agent has been silent a while, and not otherwise', () => {
    const meter = new CallMeter(RATE);
    expect(meter.lineQuiet(0)).toBe(false); // the caller is not speaking
    meter.utteranceStarted(1_000);
    expect(meter.lineQuiet(1_000)).toBe(true); // no agent audio yet
    meter.agentAudio(1_020, FRAME);
    expect(meter.lineQuiet(1_050)).toBe(false);
    expect(meter.lineQuiet(1_020 + QUIET_MS)).toBe(true);
    meter.utteranceEnded(4_000);
    expect(meter.lineQuiet(4_000)).toBe(false); // a reply may start now
  });
});
