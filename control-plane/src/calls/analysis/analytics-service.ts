/**
 * On-demand analyses (spec document 2, Analytics): the detailed report of a call, made once (a failure is final),
 * and a fresh overview of the stored transcript that replaces the call's overview without re-running its result.
 */
import type { Principal } from '../../auth/principal.ts';
import type { Sql } from '../../db/database.ts';
import { ApiError, notFound } from '../../errors.ts';
import { agentInstructions } from '../../agents/repository.ts';
import {
  createRunningReport,
  dropRunningReport,
  findReport,
  markReportFailed,
  markReportReady,
  saveOverview,
  takeLapsedReport,
  type ReportRow,
} from '../repository/analysis-report-repository.ts';
import { loadAnalysisInput } from '../repository/analysis-input.ts';
import type { CallAnalyst } from './call-analyst.ts';
import { findCallByRoom } from '../repository/call-repository.ts';
import type { AnalyzeBody } from './types.ts';

/**
 * How long a report being made holds its call, s: past it (a process died mid-analysis) another request takes over.
 * Longer than an analysis can take (two model answers of up to 6,000 tokens).
 */
export const REPORT_CLAIM_SECONDS = 300;
/** Longest an analysis may run, ms, whether or not the client waits for it. */
const ANALYSIS_TIMEOUT_MS = 240_000;
/** What `model` says when the LLM workers' model is not named to the control plane. */
const DEFAULT_MODEL_NAME = 'default';

function report(row: ReportRow) {
  return {
    id: row.id,
    roomName: row.room_name,
    instructions: row.instructions,
    transcriptText: row.transcript_text,
    parsedAnalysis: row.parsed_analysis ?? {},
    tokenUsage: row.token_usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    model: row.model ?? DEFAULT_MODEL_NAME,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class AnalyticsService {
  readonly #sql: Sql;
  readonly #analyst: CallAnalyst;
  readonly #model: string;

  constructor(sql: Sql, analyst: CallAnalyst, model: string | undefined) {
    this.#sql = sql;
    this.#analyst = analyst;
    this.#model = model ?? DEFAULT_MODEL_NAME;
  }

  async analyze(principal: Principal, body: AnalyzeBody) {
    const call = await findCallByRoom(this.#sql, principal.organisationId, body.room_name);
    if (!call) throw notFound('Call');
    const instructions = body.instructions ?? (await this.#agentInstructions(call.agent_id));
    const claimed = await this.#claim(principal.organisationId, call.id, body, instructions);
    if (claimed.status === 'ready') return report(claimed);
    if (claimed.status === 'failed')
      throw new ApiError(
        'analysis_failed',
        `The analysis of this call failed and is final: ${claimed.error ?? 'no reason recorded'}`,
      );
    try {
      const done = await this.#analyst.report(
        { callId: call.id, durationMs: call.call_duration },
        body.transcriptText,
        instructions,
        AbortSignal.timeout(ANALYSIS_TIMEOUT_MS),
      );
      return report(await markReportReady(this.#sql, claimed.id, { ...done, model: this.#model }));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'unavailable') {
        // Nothing was analysed: not a failure of the analysis, so the call may be analysed once a model is there.
        await dropRunningReport(this.#sql, claimed.id);
        throw error;
      }
      const reason = error instanceof Error ? error.message : String(error);
      await markReportFailed(this.#sql, claimed.id, { reason, model: this.#model });
      throw new ApiError('analysis_failed', `The analysis of this call failed and is final: ${reason}`, {
        cause: error,
      });
    }
  }

  async analyzeOverview(principal: Principal, roomName: string) {
    const call = await findCallByRoom(this.#sql, principal.organisationId, roomName);
    if (!call) throw notFound('Call');
    const input = await loadAnalysisInput(this.#sql, call.id);
    if (!input || input.transcript.length === 0) throw new ApiError('not_found', 'The call has no transcript');
    const done = await this.#analyst.overview(input, { agentResult: false }, AbortSignal.timeout(ANALYSIS_TIMEOUT_MS));
    await saveOverview(this.#sql, call.id, done.overview);
    const { result } = done.overview;
    return {
      overview: done.overview,
      result: {
        code: result.code,
        quote: result.quote,
        quote_en: result.quote_en,
        callback_at: result.callback_at,
        callback_time: result.callback_time,
        evidence_status: result.evidence_status,
      },
      agentResult: input.agentResult,
      tokenUsage: done.tokenUsage,
    };
  }

  /**
   * The call's report row: a new one marked running (this request makes it), an existing ready or failed one, or a
   * running one whose claim lapsed (taken over). 409 while another request is making it.
   */
  async #claim(
    organisationId: string,
    callId: string,
    body: AnalyzeBody,
    instructions: string | null,
  ): Promise<ReportRow> {
    const report =
      (await createRunningReport(this.#sql, {
        organisationId,
        callId,
        roomName: body.room_name,
        instructions,
        transcriptText: body.transcriptText,
      })) ??
      (await takeLapsedReport(this.#sql, callId, {
        instructions,
        transcriptText: body.transcriptText,
        lapsedAfterSeconds: REPORT_CLAIM_SECONDS,
      }));
    if (report) return report;
    const existing = await findReport(this.#sql, callId);
    if (!existing || existing.status === 'running') {
      throw new ApiError(
        'analysis_in_progress',
        'This call is being analysed by another request; ask again in a minute',
      );
    }
    return existing;
  }

  async #agentInstructions(agentId: string): Promise<string | null> {
    const agent = await agentInstructions(this.#sql, agentId);
    const text = [agent?.identity, agent?.task].filter((part) => part && part.trim()).join('\n\n');
    return text || null;
  }
}
