/**
 * One simulated phone call, the same way on every carrier: placed (or arriving), ringing, answered — the carrier
 * then reads its answer and opens the media stream — and over when either side hangs up, with the carrier's status
 * callbacks along the way. What differs between carriers (the answer request, how the answer reads, the callbacks'
 * shape and signature) is the carrier's CallDriver.
 */
import type { StreamInstruction } from './answer-xml.ts';
import type { SimCarrier, SimFormat } from './sim-format.ts';
import type { SimRequestRecord } from './sim-http.ts';
import { SimStream } from './sim-stream.ts';

/**
 * How a simulated callee answers: picks up, an answering machine picks up, is busy, lets it ring out, or the call
 * cannot be put through.
 */
export type SimOutcome = 'answer' | 'machine' | 'busy' | 'no-answer' | 'failed';

export type SimCallStatus =
  | 'queued'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'busy'
  | 'no-answer'
  | 'failed'
  | 'canceled';

/** Moments the carrier tells the application about. */
export type SimCallEvent = 'initiated' | 'ringing' | 'answered' | 'stream-started' | 'stream-stopped' | 'ended';

/** Who ended the call. */
export type SimHangupSource = 'callee' | 'application' | 'api' | 'carrier';

export interface SimCallEnd {
  status: SimCallStatus;
  /** Seconds from answer to end (0 when never answered). */
  durationSec: number;
  source: SimHangupSource;
}

/** What a carrier does differently. */
export interface CallDriver {
  /** Reads the call's answer as the carrier would (fetching it, signed): the stream to open and its format. */
  answer(call: SimCall): Promise<{ instruction: StreamInstruction; format: SimFormat }>;
  /** Tells the application about `event` (the carrier's status callbacks, signed), when it asked to hear it. */
  notify(call: SimCall, event: SimCallEvent): Promise<void>;
}

export interface SimCallInit {
  carrier: SimCarrier;
  /** The carrier's id of the call (carrier-b CallSid, carrier-a CallUUID, carrier-c Sid). */
  sid: string;
  direction: 'outbound' | 'inbound';
  /** The calling number. */
  from: string;
  /** The called number. */
  to: string;
  accountId: string;
  /** The API request that placed it (outbound), or the options it arrived with (inbound), as the carrier read them. */
  request: Record<string, string | string[]>;
  outcome: SimOutcome;
  ringMs: number;
}

export class SimCall {
  readonly carrier: SimCarrier;
  readonly sid: string;
  readonly direction: 'outbound' | 'inbound';
  readonly from: string;
  readonly to: string;
  readonly accountId: string;
  readonly request: Record<string, string | string[]>;
  readonly createdAt = new Date();
  answeredAt: Date | undefined;
  endedAt: Date | undefined;
  status: SimCallStatus = 'queued';
  /** The answer as the carrier fetched it (status and body), when it fetched one. */
  answerFetch: SimRequestRecord | undefined;
  /** The stream the answer asked for. */
  instruction: StreamInstruction | undefined;
  /** Every webhook the carrier called for this call (answer, status callbacks), in order. */
  readonly webhooks: SimRequestRecord[] = [];
  /** What went wrong on the carrier's side (an answer that failed or did not read). */
  readonly errors: string[] = [];
  /** A machine answered (the `machine` outcome): what answering-machine detection reports, when asked for. */
  get answeredByMachine(): boolean {
    return this.#init.outcome === 'machine';
  }

  /** The number the application moved the caller to (the carrier's transfer API), when it did. */
  transferredTo: string | undefined;
  /** Requests the application made about this call to the carrier's API (hang-ups, transfers), in order. */
  readonly apiRequests: { method: string; path: string; params: Record<string, string | string[]> }[] = [];
  /** Resolves with the media stream once the carrier opened it; rejects when the call ends without one. */
  readonly stream: Promise<SimStream>;
  /** Resolves when the call is over. */
  readonly ended: Promise<SimCallEnd>;
  readonly #init: SimCallInit;
  #driver: CallDriver | undefined;
  #stream: SimStream | undefined;
  #hangupSource: SimHangupSource | undefined;
  #resolveStream!: (stream: SimStream) => void;
  #rejectStream!: (error: Error) => void;
  #resolveEnded!: (end: SimCallEnd) => void;
  #wakeRinging: (() => void) | undefined;
  /** Wakes a call kept alive after its stream closed (carrier-a's keepCallAlive) when someone hangs up. */
  #wakeKeptAlive: (() => void) | undefined;

  constructor(init: SimCallInit) {
    this.#init = init;
    this.carrier = init.carrier;
    this.sid = init.sid;
    this.direction = init.direction;
    this.from = init.from;
    this.to = init.to;
    this.accountId = init.accountId;
    this.request = init.request;
    this.stream = new Promise((resolve, reject) => {
      this.#resolveStream = resolve;
      this.#rejectStream = reject;
    });
    this.stream.catch(() => {});
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  /** Webhooks of one kind: `answer`, or a callback URL's requests. */
  requestsTo(url: string): SimRequestRecord[] {
    return this.webhooks.filter((w) => w.url.split('?')[0] === url.split('?')[0]);
  }

  /** The called party hangs up. */
  async hangup(): Promise<void> {
    await this.#end('callee');
  }

  /** The application ends the call through the carrier's API (carrier-b Status=completed, carrier-a DELETE). */
  async hangupByApi(): Promise<void> {
    await this.#end('api');
  }

  /**
   * The application moves the caller to `number` through the carrier's API: the carrier leaves the media stream and
   * dials; for the application the call is over (the simulator does not play the new leg).
   */
  async transferTo(number: string): Promise<void> {
    this.transferredTo = number;
    await this.#end('api');
  }

  /** Runs the call to its end. Started by the simulator once the carrier has answered the API request. */
  async run(driver: CallDriver): Promise<void> {
    this.#driver = driver;
    try {
      await driver.notify(this, 'initiated');
      this.status = 'ringing';
      await driver.notify(this, 'ringing');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#init.ringMs);
        this.#wakeRinging = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (this.#hangupSource) return await this.#finish('canceled');
      if (this.#init.outcome !== 'answer' && this.#init.outcome !== 'machine')
        return await this.#finish(this.#init.outcome);
      this.status = 'in-progress';
      this.answeredAt = new Date();
      await driver.notify(this, 'answered');
      const { instruction, format } = await driver.answer(this);
      this.instruction = instruction;
      if (this.#hangupSource) return await this.#finish('completed');
      const stream = await SimStream.connect({
        carrier: this.carrier,
        url: instruction.url,
        format,
        parameters: instruction.parameters,
        callId: this.sid,
        accountId: this.accountId,
        from: this.from,
        to: this.to,
      });
      this.#stream = stream;
      // Hung up while the stream was opening: it closes at once.
      if (this.#hangupSource) void stream.hangup();
      this.#resolveStream(stream);
      await driver.notify(this, 'stream-started');
      await stream.closed;
      await driver.notify(this, 'stream-stopped');
      // carrier-a's keepCallAlive: the call outlives its stream, in silence, until someone hangs up.
      if (instruction.keepCallAlive && !this.#hangupSource)
        await new Promise<void>((resolve) => {
          this.#wakeKeptAlive = resolve;
        });
      // The stream closed: the application ended it, unless someone hung up first. Nothing follows it in a voice
      // agent's answer, so the call ends with it.
      this.#hangupSource ??= 'application';
      await this.#finish('completed');
    } catch (error) {
      this.errors.push(error instanceof Error ? error.message : String(error));
      await this.#finish(this.answeredAt ? 'completed' : 'failed');
    }
  }

  async #end(source: SimHangupSource): Promise<void> {
    this.#hangupSource ??= source;
    this.#wakeRinging?.();
    this.#wakeKeptAlive?.();
    if (this.#stream?.isOpen) await this.#stream.hangup();
    await this.ended;
  }

  async #finish(status: SimCallStatus): Promise<void> {
    if (this.endedAt) return;
    this.status = status;
    this.endedAt = new Date();
    this.#rejectStream(new Error(`the call ended (${status}) without a media stream`));
    await this.#driver?.notify(this, 'ended');
    this.#resolveEnded({
      status,
      durationSec: this.answeredAt ? Math.round((this.endedAt.getTime() - this.answeredAt.getTime()) / 1000) : 0,
      source: this.#hangupSource ?? 'carrier',
    });
  }

  /** Who ended the call, once someone did. */
  get hangupSource(): SimHangupSource | undefined {
    return this.#hangupSource;
  }
}
