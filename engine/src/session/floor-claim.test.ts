import { describe, expect, it } from 'vitest';
import { BARGE_IN_WITHOUT_WORDS_MS } from './barge-in.ts';
import { FloorClaim, ONSET_GAP_MS, PAUSE_AFTER_VOICED_MS, RESUME_GRACE_MS } from './floor-claim.ts';

const ENDPOINTING_MS = 600;

/** Feeds `ms` of frames; returns every decision with the ms (from the first frame fed) at which it fell. */
function feed(claim: FloorClaim, ms: number, speech: boolean, agentSpeaking = true, from = 0) {
  const decisions: { at: number; decision: string }[] = [];
  for (let at = 20; at <= ms; at += 20) {
    const decision = claim.frame(speech, agentSpeaking);
    if (decision) decisions.push({ at: from + at, decision });
  }
  return decisions;
}

describe('FloorClaim', () => {
  it('pauses after the onset minimum of voice over the agent, and commits on voice past any backchannel', () => {
    const claim = new FloorClaim(ENDPOINTING_MS);
    expect(feed(claim, BARGE_IN_WITHOUT_WORDS_MS, true)).toEqual([
      { at: PAUSE_AFTER_VOICED_MS, decision: 'pause' },
      { at: BARGE_IN_WITHOUT_WORDS_MS, decision: 'commit' },
    ]);
    expect(claim.paused).toBe(false);
  });

  it('does not add up voice split by onset gaps (clicks, breaths), nor voice while the agent is quiet', () => {
    const claim = new FloorClaim(ENDPOINTING_MS);
    for (let i = 0; i < 5; i += 1) {
      expect(feed(claim, PAUSE_AFTER_VOICED_MS - 20, true)).toEqual([]);
      expect(feed(claim, ONSET_GAP_MS, false)).toEqual([]);
    }
    expect(feed(claim, 2_000, true, false)).toEqual([]);
  });

  it('resumes once the caller has been quiet for the resume window, or at once on words that do not interrupt', () => {
    const claim = new FloorClaim(ENDPOINTING_MS);
    expect(feed(claim, 300, true).map((d) => d.decision)).toEqual(['pause']);
    expect(feed(claim, ENDPOINTING_MS + RESUME_GRACE_MS, false)).toEqual([
      { at: ENDPOINTING_MS + RESUME_GRACE_MS, decision: 'resume' },
    ]);
    expect(feed(claim, 300, true).map((d) => d.decision)).toEqual(['pause']);
    // Words settled while the caller still talks wait for them to stop.
    expect(claim.settledWithoutInterrupting()).toBeUndefined();
    feed(claim, 100, false);
    expect(claim.settledWithoutInterrupting()).toBe('resume');
    expect(claim.paused).toBe(false);
  });

  it('lets a held agent go when it has nothing left to say', () => {
    const claim = new FloorClaim(ENDPOINTING_MS);
    feed(claim, 200, true);
    expect(claim.paused).toBe(true);
    expect(claim.frame(false, false)).toBe('resume');
    expect(claim.frame(false, false)).toBeUndefined();
  });
});
