import { Type, type Static } from '@sinclair/typebox';

/** Longest transcript accepted, characters: hours of speech, within the 1 MB body limit. */
export const MAX_TRANSCRIPT_TEXT = 200_000;

export const AnyObject = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description });

export const TokenUsage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
});

export const AnalyzeBody = Type.Object(
  {
    room_name: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'The call (its room name) in your organisation',
    }),
    transcriptText: Type.String({
      minLength: 1,
      maxLength: MAX_TRANSCRIPT_TEXT,
      description: 'Analysed as given; lines "Speaker: words" let the report count speakers and turns',
    }),
    instructions: Type.Optional(
      Type.String({
        maxLength: 20_000,
        description: "What the agent was told to do; default the agent's identity and task",
      }),
    ),
  },
  { additionalProperties: false },
);

export type AnalyzeBody = Static<typeof AnalyzeBody>;
