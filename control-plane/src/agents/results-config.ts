/**
 * A PROMPT agent's resultsConfig (spec: Agent): the outcomes the post-call analysis picks from and the fields it
 * fills. The schema checks shapes; this checks what a schema cannot say, naming each problem's field.
 */
import { KEY_PATTERN, NO_RESULT_OUTCOME, type ResultsConfig } from '@parley/engine/protocol';
import { validationError, type FieldProblem } from '../errors.ts';
import type { ResultsConfigInput } from './field-schemas.ts';

const keyPattern = new RegExp(KEY_PATTERN);
const KEY_RULE = 'must start with a letter and hold only letters, digits, _ and - (at most 64)';

/** The stored form (both lists present), or null for "tracks nothing"; a 400 lists every problem. */
export function normaliseResultsConfig(input: ResultsConfigInput | null): ResultsConfig | null {
  if (input === null) return null;
  const config: ResultsConfig = { outcomes: input.outcomes ?? [], fields: input.fields ?? [] };
  const problems = [...outcomeProblems(config), ...fieldProblems(config)];
  if (problems.length) throw validationError(problems);
  return config;
}

function outcomeProblems(config: ResultsConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  config.outcomes.forEach((outcome, i) => {
    const field = `resultsConfig.outcomes.${i}.key`;
    if (!keyPattern.test(outcome.key)) problems.push({ field, message: KEY_RULE });
    else if (outcome.key === NO_RESULT_OUTCOME.key)
      problems.push({ field, message: `"${NO_RESULT_OUTCOME.key}" is reserved for calls without a result` });
    else if (seen.has(outcome.key)) problems.push({ field, message: `outcome "${outcome.key}" is listed twice` });
    seen.add(outcome.key);
  });
  return problems;
}

function fieldProblems(config: ResultsConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  config.fields.forEach((field, i) => {
    const at = `resultsConfig.fields.${i}`;
    if (!keyPattern.test(field.key)) problems.push({ field: `${at}.key`, message: KEY_RULE });
    else if (seen.has(field.key))
      problems.push({ field: `${at}.key`, message: `field "${field.key}" is listed twice` });
    seen.add(field.key);
    if (field.type === 'choice') {
      if (!field.choices?.length)
        problems.push({ field: `${at}.choices`, message: 'is required for type choice: list the options' });
      const repeated = field.choices?.find(
        (choice, j) => field.choices!.findIndex((c) => c.toLowerCase() === choice.toLowerCase()) !== j,
      );
      if (repeated) problems.push({ field: `${at}.choices`, message: `choice "${repeated}" is listed twice` });
    } else if (field.choices !== undefined) {
      problems.push({
        field: `${at}.choices`,
        message: `only fields of type choice have choices; this one is ${field.type}`,
      });
    }
  });
  return problems;
}
