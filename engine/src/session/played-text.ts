/**
 * What the caller actually heard of a reply cut short: whole clauses whose audio all went out, then the share of
 * the clause in progress that its played frames cover (speech runs roughly evenly over a clause's words).
 */
export interface ClauseAudio {
  tag: string;
  text: string;
  /** Frames queued for the clause. */
  frames: number;
}

export function playedText(clauses: readonly ClauseAudio[], playedFrames: (tag: string) => number): string {
  const heard: string[] = [];
  for (const clause of clauses) {
    const played = playedFrames(clause.tag);
    if (clause.frames > 0 && played >= clause.frames) {
      heard.push(clause.text);
      continue;
    }
    if (played > 0 && clause.frames > 0) {
      const words = clause.text.split(/\s+/).filter(Boolean);
      const count = Math.floor((words.length * played) / clause.frames);
      if (count > 0) heard.push(words.slice(0, count).join(' '));
    }
    break;
  }
  return heard.join(' ').trim();
}
