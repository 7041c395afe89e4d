/**
 * Checks a flowDefinition against its schema and against the agent it belongs to, and returns every problem at
 * once (the API's `flowErrors`), so a person fixing a flow sees the whole list instead of one error per save.
 * Paths are JSON pointers into the flow ("/steps/confirm/next").
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ValueError } from '@sinclair/typebox/errors';
import {
  BranchStep,
  DtmfCondition,
  IntentCondition,
  KEY_PATTERN,
  KeywordCondition,
  MAX_FLOW_STEPS,
  NO_RESULT_OUTCOME,
  SEARCH_TOOLS,
  STEP_SCHEMAS,
  ValueCondition,
  FlowDefinition,
  type FlowStep,
  type Outcome,
  type StepOfKind,
} from '../../protocol/flow-definition.ts';
import { FlowGraph, pointer } from './flow-graph.ts';
import { handoverOutcome } from './flow-results.ts';

export interface FlowProblem {
  /** JSON pointer to the offending part of the flow ('' for the flow itself). */
  path: string;
  message: string;
}

/** What the flow is checked against: the agent that will run it. */
export interface FlowValidationContext {
  /** Keys of the agent's function tools. */
  toolKeys: readonly string[];
  /** The agent's customVariables list a knowledge base, so it has knowledge_search. */
  hasKnowledgeBase?: boolean;
  /** The agent's customVariables list a catalogue, so it has product_search. */
  hasCatalogue?: boolean;
  /** The handover number from the agent's handoverData; empty or absent means no handover is possible. */
  handoverNumber?: string | null;
}

const Envelope = Type.Object(
  {
    version: FlowDefinition.properties.version,
    start: FlowDefinition.properties.start,
    steps: Type.Record(Type.String(), Type.Unknown(), { minProperties: 1, maxProperties: MAX_FLOW_STEPS }),
    maxStepVisits: FlowDefinition.properties.maxStepVisits,
  },
  { additionalProperties: false },
);

// Branch conditions are checked one by one by their kind, so an error names the field, not "expected union value".
const BranchShell = Type.Composite(
  [Type.Omit(BranchStep, ['conditions']), Type.Object({ conditions: Type.Array(Type.Unknown(), { maxItems: 20 }) })],
  { additionalProperties: false },
);
const CONDITION_SCHEMAS: Record<string, TSchema> = {
  value: ValueCondition,
  intent: IntentCondition,
  dtmf: DtmfCondition,
  keywords: KeywordCondition,
};

const compiled = new Map<TSchema, TypeCheck<TSchema>>();
function checker(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  return check;
}

const KEY_RULE = 'must start with a letter and hold only letters, digits, _ and - (at most 64)';
const keyPattern = new RegExp(KEY_PATTERN);

function describe(error: ValueError): string {
  const schema = error.schema as { anyOf?: { const?: unknown }[]; pattern?: string };
  if (schema.anyOf?.every((option) => option.const !== undefined)) {
    return `must be one of: ${schema.anyOf.map((option) => String(option.const)).join(', ')}`;
  }
  if (schema.pattern === KEY_PATTERN) return KEY_RULE;
  return error.message;
}

function schemaProblems(
  schema: TSchema,
  value: unknown,
  base: string,
  skip?: (path: string) => boolean,
): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const seen = new Set<string>();
  for (const error of checker(schema).Errors(value)) {
    if (skip?.(error.path)) continue;
    const problem = { path: base + error.path, message: describe(error) };
    const id = `${problem.path}\n${problem.message}`;
    if (!seen.has(id)) problems.push(problem);
    seen.add(id);
  }
  return problems;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The step's own schema problems; an empty list means the step is well-formed. */
function stepProblems(key: string, step: unknown): FlowProblem[] {
  const at = pointer('steps', key);
  const problems: FlowProblem[] = [];
  if (!keyPattern.test(key)) problems.push({ path: at, message: `step key "${key}" ${KEY_RULE}` });
  if (!isRecord(step)) return [...problems, { path: at, message: 'a step must be an object' }];
  const kind = step.kind;
  if (typeof kind !== 'string' || !(kind in STEP_SCHEMAS)) {
    return [...problems, { path: `${at}/kind`, message: `must be one of: ${Object.keys(STEP_SCHEMAS).join(', ')}` }];
  }
  if (kind !== 'branch') return [...problems, ...schemaProblems(STEP_SCHEMAS[kind as FlowStep['kind']], step, at)];
  problems.push(...schemaProblems(BranchShell, step, at));
  if (Array.isArray(step.conditions)) {
    step.conditions.forEach((condition, i) => {
      const where = `${at}/conditions/${i}`;
      const conditionKind = isRecord(condition) ? condition.kind : undefined;
      const schema = typeof conditionKind === 'string' ? CONDITION_SCHEMAS[conditionKind] : undefined;
      if (schema) problems.push(...schemaProblems(schema, condition, where));
      else
        problems.push({
          path: `${where}/kind`,
          message: `must be one of: ${Object.keys(CONDITION_SCHEMAS).join(', ')}`,
        });
    });
  }
  return problems;
}

/**
 * Every problem of a flow for this agent; an empty array means it can be saved and run. A value that passes is a
 * FlowDefinition.
 */
export function validateFlow(flow: unknown, context: FlowValidationContext): FlowProblem[] {
  if (!isRecord(flow)) return [{ path: '', message: 'the flow must be an object with version, start and steps' }];
  const problems = schemaProblems(Envelope, flow, '');
  const steps = isRecord(flow.steps) ? flow.steps : {};
  const wellFormed = new Map<string, FlowStep>();
  for (const [key, step] of Object.entries(steps)) {
    const found = stepProblems(key, step);
    problems.push(...found);
    if (found.length === 0) wellFormed.set(key, step as FlowStep);
  }
  problems.push(...graphProblems(flow, steps));
  for (const [key, step] of wellFormed) problems.push(...agentProblems(key, step, context));
  problems.push(...fieldProblems(wellFormed), ...outcomeProblems(wellFormed));
  return problems;
}

function graphProblems(flow: Record<string, unknown>, steps: Record<string, unknown>): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const graph = new FlowGraph(steps);
  const start = typeof flow.start === 'string' ? flow.start : undefined;
  if (start !== undefined && !graph.has(start))
    problems.push({ path: '/start', message: `there is no step "${start}"` });
  for (const ref of graph.refs) {
    if (!graph.has(ref.to)) problems.push({ path: ref.path, message: `there is no step "${ref.to}"` });
  }
  if (graph.keys.length === 0) return problems;
  const reachable = new Set(start !== undefined && graph.has(start) ? graph.reachable([start]) : graph.keys);
  for (const key of graph.keys) {
    if (!reachable.has(key))
      problems.push({ path: pointer('steps', key), message: `step "${key}" cannot be reached from the start step` });
  }
  const ends = graph.keys.filter(
    (key) => isRecord(steps[key]) && (steps[key] as Record<string, unknown>).kind === 'end',
  );
  if (ends.length === 0) {
    problems.push({ path: '/steps', message: 'the flow has no end step, so no call could finish with an outcome' });
  } else {
    const canEnd = new Set(graph.reachable(ends, 'backward'));
    for (const key of graph.keys) {
      if (reachable.has(key) && !canEnd.has(key)) {
        problems.push({
          path: pointer('steps', key),
          message: `from step "${key}" no path leads to an end step (it stops or loops without a way out)`,
        });
      }
    }
  }
  for (const loop of graph.quietLoops()) {
    problems.push({
      path: pointer('steps', loop[0]!),
      message: `steps ${loop.map((key) => `"${key}"`).join(', ')} loop without asking the caller anything, so a call would go round them until the loop guard ends it`,
    });
  }
  return problems;
}

/** What the agent must have for this step: its tools, a knowledge base or catalogue, a handover number. */
function agentProblems(key: string, step: FlowStep, context: FlowValidationContext): FlowProblem[] {
  const at = pointer('steps', key);
  if (step.kind === 'tool') {
    const available = [
      ...context.toolKeys,
      ...(context.hasKnowledgeBase ? [SEARCH_TOOLS.knowledge] : []),
      ...(context.hasCatalogue ? [SEARCH_TOOLS.catalogue] : []),
    ];
    if (available.includes(step.tool)) return [];
    const list = available.length ? `its tools are ${available.join(', ')}` : 'it has no tools';
    return [{ path: `${at}/tool`, message: `the agent has no tool "${step.tool}"; ${list}` }];
  }
  if (step.kind === 'knowledge') {
    const source = step.source ?? 'knowledge';
    if (source === 'knowledge' && !context.hasKnowledgeBase) {
      return [{ path: at, message: "a knowledge step needs a knowledge base listed in the agent's customVariables" }];
    }
    if (source === 'catalogue' && !context.hasCatalogue) {
      return [{ path: at, message: "a catalogue search needs a catalogue listed in the agent's customVariables" }];
    }
  }
  if (step.kind === 'handover' && !context.handoverNumber?.trim()) {
    return [{ path: at, message: "a handover step needs a handover number in the agent's handoverData" }];
  }
  return [];
}

function askProblems(key: string, step: StepOfKind<'ask'>): FlowProblem[] {
  const at = pointer('steps', key);
  const problems: FlowProblem[] = [];
  const { field } = step;
  if (field.type === 'choice' && !field.choices?.length) {
    problems.push({ path: `${at}/field/choices`, message: `choice field "${field.key}" needs its choices` });
  }
  const values = new Set<string>();
  const keys = new Set<string>();
  field.choices?.forEach((choice, i) => {
    const value = choice.value.toLowerCase();
    if (values.has(value))
      problems.push({ path: `${at}/field/choices/${i}/value`, message: `choice "${choice.value}" is listed twice` });
    values.add(value);
    if (choice.dtmf && keys.has(choice.dtmf))
      problems.push({
        path: `${at}/field/choices/${i}/dtmf`,
        message: `key ${choice.dtmf} already picks another choice`,
      });
    if (choice.dtmf) keys.add(choice.dtmf);
  });
  step.patterns?.forEach((source, i) => {
    try {
      new RegExp(source, 'iu');
    } catch (error) {
      problems.push({
        path: `${at}/patterns/${i}`,
        message: `not a valid regular expression: ${(error as Error).message}`,
      });
    }
  });
  return problems;
}

/** One field key, one type: the results table has one column per field. */
function fieldProblems(steps: ReadonlyMap<string, FlowStep>): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const fields = new Map<string, { type: string; step: string }>();
  for (const [key, step] of steps) {
    if (step.kind !== 'ask') continue;
    problems.push(...askProblems(key, step));
    const first = fields.get(step.field.key);
    if (!first) fields.set(step.field.key, { type: step.field.type, step: key });
    else if (first.type !== step.field.type) {
      problems.push({
        path: pointer('steps', key, 'field', 'type'),
        message: `field "${step.field.key}" is captured as ${first.type} at step "${first.step}"; a field has one type`,
      });
    }
  }
  for (const [key, step] of steps) {
    if (step.kind !== 'branch') continue;
    step.conditions.forEach((condition, i) => {
      if (condition.kind !== 'value') return;
      const at = pointer('steps', key, 'conditions', i);
      if ((condition.from ?? 'captured') === 'captured' && !fields.has(condition.field)) {
        problems.push({ path: `${at}/field`, message: `no ask step captures a field "${condition.field}"` });
      }
      const { op, value } = condition;
      if (op === 'in' && !Array.isArray(value))
        problems.push({ path: `${at}/value`, message: 'op "in" needs an array of values' });
      if ((op === 'equals' || op === 'gt' || op === 'lt') && (value === undefined || Array.isArray(value))) {
        problems.push({ path: `${at}/value`, message: `op "${op}" needs a single value` });
      }
      if ((op === 'gt' || op === 'lt') && typeof value === 'boolean') {
        problems.push({ path: `${at}/value`, message: `op "${op}" compares numbers or dates, not true/false` });
      }
    });
  }
  return problems;
}

/** Outcome keys are results filters: one label per key, and `no_result` belongs to calls that reached no end. */
function outcomeProblems(steps: ReadonlyMap<string, FlowStep>): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const labels = new Map<string, { label: string; step: string }>();
  for (const [key, step] of steps) {
    const outcome: Outcome | undefined =
      step.kind === 'end' ? step.outcome : step.kind === 'handover' ? handoverOutcome(step) : undefined;
    if (!outcome) continue;
    const at = pointer('steps', key, 'outcome');
    if (outcome.key === NO_RESULT_OUTCOME.key) {
      problems.push({
        path: `${at}/key`,
        message: `outcome key "${NO_RESULT_OUTCOME.key}" is reserved for calls that reach no end`,
      });
    }
    const first = labels.get(outcome.key);
    if (!first) labels.set(outcome.key, { label: outcome.label, step: key });
    else if (first.label !== outcome.label) {
      problems.push({
        path: `${at}/label`,
        message: `outcome "${outcome.key}" is labelled "${first.label}" at step "${first.step}"; one outcome has one label`,
      });
    }
  }
  return problems;
}

/** Narrows after validation: `validateFlow(x, ctx).length === 0` means `x` is a FlowDefinition. */
export function isFlowDefinition(flow: unknown, context: FlowValidationContext): flow is FlowDefinition {
  return validateFlow(flow, context).length === 0;
}
