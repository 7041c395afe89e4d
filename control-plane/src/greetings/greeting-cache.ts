/**
 * The greeting cache (engine/src/protocol/greeting-audio.ts; spec document 2: "creating an agent starts generating
 * its cached greeting audio in the background", "every update regenerates" it). On every save of a voice agent the
 * greeting is filled from the agent's default customVariables and synthesised through the TTS workers, with the
 * agent's voice, speed and language; engines ask for it over the bus while a call rings and play it at once.
 *
 * A greeting with a placeholder that has no default is different on every call: it is marked per_call and each
 * call synthesises its own. An edit that leaves the greeting sounding the same carries the audio over to the new
 * version. A synthesis that a restart cut short is redone by `resume()` when the control plane starts.
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import { TtsClient } from '@parley/engine/clients';
import { ENGINE_SAMPLE_RATE, pcm16ToBytesLE, pcm16FromBytesLE } from '@parley/engine/audio';
import {
  encodeAudioFrame,
  fillTemplate,
  greetingCodecs,
  GREETING_CACHE_MAX_MS,
  placeholders,
  queues,
  subjects,
} from '@parley/engine/protocol';
import type { Sql } from '../db/database.ts';
import {
  agentsWithStaleGreetings,
  carryGreetingOver,
  deleteGreeting,
  greetingCacheKey,
  readyGreeting,
  saveGreeting,
  type GreetingAgentRow,
  type GreetingStatus,
} from './greeting-repository.ts';

/** Longest a greeting's synthesis may take before it is marked failed, ms. */
const SYNTHESIS_TIMEOUT_MS = 60_000;
/** Syntheses `resume()` runs at once: a start after a crash should not flood the TTS workers. */
const RESUME_CONCURRENCY = 2;

/** What the cache needs of an agent (the agents routes' AgentRecord has all of it). */
export interface GreetingAgent {
  id: string;
  version: number;
  agentType: 'VOICE' | 'CHAT';
  greetingMessage: string | null;
  customVariables: Record<string, unknown>;
  language: string;
  voiceProvider: string | null;
  voiceId: string | null;
  voiceSpeed: number | null;
}

export type GreetingLog = (level: 'info' | 'warn', message: string, detail: object) => void;

export class GreetingCache {
  readonly #sql: Sql;
  readonly #bus: Bus;
  readonly #log: GreetingLog;
  readonly #abort = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  #responder: Subscription | undefined;

  constructor(sql: Sql, bus: Bus, log: GreetingLog = () => {}) {
    this.#sql = sql;
    this.#bus = bus;
    this.#log = log;
  }

  /** Brings the agent's cached greeting up to date with the agent as saved; resolves with the resulting status. */
  refresh(agent: GreetingAgent): Promise<GreetingStatus | 'none'> {
    return this.#track(this.#refresh(agent));
  }

  /** The agent was deleted: its audio goes (agents are deleted softly, so no cascade removes the row). */
  forget(agentId: string): Promise<void> {
    return this.#track(deleteGreeting(this.#sql, agentId));
  }

  /**
   * The hooks the agent routes call after each save and delete (AppDependencies.agentListeners), typed by what the
   * cache reads so this domain module does not reach up into the routes.
   */
  agentListeners(): {
    onAgentSaved(event: { agent: GreetingAgent }): Promise<void>;
    onAgentDeleted(event: { agentId: string }): Promise<void>;
  } {
    return {
      onAgentSaved: async ({ agent }) => {
        await this.refresh(agent);
      },
      onAgentDeleted: ({ agentId }) => this.forget(agentId),
    };
  }

  /** Answers engines' lookups (queue group `control-plane`: one instance answers each). */
  listen(): this {
    const responder = this.#bus.subscribe(subjects.greetingAudio(), { queue: queues.controlPlane });
    this.#responder = responder;
    void (async () => {
      for await (const message of responder) {
        void this.#answer(message.data).then(
          (reply) => message.respond(reply),
          (error: unknown) => {
            this.#log('warn', 'greeting lookup failed', { error: String(error) });
            message.respond(greetingCodecs.miss.encode({ found: false }));
          },
        );
      }
    })();
    return this;
  }

  /**
   * Redoes what a stopped control plane left undone: voice agents with a greeting whose cached row is missing, of an
   * older version, or still pending.
   */
  async resume(): Promise<number> {
    const stale = (await agentsWithStaleGreetings(this.#sql)).map(agentFromRow);
    const queue = [...stale];
    const workers = Array.from({ length: RESUME_CONCURRENCY }, async () => {
      for (let agent = queue.shift(); agent && !this.#abort.signal.aborted; agent = queue.shift())
        await this.refresh(agent);
    });
    await Promise.all(workers);
    return stale.length;
  }

  /** Waits for the syntheses in flight (tests, and a graceful stop). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  async close(): Promise<void> {
    this.#responder?.unsubscribe();
    this.#abort.abort();
    await this.settled();
  }

  /** Counts `work` as in flight until it settles (settled() and close() wait for it). */
  #track<T>(work: Promise<T>): Promise<T> {
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work)).catch(() => {});
    return work;
  }

  async #refresh(agent: GreetingAgent): Promise<GreetingStatus | 'none'> {
    const greeting = agent.greetingMessage?.trim() ?? '';
    if (agent.agentType !== 'VOICE' || !greeting) {
      await deleteGreeting(this.#sql, agent.id);
      return 'none';
    }
    const voice = { voiceProvider: agent.voiceProvider, voiceId: agent.voiceId, voiceSpeed: agent.voiceSpeed };
    const base = { agentId: agent.id, agentVersion: agent.version, ...voice };
    if (
      placeholders(greeting).some(
        (name) => agent.customVariables[name] === undefined || agent.customVariables[name] === null,
      )
    ) {
      await saveGreeting(this.#sql, { ...base, text: greeting, status: 'per_call' });
      return 'per_call';
    }
    const text = fillTemplate(greeting, agent.customVariables);
    if (await carryGreetingOver(this.#sql, agent.id, agent.version, greetingCacheKey(text, voice))) return 'ready';
    if (!(await saveGreeting(this.#sql, { ...base, text, status: 'pending' }))) return 'none'; // a newer version is in
    try {
      const samples = await this.#synthesise(agent, text);
      if (samples.length > (GREETING_CACHE_MAX_MS / 1000) * ENGINE_SAMPLE_RATE) {
        await saveGreeting(this.#sql, { ...base, text, status: 'too_long' });
        return 'too_long';
      }
      await saveGreeting(this.#sql, {
        ...base,
        text,
        status: 'ready',
        sampleRate: ENGINE_SAMPLE_RATE,
        audio: pcm16ToBytesLE(samples),
      });
      this.#log('info', 'greeting cached', {
        agentId: agent.id,
        version: agent.version,
        ms: Math.round((samples.length / ENGINE_SAMPLE_RATE) * 1000),
      });
      return 'ready';
    } catch (error) {
      this.#log('warn', 'greeting synthesis failed', {
        agentId: agent.id,
        version: agent.version,
        error: String(error),
      });
      await saveGreeting(this.#sql, {
        ...base,
        text,
        status: 'failed',
        error: error instanceof Error ? error.message : String(error),
      });
      return 'failed';
    }
  }

  async #synthesise(agent: GreetingAgent, text: string): Promise<Int16Array> {
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(SYNTHESIS_TIMEOUT_MS)]);
    const tts = await TtsClient.open(this.#bus, `greeting-${agent.id}-${agent.version}`, {
      provider: agent.voiceProvider ?? undefined,
      voiceId: agent.voiceId ?? undefined,
      speed: agent.voiceSpeed ?? undefined,
      language: agent.language,
    });
    try {
      const pieces: Int16Array[] = [];
      let length = 0;
      for await (const piece of tts.say(text, {}, signal)) {
        pieces.push(piece);
        length += piece.length;
      }
      signal.throwIfAborted();
      const samples = new Int16Array(length);
      let offset = 0;
      for (const piece of pieces) {
        samples.set(piece, offset);
        offset += piece.length;
      }
      return samples;
    } finally {
      tts.close();
    }
  }

  async #answer(data: Uint8Array): Promise<Uint8Array | string> {
    let request;
    try {
      request = greetingCodecs.request.decode(data);
    } catch {
      return greetingCodecs.miss.encode({ found: false });
    }
    const key = greetingCacheKey(request.text, request);
    const row = await readyGreeting(this.#sql, request.agentId, request.agentVersion, key);
    if (!row?.audio || !row.sampleRate) return greetingCodecs.miss.encode({ found: false });
    return encodeAudioFrame({
      sampleRate: row.sampleRate,
      requestNumber: 0,
      sequence: 0,
      samples: pcm16FromBytesLE(row.audio),
    });
  }
}

function agentFromRow(row: GreetingAgentRow): GreetingAgent {
  return {
    id: row.id,
    version: row.version,
    agentType: row.agent_type,
    greetingMessage: row.greeting_message,
    customVariables: row.custom_variables,
    language: row.language,
    voiceProvider: row.voice_provider,
    voiceId: row.voice_id,
    voiceSpeed: row.voice_speed,
  };
}
