/**
 * Processing of knowledge documents (docs/architecture.md §14): text is extracted from each stored source, split
 * into chunks (chunker.ts), embedded when an embeddings endpoint and a vector column are both there, and indexed;
 * the document becomes ready. Work is leased from knowledge_jobs (FOR UPDATE SKIP LOCKED), so several control planes
 * share it and a crash mid-way leaves the lease to lapse and the job to be taken again.
 *
 * A file that cannot be read (a broken PDF, invalid JSON) fails at once: the status becomes error with a message
 * naming the file. Anything else (the database, the embeddings endpoint) is retried after KNOWLEDGE_RETRY_BASE_SECONDS,
 * doubled each time, and after KNOWLEDGE_MAX_ATTEMPTS ends in error too.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { PollLoop } from '../background/poll-loop.ts';
import type { Sql } from '../db/database.ts';
import { chunkText, type Chunk } from './chunker.ts';
import type { Embedder } from './embeddings/embedder.ts';
import { extractKnowledgeText, KnowledgeFileError } from './extract-text.ts';
import type { KnowledgeFileKind } from './limits.ts';
import { MAX_EXTRACTED_CHARS } from './limits.ts';
import {
  claimDueKnowledgeJobs,
  failKnowledgeJob,
  loadSources,
  saveChunks,
  type ClaimedKnowledgeJob,
} from './knowledge-repository.ts';

/** How often due jobs are looked for when no upload wakes the job, ms. */
export const KNOWLEDGE_POLL_INTERVAL_MS = 2_000;
/** Documents processed side by side per pass: extraction is CPU work on the control plane's own thread. */
const KNOWLEDGE_BATCH_SIZE = 2;
/** A claim lasts this long, s: longer than five 4 MB PDFs take to extract and embed. */
export const KNOWLEDGE_CLAIM_SECONDS = 300;
export const KNOWLEDGE_MAX_ATTEMPTS = 4;
/** Delay before the second attempt, s; doubled for each later one. */
export const KNOWLEDGE_RETRY_BASE_SECONDS = 15;

/** What the job logs through: a pino logger, or anything with its three levels. */
export type KnowledgeJobLog = Pick<Logger, 'info' | 'warn' | 'error'>;

export type KnowledgeJobOutcome = 'ready' | 'error' | 'retry' | 'lease_lost';

export interface KnowledgeJobOptions {
  /** Embeds chunks for hybrid search; undefined indexes full text only. */
  embedder?: Embedder;
  pollIntervalMs?: number;
  retryBaseSeconds?: number;
}

export class KnowledgeJob {
  readonly #sql: Sql;
  readonly #log: KnowledgeJobLog;
  readonly #options: KnowledgeJobOptions;
  readonly #abort = new AbortController();
  readonly #loop: PollLoop;

  constructor(sql: Sql, log: KnowledgeJobLog, options: KnowledgeJobOptions = {}) {
    this.#sql = sql;
    this.#log = log;
    this.#options = options;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs: options.pollIntervalMs ?? KNOWLEDGE_POLL_INTERVAL_MS,
      onError: (error) => this.#log.error({ err: error }, 'knowledge processing pass failed'),
    });
  }

  start(): this {
    this.#loop.start();
    return this;
  }

  /** A document was stored: look now rather than at the next poll. */
  wake(): void {
    this.#loop.nudge();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop.stop();
  }

  /** One pass: claims due documents and processes them; resolves with each one's outcome by document id. */
  async runOnce(): Promise<Map<string, KnowledgeJobOutcome>> {
    const token = randomBytes(12).toString('hex');
    const claimed = await claimDueKnowledgeJobs(this.#sql, {
      token,
      leaseSeconds: KNOWLEDGE_CLAIM_SECONDS,
      limit: KNOWLEDGE_BATCH_SIZE,
    });
    const outcomes: [string, KnowledgeJobOutcome][] = [];
    for (const job of claimed) outcomes.push([job.document_id, await this.#run(job)]);
    return new Map(outcomes);
  }

  async #run(job: ClaimedKnowledgeJob): Promise<KnowledgeJobOutcome> {
    try {
      const chunks = await this.#chunks(job.document_id);
      const embeddings = this.#options.embedder
        ? await this.#options.embedder.embed(
            chunks.map((c) => (c.heading ? `${c.heading}\n${c.content}` : c.content)),
            this.#abort.signal,
          )
        : undefined;
      if (!(await saveChunks(this.#sql, job, chunks, embeddings))) return 'lease_lost';
      this.#log.info({ documentId: job.document_id, chunks: chunks.length }, 'knowledge document ready');
      return 'ready';
    } catch (error) {
      if (this.#abort.signal.aborted) return 'retry';
      return this.#failed(job, error);
    }
  }

  async #chunks(documentId: string): Promise<Chunk[]> {
    const chunks: Chunk[] = [];
    let extracted = 0;
    for (const source of await loadSources(this.#sql, documentId)) {
      const kind = source.kind as KnowledgeFileKind | 'text';
      const text = await extractKnowledgeText(kind, source.content, source.file_name);
      extracted += text.length;
      if (extracted > MAX_EXTRACTED_CHARS) {
        throw new KnowledgeFileError(
          `${source.file_name}: the document holds more than ${MAX_EXTRACTED_CHARS} characters of text`,
        );
      }
      chunks.push(
        ...chunkText(text, {
          guessHeadings: kind === 'pdf' || kind === 'txt' || kind === 'text',
          recordPerChunk: kind === 'csv' || kind === 'json',
        }),
      );
    }
    if (chunks.length === 0) throw new KnowledgeFileError('No text was found in the uploaded content');
    return chunks;
  }

  async #failed(job: ClaimedKnowledgeJob, error: unknown): Promise<KnowledgeJobOutcome> {
    const final = error instanceof KnowledgeFileError || job.attempts >= KNOWLEDGE_MAX_ATTEMPTS;
    const message =
      error instanceof KnowledgeFileError
        ? error.message
        : `Processing failed: ${error instanceof Error ? error.message : String(error)}`;
    const retryInSeconds = (this.#options.retryBaseSeconds ?? KNOWLEDGE_RETRY_BASE_SECONDS) * 2 ** (job.attempts - 1);
    this.#log.warn(
      { err: error, documentId: job.document_id, attempts: job.attempts },
      final ? 'knowledge document failed' : 'knowledge document failed, will retry',
    );
    if (!(await failKnowledgeJob(this.#sql, job, { message, final, retryInSeconds }))) return 'lease_lost';
    return final ? 'error' : 'retry';
  }
}
