/**
 * What every worker kind shares: it joins its kind's queue group on `v1.<kind>.open`, opens a stream per request,
 * routes `v1.<kind>.<streamId>.in` messages to it, publishes heartbeats, and frees streams whose session went
 * quiet. The kind-specific part (what a stream does) is a StreamHandler.
 */
import { randomBytes } from 'node:crypto';
import type { Bus, BusMessage, Subscription } from '../bus/index.ts';
import { countLocalWorker } from '../metrics/worker-metrics.ts';
import { isErrorCode } from '../protocol/error-codes.ts';
import {
  codecs,
  queues,
  subjects,
  STREAM_IDLE_TIMEOUT_MS,
  WORKER_HEARTBEAT_INTERVAL_MS,
  type OpenRequest,
  type WorkerKind,
} from '../protocol/index.ts';

/** One open stream on this worker. */
export interface StreamHandler {
  /** A message from the session on the stream's `.in` subject (binary audio or JSON control). */
  receive(payload: Uint8Array): void;
  /** Frees everything the stream holds; called once, on `end`, idle timeout or worker stop. */
  close(): void;
}

export interface StreamContext {
  streamId: string;
  callId: string;
  /** Publishes on the stream's `.out` subject. */
  send(payload: Uint8Array | string): void;
  /** Ends the stream from the worker's side (after sending `ended`). */
  finish(): void;
  signal: AbortSignal;
}

export interface WorkerKindHandler {
  readonly kind: WorkerKind;
  /** Provider names this worker serves, for heartbeats and error messages. */
  readonly providers: readonly string[];
  /** The language models it runs (llm workers), announced in its heartbeats so engines need no model settings. */
  readonly models?: readonly string[];
  /** Opens a stream, or throws an error with `code` (e.g. 'unknown_provider') to refuse the open request. */
  open(request: OpenRequest, context: StreamContext): StreamHandler;
}

export interface WorkerHandle {
  readonly workerId: string;
  readonly kind: WorkerKind;
  /** Open streams right now. */
  readonly streamCount: number;
  /**
   * Stops taking streams, hands the open ones back (its heartbeat says it is draining: each session moves its stream
   * to another worker) for up to HANDBACK_TIMEOUT_MS, closes those left, stops heartbeats.
   * @param options.handBack false: stop at once without a word, as a worker that dies does (tests of failover)
   */
  stop(options?: { handBack?: boolean }): Promise<void>;
}

/** How often idle streams are looked for, in ms: a fraction of the idle timeout keeps the sweep cheap. */
const IDLE_SWEEP_INTERVAL_MS = 2_000;
/**
 * How long a stopping worker waits for its sessions to move their streams elsewhere, ms: a session reopens within
 * one open request (OPEN_TIMEOUT_MS, 2 s) when another worker is up; past this the streams left are closed.
 */
export const HANDBACK_TIMEOUT_MS = 5_000;
/** How often a stopping worker looks whether its streams are gone, ms. */
const HANDBACK_POLL_MS = 50;

interface OpenStream {
  handler: StreamHandler;
  /** The worker's log, every line naming this stream and its call (docs/architecture.md §19). */
  log: WorkerLog;
  subscription: Subscription;
  abort: AbortController;
  lastHeardAt: number;
}

type WorkerLog = (event: string, detail?: object, level?: 'info' | 'warn' | 'error') => void;

export function startWorker(bus: Bus, kindHandler: WorkerKindHandler, log: WorkerLog = () => {}): WorkerHandle {
  const workerId = `${kindHandler.kind}-${randomBytes(6).toString('hex')}`;
  const streams = new Map<string, OpenStream>();
  let draining = false;
  const opens = bus.subscribe(subjects.workerOpen(kindHandler.kind), { queue: queues[kindHandler.kind] });

  const closeStream = (streamId: string) => {
    const stream = streams.get(streamId);
    if (!stream) return;
    streams.delete(streamId);
    stream.abort.abort();
    stream.subscription.unsubscribe();
    try {
      stream.handler.close();
    } catch (error) {
      stream.log('stream close failed', { error: String(error) }, 'error');
    }
  };

  const open = (message: BusMessage) => {
    let request: OpenRequest;
    try {
      request = codecs.openRequest.decode(message.data);
    } catch (error) {
      message.respond(
        codecs.openReply.encode({
          ok: false,
          code: 'bad_message',
          message: (error as Error).message,
          retryable: false,
        }),
      );
      return;
    }
    const streamId = randomBytes(8).toString('hex');
    const abort = new AbortController();
    const outSubject = kindSubjects(kindHandler.kind, streamId).out;
    const context: StreamContext = {
      streamId,
      callId: request.callId,
      send: (payload) => bus.publish(outSubject, payload),
      finish: () => closeStream(streamId),
      signal: abort.signal,
    };
    let handler: StreamHandler;
    try {
      handler = kindHandler.open(request, context);
    } catch (error) {
      const raw = (error as { code?: unknown }).code;
      const code = typeof raw === 'string' && isErrorCode(raw) ? raw : 'open_failed';
      message.respond(
        codecs.openReply.encode({ ok: false, code, message: (error as Error).message, retryable: false }),
      );
      return;
    }
    const subscription = bus.subscribe(kindSubjects(kindHandler.kind, streamId).in);
    const streamLog: WorkerLog = (event, detail, level) =>
      log(event, { callId: request.callId, streamId, ...detail }, level);
    const stream: OpenStream = { handler, log: streamLog, subscription, abort, lastHeardAt: Date.now() };
    streams.set(streamId, stream);
    void (async () => {
      for await (const input of subscription) {
        stream.lastHeardAt = Date.now();
        try {
          handler.receive(input.data);
        } catch (error) {
          streamLog('stream input refused', { error: String(error) }, 'warn');
        }
      }
    })();
    message.respond(codecs.openReply.encode({ ok: true, streamId, workerId }));
    streamLog('stream opened');
  };

  void (async () => {
    for await (const message of opens) open(message);
  })();

  const beat = () =>
    bus.publish(
      subjects.workerHeartbeat(kindHandler.kind, workerId),
      codecs.heartbeat.encode({
        workerId,
        kind: kindHandler.kind,
        streams: streams.size,
        providers: [...kindHandler.providers],
        ...(kindHandler.models && { models: [...kindHandler.models] }),
        ...(draining && { draining }),
      }),
    );
  beat();
  const heartbeat = setInterval(beat, WORKER_HEARTBEAT_INTERVAL_MS);
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [streamId, stream] of streams) {
      if (now - stream.lastHeardAt > STREAM_IDLE_TIMEOUT_MS) {
        stream.log('stream idle, closing', {}, 'warn');
        closeStream(streamId);
      }
    }
  }, IDLE_SWEEP_INTERVAL_MS);
  heartbeat.unref();
  sweep.unref();

  const handle: WorkerHandle = {
    workerId,
    kind: kindHandler.kind,
    get streamCount() {
      return streams.size;
    },
    async stop({ handBack = true } = {}) {
      uncount();
      clearInterval(sweep);
      if (!handBack) clearInterval(heartbeat);
      draining = true;
      if (handBack) beat();
      await opens.drain().catch(() => opens.unsubscribe());
      const deadline = handBack ? Date.now() + HANDBACK_TIMEOUT_MS : 0;
      while (streams.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, HANDBACK_POLL_MS));
      }
      if (streams.size > 0) log('streams not handed back in time, closing', { streams: streams.size }, 'warn');
      clearInterval(heartbeat);
      for (const streamId of [...streams.keys()]) closeStream(streamId);
    },
  };
  const uncount = countLocalWorker(handle);
  return handle;
}

/** The `.in` / `.out` subjects of a stream of `kind`. */
export function kindSubjects(kind: WorkerKind, streamId: string): { in: string; out: string } {
  switch (kind) {
    case 'stt':
      return { in: subjects.sttIn(streamId), out: subjects.sttOut(streamId) };
    case 'llm':
      return { in: subjects.llmIn(streamId), out: subjects.llmOut(streamId) };
    case 'tts':
      return { in: subjects.ttsIn(streamId), out: subjects.ttsOut(streamId) };
  }
}
