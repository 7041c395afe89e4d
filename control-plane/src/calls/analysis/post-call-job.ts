/**
 * Post-call analysis (docs/architecture.md §3 step 6; spec: "Overviews are produced automatically a few minutes after a call
 * ends"): for each ended call, its overview and, for a PROMPT agent that tracks results, its agent result. FLOW
 * agents' results are the flow's own `result` event, written by the event persister; this job never replaces one.
 *
 * Work is leased from call_analysis_jobs (one row per call) the way the e-mail outbox leases mail: a claim, under
 * FOR UPDATE SKIP LOCKED, pushes next_attempt_at forward by the claim time, counts the attempt and stamps a lease
 * token; the result is written only with that token, in the transaction that marks the job done. So two runners
 * never analyse one call at once, a runner whose claim lapsed cannot overwrite a newer result, and a crash mid-way
 * leaves the claim to lapse and the job to be taken again.
 *
 * A failed attempt (no LLM worker, a model error, an answer that does not fit after its retry) is tried again after
 * RETRY_BASE_SECONDS, doubled each time, and after MAX_ATTEMPTS recorded as failed on the call
 * (analysisStatus, analysisError). With no language model configured a job is recorded as skipped at once.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { PollLoop } from '../../background/poll-loop.ts';
import type { Sql } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import type { CallAnalyst, OverviewAnalysis } from './call-analyst.ts';
import { loadAnalysisInput } from '../repository/analysis-input.ts';
import { extractionFieldsOfCall, saveExtraction } from '../../campaigns/extraction-repository.ts';
import {
  claimDueJobs,
  closeJob,
  failAttempt,
  saveAnalysis,
  type ClaimedJob,
} from '../repository/analysis-job-repository.ts';

/** How often due jobs are looked for when nothing wakes the job, ms. */
export const ANALYSIS_POLL_INTERVAL_MS = 5_000;
/** Jobs claimed per pass, analysed side by side: enough to keep up with a busy hour without crowding the LLM workers. */
const ANALYSIS_BATCH_SIZE = 4;
/** A claim lasts this long, s: longer than an analysis takes (two model answers of ~2,000 tokens each). */
export const ANALYSIS_CLAIM_SECONDS = 300;
/** Attempts before a call's analysis is recorded as failed. */
export const ANALYSIS_MAX_ATTEMPTS = 4;
/** Delay before the second attempt, s; doubled for each later one (30 s, 1 min, 2 min). */
export const ANALYSIS_RETRY_BASE_SECONDS = 30;
/** What a call's analysis says when no language model is configured (docs/architecture.md §2). */
export const NO_LANGUAGE_MODEL_SKIP =
  'Not analysed: no language model is configured (PARLEY_LLM_BASE_URL, PARLEY_LLM_MODEL).';

export interface PostCallAnalysisOptions {
  /**
   * Whether a language model is there, asked per job (server.ts: configured here, or an llm worker alive on the bus);
   * false records the job, when it needs one, as skipped.
   */
  languageModel: boolean | (() => Promise<boolean>);
  pollIntervalMs?: number;
  claimSeconds?: number;
  maxAttempts?: number;
  retryBaseSeconds?: number;
}

export type AnalysisJobOutcome = 'done' | 'skipped' | 'retry' | 'failed' | 'lease_lost';

export class PostCallAnalysisJob {
  readonly #sql: Sql;
  readonly #analyst: CallAnalyst;
  readonly #log: Logger;
  readonly #options: Required<PostCallAnalysisOptions>;
  readonly #abort = new AbortController();
  readonly #loop: PollLoop;

  constructor(sql: Sql, analyst: CallAnalyst, log: Logger, options: PostCallAnalysisOptions) {
    this.#sql = sql;
    this.#analyst = analyst;
    this.#log = log;
    this.#options = {
      pollIntervalMs: ANALYSIS_POLL_INTERVAL_MS,
      claimSeconds: ANALYSIS_CLAIM_SECONDS,
      maxAttempts: ANALYSIS_MAX_ATTEMPTS,
      retryBaseSeconds: ANALYSIS_RETRY_BASE_SECONDS,
      ...options,
    };
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs: this.#options.pollIntervalMs,
      onError: (error) => this.#log.error({ err: error }, 'post-call analysis pass failed'),
    });
  }

  start(): this {
    this.#loop.start();
    return this;
  }

  /** Looks for due work now instead of at the next poll. */
  wake(): void {
    this.#loop.nudge();
  }

  async stop(): Promise<void> {
    // The analyses in flight are cancelled first, so the pass ends soon instead of waiting for the model.
    this.#abort.abort();
    await this.#loop.stop();
  }

  /** One pass: claims due jobs and runs them; resolves with each job's outcome by call id. */
  async runOnce(): Promise<Map<string, AnalysisJobOutcome>> {
    const token = randomBytes(12).toString('hex');
    const claimed = await claimDueJobs(this.#sql, {
      token,
      leaseSeconds: this.#options.claimSeconds,
      limit: ANALYSIS_BATCH_SIZE,
    });
    const outcomes = await Promise.all(claimed.map(async (job) => [job.call_id, await this.#run(job)] as const));
    return new Map(outcomes);
  }

  async #run(job: ClaimedJob): Promise<AnalysisJobOutcome> {
    try {
      const input = await loadAnalysisInput(this.#sql, job.call_id);
      if (!input) return await this.#finish(job, 'done', null);
      const needsModel = input.transcript.some((l) => l.speaker === 'user' && l.text.trim());
      if (needsModel && !(await this.#languageModel()))
        return await this.#finish(job, 'skipped', NO_LANGUAGE_MODEL_SKIP);
      const analysis = await this.#analyst.overview(input, { agentResult: true }, this.#abort.signal);
      // A campaign call whose campaign extracts data: its fields too, before anything is saved (a failure retries both).
      const fields = needsModel ? await extractionFieldsOfCall(this.#sql, job.call_id) : null;
      const extracted = fields ? await this.#analyst.extract(input, fields, this.#abort.signal) : null;
      const outcome = await this.#save(job, analysis);
      if (outcome === 'done' && extracted) await saveExtraction(this.#sql, job.call_id, extracted.captured);
      return outcome;
    } catch (error) {
      if (this.#abort.signal.aborted) return 'retry';
      return this.#failed(job, error);
    }
  }

  async #languageModel(): Promise<boolean> {
    const check = this.#options.languageModel;
    return typeof check === 'function' ? await check() : check;
  }

  /** Writes the analysis and marks the job done, both only while the lease is ours. */
  async #save(job: ClaimedJob, analysis: OverviewAnalysis): Promise<AnalysisJobOutcome> {
    if (!(await saveAnalysis(this.#sql, job, analysis))) return 'lease_lost';
    this.#log.info(
      { callId: job.call_id, attempts: job.attempts, tokens: analysis.tokenUsage.total_tokens },
      'call analysed',
    );
    return 'done';
  }

  async #finish(job: ClaimedJob, status: 'done' | 'skipped', reason: string | null): Promise<AnalysisJobOutcome> {
    return (await closeJob(this.#sql, job, status, reason)) ? status : 'lease_lost';
  }

  async #failed(job: ClaimedJob, error: unknown): Promise<AnalysisJobOutcome> {
    const message =
      error instanceof ApiError
        ? error.message
        : `Analysis failed: ${error instanceof Error ? error.message : String(error)}`;
    const final = job.attempts >= this.#options.maxAttempts;
    const retryInSeconds = this.#options.retryBaseSeconds * 2 ** (job.attempts - 1);
    this.#log.warn(
      { err: error, callId: job.call_id, attempts: job.attempts },
      final ? 'call analysis failed for good' : 'call analysis failed, will retry',
    );
    if (!(await failAttempt(this.#sql, job, { message, final, retryInSeconds }))) return 'lease_lost';
    return final ? 'failed' : 'retry';
  }
}
