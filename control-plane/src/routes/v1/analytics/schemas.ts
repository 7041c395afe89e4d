/**
 * Route schemas of /analytics (spec document 2, Analytics; scope analytics:read): the detailed analysis report of a
 * call, and a fresh overview of its stored transcript.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, NullableString, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { AnalyzeBody, AnyObject, TokenUsage } from '../../../calls/analysis/types.ts';
export { AnalyzeBody, MAX_TRANSCRIPT_TEXT } from '../../../calls/analysis/types.ts';

const TAGS = ['analytics'];
export const ReportSchema = Type.Object({
  id: Type.String(),
  roomName: Type.String(),
  instructions: NullableString,
  transcriptText: Type.String(),
  parsedAnalysis: AnyObject(
    'call_classification, universal_metrics, dynamic_metrics, prompt_adherence, sentiment_flow, speaker_distribution, ' +
      'key_moments, action_items, summary, insights, risk_flags, next_steps (spec document 1, Detailed analysis report)',
  ),
  tokenUsage: TokenUsage,
  model: Type.String({
    description: 'The language model as this installation names it; "default" for the LLM workers\' configured model',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const analyze = {
  tags: TAGS,
  summary: 'The detailed analysis report of a call',
  description:
    'Made once per call: a call that already has a report gets it back without a new analysis, and a failed analysis is final ' +
    '(502 every time). 409 while another request is making the same report; 503 when no language model is available (nothing is stored).',
  body: AnalyzeBody,
  response: { 200: Envelope(ReportSchema), ...authErrors, ...errors(404, 409, 502, 503) },
};

export const OverviewBody = Type.Object(
  {
    roomName: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { additionalProperties: false },
);
export type OverviewBody = Static<typeof OverviewBody>;

export const analyzeOverview = {
  tags: TAGS,
  summary: "A new overview of the call's stored transcript",
  description:
    'The new overview replaces the stored one; the agent result is not re-run. 404 also when the call has no transcript; ' +
    '500 when the model fails; 503 when no language model is available.',
  body: OverviewBody,
  response: {
    200: Envelope(
      Type.Object({
        overview: AnyObject('score, classification, user_sentiment, summary, result'),
        result: Type.Object({
          code: Type.String(),
          quote: Type.String(),
          quote_en: Type.String(),
          callback_at: NullableString,
          callback_time: NullableString,
          evidence_status: Type.String({
            description: "verified: the quote is in the person's own lines; unverified; none: no quote",
          }),
        }),
        agentResult: Type.Unsafe<Record<string, unknown> | null>({
          type: ['object', 'null'],
          additionalProperties: true,
          description: 'As stored; not re-run',
        }),
        tokenUsage: TokenUsage,
      }),
    ),
    ...authErrors,
    ...errors(404, 503),
  },
};
