/**
 * Analyses of a call through the installation's language model: the overview (with, for a PROMPT agent that tracks
 * results, the agent result in the same answer) and the detailed report. Each is one schema-checked JSON answer
 * (structured-answer.ts); a call in which the person said nothing gets its overview without asking the model.
 */
import { Type } from '@sinclair/typebox';
import type { Bus } from '@parley/engine/bus';
import type { ResultsConfig } from '@parley/engine/protocol';
import type { AgentResult } from '../repository/call-records.ts';
import {
  agentResultFrom,
  agentResultSchema,
  capturedSchema,
  normaliseAgentResult,
  tracksResults,
} from './agent-result.ts';
import type { AnalysisInput } from '../repository/analysis-input.ts';
import {
  EXTRACTION_TOOL,
  OVERVIEW_TOOL,
  REPORT_TOOL,
  extractionPrompt,
  overviewPrompt,
  reportPrompt,
} from './analysis-prompts.ts';
import { ModelOverview, noConversationOverview, overviewFrom, type Overview } from './overview.ts';
import { ModelReport, transcriptMetrics, type ParsedAnalysis } from './report.ts';
import { askForJson, type TokenUsage } from './structured-answer.ts';

/** Longest overview answer, tokens: a few short bullets, a quote and the captured fields. */
const OVERVIEW_MAX_TOKENS = 2_000;
/** Longest report answer, tokens: the report's lists are capped by its schema. */
const REPORT_MAX_TOKENS = 6_000;
/** Low: the same call should get the same judgement each time it is analysed. */
const ANALYSIS_TEMPERATURE = 0.1;

export interface OverviewAnalysis {
  overview: Overview;
  /** The PROMPT agent's result when asked for and tracked; otherwise null. */
  agentResult: AgentResult | null;
  tokenUsage: TokenUsage;
}

export interface ReportAnalysis {
  parsedAnalysis: ParsedAnalysis;
  tokenUsage: TokenUsage;
}

const NO_USAGE: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export class CallAnalyst {
  readonly #bus: Bus;

  constructor(bus: Bus) {
    this.#bus = bus;
  }

  /**
   * The call's overview; with `agentResult`, also the agent result of a PROMPT agent whose resultsConfig tracks
   * something (FLOW agents' results come from the flow, never from here).
   */
  async overview(
    input: AnalysisInput,
    options: { agentResult: boolean },
    signal: AbortSignal,
  ): Promise<OverviewAnalysis> {
    const tracked =
      options.agentResult && input.agent.builderMode === 'PROMPT' && tracksResults(input.agent.resultsConfig)
        ? (input.agent.resultsConfig as ResultsConfig)
        : undefined;
    const userLines = input.transcript.filter((l) => l.speaker === 'user').map((l) => l.text);
    if (!userLines.some((l) => l.trim()))
      return { overview: noConversationOverview(), agentResult: null, tokenUsage: NO_USAGE };
    const schema = tracked
      ? Type.Object(
          { overview: ModelOverview, agent_result: agentResultSchema(tracked) },
          { additionalProperties: false },
        )
      : Type.Object({ overview: ModelOverview }, { additionalProperties: false });
    const { system, user } = overviewPrompt(input, tracked);
    const answer = await askForJson(
      this.#bus,
      {
        traceId: `post-call-${input.callId}`,
        system,
        user,
        schema,
        toolName: OVERVIEW_TOOL,
        toolDescription: 'Records the analysis of the call.',
        maxTokens: OVERVIEW_MAX_TOKENS,
        temperature: ANALYSIS_TEMPERATURE,
        normalise: tracked ? (value) => normaliseAnswer(tracked, value) : undefined,
      },
      signal,
    );
    const value = answer.value as {
      overview: ModelOverview;
      agent_result?: { outcome: string; captured: Record<string, unknown> };
    };
    return {
      overview: overviewFrom(value.overview, userLines),
      agentResult: tracked && value.agent_result ? agentResultFrom(tracked, value.agent_result) : null,
      tokenUsage: answer.usage,
    };
  }

  /**
   * A campaign's data extraction: the value the caller gave for each field (nulls left out); empty when the caller
   * said nothing.
   */
  async extract(
    input: AnalysisInput,
    fields: ResultsConfig['fields'],
    signal: AbortSignal,
  ): Promise<{ captured: Record<string, unknown>; tokenUsage: TokenUsage }> {
    if (!input.transcript.some((l) => l.speaker === 'user' && l.text.trim()))
      return { captured: {}, tokenUsage: NO_USAGE };
    const config: ResultsConfig = { outcomes: [], fields: [...fields] };
    const { system, user } = extractionPrompt(input, fields);
    const answer = await askForJson(
      this.#bus,
      {
        traceId: `extraction-${input.callId}`,
        system,
        user,
        schema: Type.Object({ captured: capturedSchema(fields) }, { additionalProperties: false }),
        toolName: EXTRACTION_TOOL,
        toolDescription: "Records the caller's values of the campaign's fields.",
        maxTokens: OVERVIEW_MAX_TOKENS,
        temperature: ANALYSIS_TEMPERATURE,
        normalise: (value) => normaliseAgentResult(config, value),
      },
      signal,
    );
    const captured = (answer.value as { captured: Record<string, unknown> }).captured;
    return {
      captured: Object.fromEntries(Object.entries(captured).filter(([, v]) => v !== null && v !== undefined)),
      tokenUsage: answer.usage,
    };
  }

  /** The detailed report of a transcript as given, judged against `instructions`. */
  async report(
    call: { callId: string; durationMs: number | null },
    transcript: string,
    instructions: string | null,
    signal: AbortSignal,
  ): Promise<ReportAnalysis> {
    const { system, user } = reportPrompt(transcript, instructions);
    const answer = await askForJson(
      this.#bus,
      {
        traceId: `analytics-${call.callId}`,
        system,
        user,
        schema: ModelReport,
        toolName: REPORT_TOOL,
        toolDescription: 'Records the detailed analysis of the call.',
        maxTokens: REPORT_MAX_TOKENS,
        temperature: ANALYSIS_TEMPERATURE,
      },
      signal,
    );
    return {
      parsedAnalysis: { ...answer.value, ...transcriptMetrics(transcript, call.durationMs) },
      tokenUsage: answer.usage,
    };
  }
}

function normaliseAnswer(config: ResultsConfig, value: unknown): unknown {
  if (!value || typeof value !== 'object' || !('agent_result' in value)) return value;
  return { ...value, agent_result: normaliseAgentResult(config, (value as { agent_result: unknown }).agent_result) };
}
