/**
 * A PROMPT agent's result of one call, as the post-call analysis decides it: one outcome of the agent's
 * resultsConfig (or no_result) and a value, or null, for every field. The schema the model answers against is built
 * from the agent's own resultsConfig, so an outcome it does not track or a choice it does not offer never fits.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { NO_RESULT_OUTCOME, type ResultsConfig } from '@parley/engine/protocol';
import type { AgentResult } from '../repository/call-records.ts';

type Field = ResultsConfig['fields'][number];

/** Whether a resultsConfig tracks anything (spec: null, or no outcomes and no fields, tracks nothing). */
export function tracksResults(config: ResultsConfig | null | undefined): config is ResultsConfig {
  return !!config && (config.outcomes.length > 0 || config.fields.length > 0);
}

function fieldSchema(field: Field): TSchema {
  const description = field.label;
  switch (field.type) {
    case 'number':
      return Type.Number({ description });
    case 'phone':
      return Type.String({
        pattern: '^\\+?[0-9]{3,15}$',
        description: `${description} (digits, optionally a leading +)`,
      });
    case 'choice':
      return Type.Union(
        (field.choices ?? []).map((c) => Type.Literal(c)),
        { description: `${description}: one of ${(field.choices ?? []).join(', ')}` },
      );
    case 'yes_no':
      return Type.Boolean({ description: `${description} (true for yes, false for no)` });
    case 'date':
      return Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: `${description} (YYYY-MM-DD)` });
    case 'text':
      return Type.String({ maxLength: 500, description });
  }
}

/** The schema of the model's agent result for this resultsConfig. */
export function agentResultSchema(config: ResultsConfig): TSchema {
  const keys = [...config.outcomes.map((o) => o.key), NO_RESULT_OUTCOME.key];
  return Type.Object(
    {
      outcome: Type.Union(
        keys.map((k) => Type.Literal(k)),
        { description: `The outcome key that fits the call; ${NO_RESULT_OUTCOME.key} when none does.` },
      ),
      captured: capturedSchema(config.fields),
    },
    { additionalProperties: false },
  );
}

/** Every field key with the value the person gave, or null: agent results and campaign data extraction alike. */
export function capturedSchema(fields: readonly Field[]): TSchema {
  return Type.Object(Object.fromEntries(fields.map((f) => [f.key, Type.Union([fieldSchema(f), Type.Null()])])), {
    additionalProperties: false,
    description: 'Every field key, with the value the person gave, or null when it was not said.',
  });
}

/** Forgives what the model may write differently without changing meaning: the case of a choice. */
export function normaliseAgentResult(config: ResultsConfig, value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const captured = (value as { captured?: unknown }).captured;
  if (!captured || typeof captured !== 'object') return value;
  const fixed = { ...(captured as Record<string, unknown>) };
  for (const field of config.fields) {
    const given = fixed[field.key];
    if (field.type === 'choice' && typeof given === 'string') {
      fixed[field.key] = field.choices?.find((c) => c.toLowerCase() === given.trim().toLowerCase()) ?? given;
    }
  }
  return { ...(value as object), captured: fixed };
}

/** The stored agent result: the outcome's label from the config, captured values without the nulls. */
export function agentResultFrom(
  config: ResultsConfig,
  answer: { outcome: string; captured: Record<string, unknown> },
  now = new Date(),
): AgentResult {
  const outcome = config.outcomes.find((o) => o.key === answer.outcome) ?? NO_RESULT_OUTCOME;
  return {
    outcomeKey: outcome.key,
    outcomeLabel: outcome.label,
    captured: Object.fromEntries(Object.entries(answer.captured).filter(([, v]) => v !== null && v !== undefined)),
    resultSource: 'analysis',
    flowPath: null,
    decidedAt: now.toISOString(),
  };
}
