/**
 * The words of the analyses: what the language model is told for a call's overview (and agent result), and for the
 * detailed report. The JSON shape itself travels as the tool's schema; these texts say what the values mean.
 */
import { NO_RESULT_OUTCOME, type ResultsConfig } from '@parley/engine/protocol';
import { knownTimeZone, zonedDateTime } from '../time-zone.ts';
import type { AnalysisInput, TranscriptLine } from '../repository/analysis-input.ts';

/**
 * Transcript characters sent at most (~12k tokens). A longer call keeps its first and last parts: how it opened and
 * how it ended say most about its result.
 */
export const MAX_TRANSCRIPT_CHARS = 48_000;
/** Agent instructions sent at most: enough to know the call's purpose without paying for a whole playbook. */
const MAX_INSTRUCTION_CHARS = 4_000;

export const OVERVIEW_TOOL = 'submit_call_analysis';
export const REPORT_TOOL = 'submit_call_report';
export const EXTRACTION_TOOL = 'submit_call_data';

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 40) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

export function transcriptText(lines: readonly TranscriptLine[]): string {
  return lines
    .map(
      (l) =>
        `[${clock(l.startMs)}] ${l.speaker === 'assistant' ? 'Agent' : 'Caller'}: ${l.text}${l.interrupted ? ' [interrupted]' : ''}`,
    )
    .join('\n');
}

function trackingText(config: ResultsConfig): string {
  const outcomes = config.outcomes.map((o) => `- ${o.key}: ${o.label}${o.description ? ` (${o.description})` : ''}`);
  const fields = config.fields.map(
    (f) => `- ${f.key}: ${f.label}, ${f.type}${f.choices?.length ? ` (one of: ${f.choices.join(', ')})` : ''}`,
  );
  return [
    'The agent tracks these outcomes; pick exactly one for agent_result.outcome, or ' +
      `${NO_RESULT_OUTCOME.key} when none fits:`,
    ...(outcomes.length ? outcomes : ['(none)']),
    'and these fields; give each one in agent_result.captured, null when the person did not say it:',
    ...(fields.length ? fields : ['(none)']),
  ].join('\n');
}

export function overviewPrompt(
  input: AnalysisInput,
  tracked: ResultsConfig | undefined,
): { system: string; user: string } {
  const zone = knownTimeZone(input.agent.timezone);
  const system = [
    'You analyse a finished call between an AI voice agent ("Agent") and a person ("Caller") for the organisation that runs the agent.',
    `Answer only by calling the tool ${OVERVIEW_TOOL} once, with arguments that match its JSON schema exactly.`,
    'overview.score rates how well the call served its purpose, 1 to 10. overview.classification is Relevant when the person engaged with that purpose.',
    'overview.summary holds at most 3 short English bullets. overview.result.code is a short snake_case code of what came of the call' +
      (tracked ? ' (use the chosen outcome key)' : '') +
      '.',
    'overview.result.quote is the person\'s own words, copied exactly from the Caller lines, that best show the result ("" when none); quote_en is its English translation.',
    'When the person asked to be called back at a definite time, give it as callback_at (ISO 8601 with offset, worked out from the call time) and as they said it in callback_time; otherwise both are null.',
    'Judge only from the transcript; never invent what was not said.',
  ].join('\n');
  const user = [
    `Agent: ${input.agent.name}`,
    `Agent instructions: ${clip([input.agent.identity, input.agent.task ?? ''].filter(Boolean).join('\n'), MAX_INSTRUCTION_CHARS)}`,
    `Call: ${input.direction === 'INBOUND' ? 'inbound (the person called)' : 'outbound (the agent called)'}, started ${input.startedAt.toISOString()} ` +
      `(${zonedDateTime(input.startedAt, zone)} ${zone})${input.participantName ? `, with ${input.participantName}` : ''}.`,
    ...(tracked ? [trackingText(tracked)] : []),
    'Transcript:',
    clip(transcriptText(input.transcript), MAX_TRANSCRIPT_CHARS),
  ].join('\n\n');
  return { system, user };
}

export function reportPrompt(transcript: string, instructions: string | null): { system: string; user: string } {
  const system = [
    'You write a detailed analysis of a call transcript for the organisation whose AI agent took part in it.',
    `Answer only by calling the tool ${REPORT_TOOL} once, with arguments that match its JSON schema exactly.`,
    'call_classification names the kind of call; dynamic_metrics are 3 to 6 measures that matter for this kind of call, each with its scale max.',
    'prompt_adherence judges the agent against its instructions (overall_score 0 to 100). sentiment_flow and key_moments use times as ' +
      'they appear in the transcript (or the order of lines when it has none); sentiment is from -1 (negative) to 1 (positive).',
    'Judge only from the transcript; never invent what was not said.',
  ].join('\n');
  const user = [
    `Agent instructions: ${instructions ? clip(instructions, MAX_INSTRUCTION_CHARS) : '(none given)'}`,
    'Transcript:',
    clip(transcript, MAX_TRANSCRIPT_CHARS),
  ].join('\n\n');
  return { system, user };
}

/** A campaign's data extraction (its dataExtractionSchema fields) from one call's transcript. */
export function extractionPrompt(
  input: AnalysisInput,
  fields: ResultsConfig['fields'],
): { system: string; user: string } {
  const listed = fields.map(
    (f) => `- ${f.key}: ${f.label}, ${f.type}${f.choices?.length ? ` (one of: ${f.choices.join(', ')})` : ''}`,
  );
  const system = [
    'You read a finished call between an AI voice agent ("Agent") and a person ("Caller") of an outbound campaign,',
    'and record the values the Caller gave for the fields below, in `captured`. A field the Caller did not state is',
    "null: never guess. Values the Agent said but the Caller did not confirm are not the Caller's.",
    'Fields:',
    ...listed,
    `Answer only by calling ${EXTRACTION_TOOL}.`,
  ].join('\n');
  return { system, user: clip(transcriptText(input.transcript), MAX_TRANSCRIPT_CHARS) };
}
