import { describe, expect, it } from 'vitest';
import { EnergyVad, frameDbfs } from './energy-vad.ts';
import { TurnDetector } from './turn-detector.ts';

function tone(amplitude: number, samples = 320): Int16Array {
  return Int16Array.from({ length: samples }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / 16000)),
  );
}

function noise(amplitude: number, seed = 1): Int16Array {
  let state = seed;
  return Int16Array.from({ length: 320 }, () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return Math.round(((state / 0x7fffffff) * 2 - 1) * amplitude);
  });
}

describe('energy VAD', () => {
  it('measures level in dBFS', () => {
    expect(frameDbfs(new Int16Array(320))).toBe(-100);
    expect(frameDbfs(tone(32767))).toBeCloseTo(-3, 0);
    expect(frameDbfs(tone(3277))).toBeCloseTo(-23, 0);
  });

  it('learns a loud line noise within 1.5 s, then hears speech over it and not the noise', () => {
    const vad = new EnergyVad();
    const decisions = Array.from({ length: 150 }, (_, i) => vad.classify(noise(3000, i)).speech);
    expect(decisions.slice(80).every((speech) => !speech)).toBe(true);
    expect(vad.noiseFloorDb).toBeGreaterThan(-30);
    expect(vad.classify(tone(20000)).speech).toBe(true);
    expect(vad.classify(noise(3000, 999)).speech).toBe(false);
  });

  it('does not learn speech as noise: words with short pauses stay speech for a long utterance', () => {
    const vad = new EnergyVad();
    for (let i = 0; i < 20; i += 1) vad.classify(noise(50, i));
    for (let word = 0; word < 40; word += 1) {
      for (let i = 0; i < 12; i += 1) expect(vad.classify(tone(8000)).speech).toBe(true);
      for (let i = 0; i < 3; i += 1) vad.classify(noise(50, word * 10 + i));
    }
  });
});

describe('turn detector', () => {
  const feed = (detector: TurnDetector, speech: boolean, frames: number) => {
    const events = [];
    for (let i = 0; i < frames; i += 1) {
      const event = detector.frame(speech);
      if (event) events.push(event);
    }
    return events;
  };

  it('ignores a click shorter than the minimum speech', () => {
    const detector = new TurnDetector({ minSpeechMs: 200 });
    expect(feed(detector, true, 5)).toEqual([]);
    expect(feed(detector, false, 20)).toEqual([]);
    expect(detector.speaking).toBe(false);
  });

  it('starts a turn after the minimum speech and ends it after max silence without a final', () => {
    const detector = new TurnDetector({ minSpeechMs: 200, endpointingMs: 600, maxSilenceMs: 1500 });
    expect(feed(detector, true, 10)).toEqual([{ type: 'speech_started', atMs: 200 }]);
    feed(detector, true, 40);
    expect(feed(detector, false, 74)).toEqual([{ type: 'paused', atMs: 1600 }]);
    expect(feed(detector, false, 1)).toEqual([{ type: 'turn_ended', atMs: 2500, speechEndedAtMs: 1000 }]);
  });

  it('ends sooner once the recogniser settled the words', () => {
    const detector = new TurnDetector({ minSpeechMs: 200, endpointingMs: 600, maxSilenceMs: 1500 });
    feed(detector, true, 50);
    detector.finalTranscript();
    const events = feed(detector, false, 30);
    expect(events).toEqual([{ type: 'turn_ended', atMs: 1600, speechEndedAtMs: 1000 }]);
  });

  it('ends the turn when a batch recogniser delivers its words after the pause', () => {
    const detector = new TurnDetector({ minSpeechMs: 200, endpointingMs: 600, maxSilenceMs: 1500 });
    feed(detector, true, 50);
    expect(feed(detector, false, 30)).toEqual([{ type: 'paused', atMs: 1600 }]);
    expect(detector.finalTranscript()).toEqual({ type: 'turn_ended', atMs: 1600, speechEndedAtMs: 1000 });
    expect(detector.speaking).toBe(false);
  });

  it('keeps one turn through a short pause', () => {
    const detector = new TurnDetector({ minSpeechMs: 200, endpointingMs: 600, maxSilenceMs: 1500 });
    feed(detector, true, 20);
    detector.finalTranscript();
    expect(feed(detector, false, 20)).toEqual([]);
    expect(feed(detector, true, 20)).toEqual([]);
    expect(detector.speaking).toBe(true);
  });
});
