/**
 * A FLOW agent's resultsConfig is derived from its flow on every save (spec: Agent resultsConfig; a sent one is
 * ignored): the outcomes are those its end and handover steps record, the fields those its ask steps capture.
 * Both are listed in the order a reader of the flow meets them, so the results table reads like the call.
 */
import {
  HANDED_OVER_OUTCOME,
  type FlowDefinition,
  type Outcome,
  type ResultsConfig,
} from '../../protocol/flow-definition.ts';
import { FlowGraph } from './flow-graph.ts';

/** The outcome a handover step records when it succeeds. */
export function handoverOutcome(step: { outcome?: Outcome }): Outcome {
  return step.outcome ?? { ...HANDED_OVER_OUTCOME };
}

/** Step keys from the start, depth first, then any unreachable ones in the order they were written. */
function readingOrder(flow: FlowDefinition): string[] {
  const graph = new FlowGraph(flow.steps);
  const order = graph.depthFirst(flow.start);
  const seen = new Set(order);
  return [...order, ...graph.keys.filter((key) => !seen.has(key))];
}

export function deriveResultsConfig(flow: FlowDefinition): ResultsConfig {
  const outcomes = new Map<string, Outcome>();
  const fields = new Map<string, ResultsConfig['fields'][number]>();
  for (const key of readingOrder(flow)) {
    const step = flow.steps[key]!;
    if (step.kind === 'end' || step.kind === 'handover') {
      const outcome = step.kind === 'end' ? step.outcome : handoverOutcome(step);
      const known = outcomes.get(outcome.key);
      if (!known) outcomes.set(outcome.key, { ...outcome });
      else if (!known.description && outcome.description) known.description = outcome.description;
    } else if (step.kind === 'ask') {
      const { field } = step;
      const known = fields.get(field.key);
      const choices = field.type === 'choice' ? (field.choices ?? []).map((choice) => choice.value) : undefined;
      if (!known) {
        fields.set(field.key, {
          key: field.key,
          label: field.label,
          type: field.type,
          ...(choices ? { choices } : {}),
        });
      } else if (known.choices && choices) {
        // The same choice field asked in two places offers everything either place offers.
        known.choices = [...new Set([...known.choices, ...choices])];
      }
    }
  }
  return { outcomes: [...outcomes.values()], fields: [...fields.values()] };
}
