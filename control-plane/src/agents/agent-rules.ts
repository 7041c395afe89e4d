/**
 * The agent rules of spec documents 1–3 that need no database: required fields by agent type and builder mode,
 * web calling for CHAT agents only, time zones, and the instruction budget. Every broken rule is reported at once,
 * each naming its field. A rule about a field is checked when the request could have broken it (the field or what
 * it depends on was sent), so an agent saved under older rules can still be edited.
 */
import type { FieldProblem } from '../errors.ts';
import type { AgentState } from './records.ts';
import type { CreateAgentBody, UpdateAgentBody } from './types.ts';

/** Spec document 3: the default instruction budget, characters. Organisations may have their own. */
export const DEFAULT_INSTRUCTION_BUDGET = 4_000;
/** The fields whose combined length the budget limits (spec document 2, Agents rule 1). */
export const BUDGET_FIELDS = [
  'agentIdentity',
  'agentPersonality',
  'agentTask',
  'pronunciation',
  'languageAccent',
] as const;

export interface RuleInput {
  /** The stored agent; undefined on create. */
  prev: AgentState | undefined;
  next: AgentState;
  body: CreateAgentBody | UpdateAgentBody;
  /** The organisation's instruction budget, characters. */
  budget: number;
}

/** Characters as people count them (code points), so an emoji is one, not two. */
const characters = (text: string | null) => (text ? [...text].length : 0);

/** The combined length of the budgeted fields. */
export function instructionLength(state: AgentState): number {
  return BUDGET_FIELDS.reduce((sum, field) => sum + characters(state[field]), 0);
}

export function ruleProblems(input: RuleInput): FieldProblem[] {
  return [...requiredProblems(input), ...typeProblems(input), ...budgetProblems(input)];
}

function requiredProblems({ prev, next, body }: RuleInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const touched = (field: keyof UpdateAgentBody) => !prev || body[field as keyof typeof body] !== undefined;
  if (touched('name') && !next.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
  if (touched('agentIdentity') && !next.agentIdentity.trim())
    problems.push({ field: 'agentIdentity', message: 'must not be blank' });
  const backToPrompt = prev?.builderMode === 'FLOW' && next.builderMode === 'PROMPT';
  if (next.builderMode === 'PROMPT' && !next.agentTask && (touched('agentTask') || backToPrompt)) {
    const message = !prev
      ? 'is required unless builderMode is FLOW'
      : backToPrompt
        ? 'is required to switch the agent back to PROMPT'
        : 'must not be empty for a PROMPT agent';
    problems.push({ field: 'agentTask', message });
  }
  const becameVoice = prev !== undefined && prev.agentType !== 'VOICE' && next.agentType === 'VOICE';
  if (next.agentType === 'VOICE' && !next.greetingMessage?.trim() && (touched('greetingMessage') || becameVoice)) {
    problems.push({ field: 'greetingMessage', message: 'is required for VOICE agents' });
  }
  return problems;
}

function typeProblems({ prev, next, body }: RuleInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (next.webCallEnabled && next.agentType !== 'CHAT') {
    const field = body.webCallEnabled === undefined && body.agentType !== undefined ? 'agentType' : 'webCallEnabled';
    problems.push({
      field,
      message:
        field === 'webCallEnabled'
          ? 'is for CHAT agents only'
          : 'a VOICE agent cannot keep webCallEnabled: send webCallEnabled false too',
    });
  }
  if (next.timezone && (!prev || body.timezone !== undefined) && !isTimeZone(next.timezone)) {
    problems.push({ field: 'timezone', message: 'must be an IANA time zone such as Europe/London' });
  }
  return problems;
}

/**
 * Spec rule 1: the budgeted fields together stay within the organisation's budget; an agent already over it (the
 * budget was lowered, or it predates the rule) may still be saved when the edit does not make it longer.
 */
export function budgetProblems({ prev, next, budget }: Pick<RuleInput, 'prev' | 'next' | 'budget'>): FieldProblem[] {
  const length = instructionLength(next);
  if (length <= budget) return [];
  if (prev && length <= instructionLength(prev)) return [];
  const longest = [...BUDGET_FIELDS].sort((a, b) => characters(next[b]) - characters(next[a]))[0]!;
  const counted = prev
    ? `${length.toLocaleString('en')} characters (${instructionLength(prev).toLocaleString('en')} before this edit)`
    : `${length.toLocaleString('en')} characters`;
  return [
    {
      field: longest,
      message: `takes the instructions (${BUDGET_FIELDS.join(', ')}) to ${counted}, over the organisation's instruction budget of ${budget.toLocaleString('en')}`,
    },
  ];
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
