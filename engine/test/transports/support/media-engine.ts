/**
 * The engine as a carrier meets it: `startEngineRole` with its media websocket server on a free port, workers on
 * the bus serving the providers a test chooses, and the call's events read off the bus as the control plane reads
 * them. Calls are dispatched over the bus; the dispatch reply's token and media URL make the stream URL a
 * simulated carrier opens.
 */
import { randomBytes } from 'node:crypto';
import type { Bus } from '../../../src/bus/index.ts';
import { callCodecs, subjects, type CallEvent, type CallSpec } from '../../../src/protocol/index.ts';
import type { LlmProvider } from '../../../src/providers/llm-provider.ts';
import type { SttProvider } from '../../../src/providers/stt-provider.ts';
import type { TtsProvider } from '../../../src/providers/tts-provider.ts';
import type { EngineRole } from '../../../src/roles/engine-role.ts';
import { startEngineRole } from '../../../src/roles/start-engine-role.ts';
import { mediaStreamUrl } from '../../../src/roles/media-endpoint.ts';
import type { MediaCarrier } from '../../../src/transports/carrier-ws/carrier-protocol.ts';
import { llmWorker } from '../../../src/workers/llm/llm-worker.ts';
import { sttWorker } from '../../../src/workers/stt/stt-worker.ts';
import { ttsWorker } from '../../../src/workers/tts/tts-worker.ts';
import { startWorker, type WorkerHandle } from '../../../src/workers/worker-host.ts';
import type { BusFabric } from '../../support/bus-fabric.ts';

export interface LogLine {
  event: string;
  detail: Record<string, unknown>;
}

export interface DispatchedCall {
  callId: string;
  streamToken: string;
  mediaUrl: string;
  /** The stream URL for `carrier`: what a carrier's answer XML would name. */
  streamUrl(carrier: MediaCarrier): string;
}

export interface MediaEngine {
  role: EngineRole;
  bus: Bus;
  /** Every call event published, in order. */
  events: (CallEvent & { callId: string })[];
  logs: LogLine[];
  dispatch(spec: CallSpec): Promise<DispatchedCall>;
  /** Resolves with the first event of `callId` matching `predicate`. */
  waitFor(callId: string, predicate: (event: CallEvent) => boolean, timeoutMs?: number): Promise<CallEvent>;
  eventsOf(callId: string): CallEvent[];
  /** Resolves with the first log line matching `predicate`. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  close(): Promise<void>;
}

export interface MediaEngineProviders {
  stt: SttProvider;
  tts: TtsProvider;
  llm: LlmProvider;
}

/**
 * @param options.mediaTimeoutMs how long a dispatched call waits for its stream (and its token lives)
 * @param options.tokenSecret the stream tokens' key, base64 (so a test can sign tokens of its own)
 */
export async function startMediaEngine(
  fabric: BusFabric,
  providers: MediaEngineProviders,
  options: { mediaTimeoutMs?: number; tokenSecret?: string } = {},
): Promise<MediaEngine> {
  const bus = await fabric.connect();
  const workers: WorkerHandle[] = [
    startWorker(await fabric.connect(), sttWorker([providers.stt])),
    startWorker(await fabric.connect(), ttsWorker([providers.tts])),
    startWorker(await fabric.connect(), llmWorker([providers.llm])),
  ];
  const logs: LogLine[] = [];
  const role = await startEngineRole(
    {
      sttProvider: providers.stt.name,
      ttsProvider: providers.tts.name,
      // The role only checks that a model is configured; the LLM worker serves the test's provider.
      llm: { baseUrl: 'http://llm.invalid', model: 'test' },
      vad: 'energy',
      media: { port: 0, host: '127.0.0.1', tokenSecret: options.tokenSecret },
    },
    bus,
    (event, detail) => logs.push({ event, detail: (detail ?? {}) as Record<string, unknown> }),
    { mediaTimeoutMs: options.mediaTimeoutMs },
  );
  const events: (CallEvent & { callId: string })[] = [];
  const listeners = new Set<() => void>();
  const subscription = bus.subscribe(subjects.allCallEvents());
  void (async () => {
    for await (const message of subscription) {
      const callId = message.subject.split('.')[2] ?? '';
      events.push({ ...callCodecs.event.decode(message.data), callId });
      for (const listener of [...listeners]) listener();
    }
  })();
  const eventsOf = (callId: string) => events.filter((e) => e.callId === callId);

  return {
    role,
    bus,
    events,
    logs,
    eventsOf,
    async dispatch(spec) {
      const reply = callCodecs.dispatchReply.decode(
        (await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: 10_000 })).data,
      );
      if (!reply.ok) throw new Error(`dispatch refused: ${reply.code}: ${reply.message}`);
      if (!reply.mediaUrl) throw new Error('the dispatch reply names no media URL');
      const { streamToken, mediaUrl } = reply;
      return {
        callId: spec.callId,
        streamToken,
        mediaUrl,
        streamUrl: (carrier) => mediaStreamUrl(mediaUrl, carrier, streamToken),
      };
    },
    waitFor(callId, predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = eventsOf(callId).find(predicate);
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `no matching event of call ${callId} within ${timeoutMs} ms; saw ${eventsOf(callId)
                .map((e) => (e.type === 'state' ? e.state : e.type))
                .join(', ')}`,
            ),
          );
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async waitForLog(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logs.find(predicate);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no matching log line within ${timeoutMs} ms; saw ${logs.map((l) => l.event).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await role.close();
      for (const worker of workers) await worker.stop();
      subscription.unsubscribe();
    },
  };
}

/** A call spec for carrier tests: an outbound PROMPT agent, no greeting unless asked, limits no test reaches. */
export function carrierCallSpec(agent: Partial<CallSpec['agent']> = {}): CallSpec {
  return {
    callId: `call${randomBytes(10).toString('hex')}`,
    organisationId: 'org',
    direction: 'OUTBOUND',
    participant: { name: 'Ravi', phoneNumber: '+15550100' },
    variables: {},
    limits: { maxDurationMs: 120_000, inactivityMs: 60_000 },
    agent: {
      id: 'agent',
      name: 'Maya',
      agentType: 'VOICE',
      builderMode: 'PROMPT',
      agentIdentity: 'You are Maya.',
      agentTask: 'Book appointments.',
      greetingMessage: null,
      language: 'en-US',
      customVariables: {},
      functionTools: [],
      ...agent,
    },
  };
}
