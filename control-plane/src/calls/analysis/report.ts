/**
 * The detailed analysis report's `parsedAnalysis` (spec document 1, "Detailed analysis report"). The language model
 * writes the judgements; the counts it could only guess at — duration, speakers, words, each speaker's share — are
 * measured from the transcript here.
 */
import { Type, type Static } from '@sinclair/typebox';

const Text = (max: number, description?: string) =>
  Type.String({ maxLength: max, ...(description ? { description } : {}) });
const Texts = (maxItems: number, description?: string) =>
  Type.Array(Text(500), { maxItems, ...(description ? { description } : {}) });

/** What the model returns. */
export const ModelReport = Type.Object(
  {
    call_classification: Type.Object(
      {
        primary_type: Text(100, 'e.g. sales, support, appointment, survey, collections'),
        subtype: Text(100),
        confidence: Type.Number({ minimum: 0, maximum: 1 }),
      },
      { additionalProperties: false },
    ),
    dynamic_metrics: Type.Array(
      Type.Object(
        {
          name: Text(100),
          value: Type.Number(),
          max: Type.Number({ exclusiveMinimum: 0 }),
          indicator: Type.Union([Type.Literal('good'), Type.Literal('neutral'), Type.Literal('bad')]),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10 },
    ),
    prompt_adherence: Type.Object(
      {
        overall_score: Type.Number({ minimum: 0, maximum: 100 }),
        followed: Texts(20),
        ignored: Texts(20),
        impact_on_outcomes: Text(1000),
        prompt_improvements: Texts(10),
        correlation: Type.Object(
          {
            adherence_to_satisfaction: Text(500),
            critical_misses: Texts(10),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    sentiment_flow: Type.Array(
      Type.Object(
        {
          time: Text(20),
          sentiment: Type.Number({ minimum: -1, maximum: 1 }),
          label: Text(50),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    key_moments: Type.Array(
      Type.Object(
        {
          time: Text(20),
          type: Text(50),
          description: Text(500),
        },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
    action_items: Type.Array(
      Type.Object(
        {
          owner: Text(100),
          task: Text(500),
          priority: Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')]),
        },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
    summary: Text(2000),
    insights: Texts(10),
    risk_flags: Texts(10),
    next_steps: Text(1000),
  },
  { additionalProperties: false },
);
export type ModelReport = Static<typeof ModelReport>;

export interface SpeakerShare {
  speaker: string;
  /** Share of the words spoken, 0–100, one decimal. */
  percentage: number;
  turns: number;
}

export interface TranscriptMetrics {
  universal_metrics: { duration_minutes: number; total_speakers: number; word_count: number };
  speaker_distribution: SpeakerShare[];
}

export type ParsedAnalysis = ModelReport & TranscriptMetrics;

/** A line "Name: words" (with an optional "[mm:ss]" in front): the name is at most 40 characters. */
const SPEAKER_LINE = /^\s*(?:\[[^\]]{1,12}\]\s*)?([^:\n]{1,40}):\s*(.*)$/;

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * Counts from a transcript as given: lines "Speaker: text" attribute words and turns (a turn is a run of lines of one
 * speaker); lines without a speaker go to the speaker before them, or to "unknown". Duration is the call's when known.
 */
export function transcriptMetrics(transcript: string, durationMs: number | null): TranscriptMetrics {
  const bySpeaker = new Map<string, { words: number; turns: number }>();
  let current = 'unknown';
  let previous: string | undefined;
  let total = 0;
  for (const line of transcript.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const match = SPEAKER_LINE.exec(line);
    const text = match ? match[2]! : line;
    if (match) current = match[1]!.trim();
    const count = words(text);
    const entry = bySpeaker.get(current) ?? { words: 0, turns: 0 };
    if (current !== previous) entry.turns += 1;
    entry.words += count;
    bySpeaker.set(current, entry);
    previous = current;
    total += count;
  }
  const speakers = [...bySpeaker].filter(([, s]) => s.words > 0 || s.turns > 0);
  return {
    universal_metrics: {
      duration_minutes: durationMs === null ? 0 : Math.round((durationMs / 60_000) * 100) / 100,
      total_speakers: speakers.length,
      word_count: total,
    },
    speaker_distribution: speakers.map(([speaker, s]) => ({
      speaker,
      percentage: total === 0 ? 0 : Math.round((s.words / total) * 1000) / 10,
      turns: s.turns,
    })),
  };
}
