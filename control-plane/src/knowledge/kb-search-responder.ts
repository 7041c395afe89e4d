/**
 * The control plane's side of `v1.kb.search` (queue group `control-plane`: one instance answers each; the wire
 * contract is engine/src/protocol/knowledge-search.ts). An engine asks when an agent's knowledge_search or
 * product_search runs; the answer comes within KB_SEARCH_ANSWER_MS — a search still running then is answered
 * "timeout", so the engine (which waits a little longer) can tell the model why rather than hear nothing.
 * Only the call's organisation's ids are searched; an id of another organisation simply finds nothing.
 */
import type { Bus, BusMessage, Subscription } from '@parley/engine/bus';
import {
  KB_SEARCH_ANSWER_MS,
  kbSearchCodecs,
  ProtocolError,
  queues,
  subjects,
  type KbSearchReply,
  type KbSearchRequest,
} from '@parley/engine/protocol';
import type { Sql } from '../db/database.ts';
import { isId } from '../db/ids.ts';
import { ApiError } from '../errors.ts';
import { searchCatalogueProducts } from './catalogue-service.ts';
import type { Embedder } from './embeddings/embedder.ts';
import { searchKnowledge } from './knowledge-search.ts';

export type ResponderLog = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

export class KbSearchResponder {
  readonly #sql: Sql;
  readonly #bus: Bus;
  readonly #log: ResponderLog;
  readonly #answerMs: number;
  readonly #embedder: Embedder | undefined;
  #subscription: Subscription | undefined;

  /** @param options.embedder set when search is hybrid (search-mode.ts) */
  constructor(sql: Sql, bus: Bus, log: ResponderLog, options: { answerMs?: number; embedder?: Embedder } = {}) {
    this.#sql = sql;
    this.#bus = bus;
    this.#log = log;
    this.#answerMs = options.answerMs ?? KB_SEARCH_ANSWER_MS;
    this.#embedder = options.embedder;
  }

  listen(): this {
    const subscription = this.#bus.subscribe(subjects.kbSearch(), { queue: queues.controlPlane });
    this.#subscription = subscription;
    void (async () => {
      for await (const message of subscription) void this.#reply(message);
    })();
    return this;
  }

  close(): void {
    this.#subscription?.unsubscribe();
  }

  async #reply(message: BusMessage): Promise<void> {
    const reply = await this.answer(message.data);
    message.respond(kbSearchCodecs.reply.encode(reply));
  }

  /** The answer to one request (encoded or not), within the answer budget. */
  async answer(data: Uint8Array | string): Promise<KbSearchReply> {
    let request: KbSearchRequest;
    try {
      request = kbSearchCodecs.request.decode(data);
    } catch (error) {
      const message = error instanceof ProtocolError ? error.message : 'unreadable request';
      return { ok: false, code: 'bad_message', message, retryable: false };
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<KbSearchReply>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, code: 'timeout', message: 'The search took too long.', retryable: true }),
        this.#answerMs,
      );
    });
    try {
      return await Promise.race([this.#search(request), late]);
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) {
        return { ok: false, code: 'invalid_request', message: error.message, retryable: false };
      }
      this.#log('error', 'knowledge search failed', { error: String(error), callId: request.callId });
      return { ok: false, code: 'internal', message: 'The search failed.', retryable: true };
    } finally {
      clearTimeout(timer);
    }
  }

  async #search(request: KbSearchRequest): Promise<KbSearchReply> {
    const ids = request.ids.filter(isId);
    const scope = { organisationId: request.organisationId, query: request.query, limit: request.limit };
    if (!isId(request.organisationId)) return { ok: true, passages: [], products: [] };
    if (request.kind === 'knowledge') {
      const passages = await searchKnowledge(this.#sql, { ...scope, documentIds: ids }, this.#embedder);
      return { ok: true, passages, products: [] };
    }
    const products = await searchCatalogueProducts(this.#sql, { ...scope, catalogueIds: ids });
    return { ok: true, passages: [], products };
  }
}
