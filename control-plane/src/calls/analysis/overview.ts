/**
 * The call overview (spec document 1, "Call overview"): what the language model is asked for, and what is stored.
 * The model writes score, classification, sentiment, up to 3 summary bullets and the result's code, quote and
 * callback; `evidence_status` is not the model's word but Parley's check of the quote against what the person said.
 */
import { Type, type Static } from '@sinclair/typebox';

export const CLASSIFICATIONS = ['Relevant', 'Irrelevant'] as const;
export const SENTIMENTS = ['positive', 'neutral', 'negative', 'mixed'] as const;
/** verified: the quote is in the person's own lines; unverified: it is not; none: no quote. */
export const EVIDENCE_STATUSES = ['verified', 'unverified', 'none'] as const;
export type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];
/** Summary bullets at most (spec: "up to 3"). */
export const MAX_SUMMARY_BULLETS = 3;

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );
/** ISO 8601 with a time and an offset (or Z); TypeBox checks patterns, not formats. */
const ISO_TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$';

/** What the model returns for the overview. */
export const ModelOverview = Type.Object(
  {
    score: Type.Union([Type.Integer({ minimum: 1, maximum: 10 }), Type.Null()], {
      description:
        'How well the call went for its purpose, 1 (badly) to 10 (perfectly); null only when there was no real conversation.',
    }),
    classification: literals(
      CLASSIFICATIONS,
      'Relevant when the person engaged with the purpose of the call; Irrelevant otherwise (wrong number, spam, silence, voicemail).',
    ),
    user_sentiment: literals(SENTIMENTS, "The person's overall sentiment."),
    summary: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
      maxItems: MAX_SUMMARY_BULLETS,
      description: `At most ${MAX_SUMMARY_BULLETS} short bullets in English, most important first.`,
    }),
    result: Type.Object(
      {
        code: Type.String({
          pattern: '^[a-z][a-z0-9_]{0,63}$',
          description:
            'What came of the call as a short snake_case code; the chosen outcome key when outcomes are listed.',
        }),
        quote: Type.String({
          maxLength: 500,
          description:
            "The person's own words that best show the result, verbatim, in the language spoken; empty when none.",
        }),
        quote_en: Type.String({
          maxLength: 500,
          description: 'The quote in English (the same text when it was English); empty when no quote.',
        }),
        callback_at: Type.Union([Type.String({ pattern: ISO_TIMESTAMP }), Type.Null()], {
          description:
            'When the person asked to be called back at a definite time: that moment, ISO 8601 with offset, worked out from the call time. Else null.',
        }),
        callback_time: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
          description:
            'The callback time as the person put it ("tomorrow after 5"); null when no callback was asked for.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type ModelOverview = Static<typeof ModelOverview>;

/** The overview as stored on the call and returned by the API. */
export interface Overview {
  score: number | null;
  classification: (typeof CLASSIFICATIONS)[number];
  user_sentiment: string;
  summary: string[];
  result: {
    code: string;
    quote: string;
    quote_en: string;
    evidence_status: EvidenceStatus;
    callback_at: string | null;
    callback_time: string | null;
  };
  /** When it was made. */
  analysedAt: string;
}

/** The overview of a call in which the person never said anything: made without asking the model. */
export function noConversationOverview(now = new Date()): Overview {
  return {
    score: null,
    classification: 'Irrelevant',
    user_sentiment: 'neutral',
    summary: ['No conversation: the other person said nothing.'],
    result: {
      code: 'no_conversation',
      quote: '',
      quote_en: '',
      evidence_status: 'none',
      callback_at: null,
      callback_time: null,
    },
    analysedAt: now.toISOString(),
  };
}

/** The stored overview: the model's, with the quote checked against the person's own lines. */
export function overviewFrom(model: ModelOverview, userLines: readonly string[], now = new Date()): Overview {
  return {
    ...model,
    result: { ...model.result, evidence_status: evidenceOf(model.result.quote, userLines) },
    analysedAt: now.toISOString(),
  };
}

function evidenceOf(quote: string, userLines: readonly string[]): EvidenceStatus {
  const wanted = comparable(quote);
  if (!wanted) return 'none';
  return comparable(userLines.join(' ')).includes(wanted) ? 'verified' : 'unverified';
}

/** Lower case, letters and digits of any script, single spaces: "Yes — call me at 5!" → "yes call me at 5". */
function comparable(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
