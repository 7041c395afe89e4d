/**
 * Whether the caller's speech while the agent talks is an interruption. Short acknowledgements ("uh-huh", "okay",
 * "yeah", "mm-hmm") are listening noises, not a request for the floor. On a line that echoes the agent's own audio
 * back (no echo cancellation), what the recogniser hears may be the agent itself: then only words the agent is
 * not saying count.
 */

/** Acknowledgements that never interrupt, alone or together ("okay okay", "yeah right"). */
const BACKCHANNELS = new Set([
  'uh-huh',
  'uh',
  'huh',
  'uhhuh',
  'mm-hmm',
  'mmhmm',
  'mm',
  'mhm',
  'hmm',
  'hm',
  'um',
  'ah',
  'oh',
  'okay',
  'ok',
  'yeah',
  'yes',
  'yep',
  'yup',
  'right',
  'sure',
  'alright',
  'aha',
  'i',
  'see',
  'cool',
  'got',
  'it',
  'great',
]);

/**
 * Voiced audio over the agent that interrupts even before any words are recognised, ms: longer than any
 * backchannel, a drawn-out "mm-hmm" too (flite says it in 0.9 s). The agent is paused long before (floor-claim.ts),
 * so waiting this long costs the caller nothing: it only decides when the reply is given up without words.
 */
export const BARGE_IN_WITHOUT_WORDS_MS = 1_500;

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

export function isBackchannel(text: string): boolean {
  const heard = words(text);
  return heard.length > 0 && heard.length <= 3 && heard.every((w) => BACKCHANNELS.has(w));
}

/**
 * Whether recognised text during agent speech interrupts.
 * @param agentText what the agent is saying now (to tell its own echo from the caller)
 * @param echoes whether the line echoes agent audio back
 */
export function interrupts(text: string, agentText: string, echoes: boolean): boolean {
  const heard = words(text);
  if (heard.length === 0 || isBackchannel(text)) return false;
  if (!echoes) return true;
  const spoken = new Set(words(agentText));
  const foreign = heard.filter((w) => !spoken.has(w));
  // Recognisers garble echoes: a couple of foreign words can still be the agent; three make it the caller.
  return foreign.length >= 3 || foreign.length / heard.length > 0.5;
}
