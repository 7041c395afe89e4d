/**
 * One call (docs/architecture.md §3, §8): the root of its ownership tree. It owns its transport, worker streams,
 * recording, timers, inbound pipeline, agent voice and responder, and closes them all in one cascade, once
 * (session-children.ts). States: connecting → greeting → listening ⇄ thinking ⇄ speaking → ending → ended.
 *
 * Inbound: every caller frame goes through the inbound pipeline (VAD, turn detector, recogniser feed); the words
 * the recogniser settles make the caller's turn (caller-turns.ts), and the responder answers it — a language
 * model, a flow, or the no-model agent, which the session does not tell apart. Caller speech over the agent pauses
 * it at once (its audio held, the far end's buffer cleared; floor-claim.ts); words that interrupt — not a backchannel,
 * not the agent's own echo — or voice long past any backchannel then stop it: the outbound queue is cleared, the
 * reply's requests are cancelled, and the conversation keeps only what was heard. A backchannel, or nothing, lets it
 * go on from where it paused.
 */
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { CallSpec, CallState } from '../protocol/index.ts';
import { fillTemplate } from '../protocol/template.ts';
import type { ChatMessage } from '../providers/llm-provider.ts';
import { everyShared } from '../streams/shared-interval.ts';
import type { TransportEvent } from '../transports/media-transport.ts';
import { AgentVoice } from './agent-voice.ts';
import { CallerTurns, type CallerTurn } from './caller-turns.ts';
import { CallEvents } from './call-events.ts';
import { listenForControl } from './call-control.ts';
import { CallLimits } from './call-limits.ts';
import { CallTransfer } from './call-transfer.ts';
import { EnergyVad } from './energy-vad.ts';
import type { FloorDecision } from './floor-claim.ts';
import { InboundPipeline } from './inbound-pipeline.ts';
import { LatencyTracker } from './latency-tracker.ts';
import { activeCalls, bargeIns, callsEnded, observeTurn } from '../metrics/call-metrics.ts';
import { chooseResponder } from './choose-responder.ts';
import { searchTools } from '../agent/knowledge-tools.ts';
import type { Responder, ResponderCall } from './responder.ts';
import type { CallSummary, SessionDependencies } from './session-dependencies.ts';
import { SessionChildren } from './session-children.ts';
import type { WorkerStreamError } from '../workers/client/worker-stream.ts';
import { recogniserLostLine, STT_UNAVAILABLE } from './recogniser-lost.ts';

export { NO_LLM_MESSAGE } from './no-model-responder.ts';
export type { CallSummary, SessionDependencies } from './session-dependencies.ts';

/** Said when the caller has been silent for half the inactivity limit. */
export const NUDGE_MESSAGE = 'Are you still there?';
/** Longest a closing message may take to play before hanging up anyway, ms. */
const CLOSING_TIMEOUT_MS = 15_000;
/** How often the inactivity and duration limits are checked, ms. */
const LIMIT_CHECK_INTERVAL_MS = 250;

export class CallSession {
  readonly #spec: CallSpec;
  readonly #deps: SessionDependencies;
  readonly #startedAt = performance.now();
  /** Aborts when the call ends: every pending request (model, synthesis, tools) is rejected through it. */
  readonly #abort = new AbortController();
  readonly #children: SessionChildren;
  readonly #voice: AgentVoice;
  readonly #inbound: InboundPipeline;
  readonly #callerTurns: CallerTurns;
  readonly #responder: Responder;
  readonly #limits: CallLimits;
  readonly #latency = new LatencyTracker(observeTurn);
  /** run() counted this call in parley_active_calls; #close takes it out once. */
  #counted = false;
  readonly #conversation: ChatMessage[];
  readonly #events: CallEvents;
  #state: CallState = 'connecting';
  /** Answers in order: each turn's response waits for the one before. */
  #replying: Promise<void> = Promise.resolve();
  #ending: Promise<CallSummary> | undefined;
  readonly #transfer: CallTransfer;
  #resolveEnded!: (summary: CallSummary) => void;
  readonly ended: Promise<CallSummary>;

  constructor(spec: CallSpec, deps: SessionDependencies) {
    this.#spec = spec;
    this.#deps = deps;
    this.#children = new SessionChildren((event, detail, level) => this.#log(event, detail, level));
    this.#events = new CallEvents(deps.bus, spec.callId);
    this.#limits = new CallLimits(spec.limits);
    // Ended by the stream or the carrier, the call says no closing line: the caller is gone or handed over.
    this.#transfer = new CallTransfer(deps.transport, {
      end: (reason, outcome) => this.end(reason, outcome, false),
    });
    this.#conversation = [{ role: 'system', content: buildSystemPrompt(spec.agent, spec.variables) }];
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    const voice = {
      voiceId: spec.agent.voiceId ?? undefined,
      speed: spec.agent.voiceSpeed,
      language: spec.agent.language,
    };
    this.#voice = new AgentVoice(deps.transport, deps.tts, voice, this.#abort.signal, () => this.#now(), {
      frameSent: (tag, samples) => this.#frameSent(tag, samples),
      drained: () => this.#drained(),
      said: (text) => {
        const message: ChatMessage = { role: 'assistant', content: text };
        this.#conversation.push(message);
        return (heard) => {
          if (heard) message.content = heard;
          else if (this.#conversation.includes(message))
            this.#conversation.splice(this.#conversation.indexOf(message), 1);
        };
      },
      heard: (heard) => this.#events.line('assistant', heard.text, heard.startMs, heard.endMs, heard.interrupted),
    });
    this.#inbound = new InboundPipeline(
      deps.stt,
      deps.voiceActivity ?? new EnergyVad(),
      spec.agent.turn ?? {},
      deps.transport.echoes === true,
    );
    this.#callerTurns = new CallerTurns({
      spec,
      stt: deps.stt,
      inbound: this.#inbound,
      echoes: deps.transport.echoes === true,
      now: () => this.#now(),
      agent: () => ({ speaking: this.#voice.speaking, text: this.#voice.text }),
      interrupt: () => this.#interrupt(),
      overheard: () => this.#floor(this.#inbound.settledWithoutInterrupting()),
      voicemail: () => void this.#voicemail(),
      ending: () => this.#ending !== undefined,
      turnEnded: (turn) => this.#turnEnded(turn),
      recogniserLost: (error) => this.#recogniserLost(error),
      fail: (error) => this.#fail(error),
    });
    this.#responder = chooseResponder(this.#responderCall(), {
      llm: deps.llm,
      tts: deps.tts,
      voice,
      builtins: searchTools(spec, deps.bus),
    });
    // The cascade, in this order: nothing more is decided, nothing more goes out, the far end is let go, then the
    // worker streams close. The recording is finished after the end is published (#close), so it holds all of it.
    this.#children.adopt('responder', () => this.#responder.close());
    this.#children.adopt('outbound audio', () => {
      deps.clock.detach(this.#voice.outbound);
      this.#voice.close();
    });
    this.#children.adopt('inbound pipeline', () => this.#inbound.close());
    this.#children.adopt('transport', (reason) => deps.transport.hangup(reason));
    this.#children.adopt('stt stream', () => deps.stt.close());
    this.#children.adopt('tts stream', () => deps.tts.close());
    if (deps.llm) this.#children.adopt('llm stream', () => deps.llm?.close());
  }

  get state(): CallState {
    return this.#state;
  }

  /** Runs the call until it ends; resolves with its summary. */
  async run(): Promise<CallSummary> {
    this.#setState('connecting');
    activeCalls.inc();
    this.#counted = true;
    this.#deps.clock.attach(this.#voice.outbound);
    // Attached after the outbound audio: each tick, the agent's frame has gone out before the recorder writes it.
    if (this.#deps.recording) this.#deps.clock.attach(this.#deps.recording.recorder);
    this.#children.adopt(
      'limit checks',
      everyShared(LIMIT_CHECK_INTERVAL_MS, () => this.#checkLimits()),
    );
    const control = listenForControl(this.#deps.bus, this.#spec.callId, this, (event, detail) =>
      this.#log(event, detail),
    );
    this.#children.adopt('control subscription', () => control.unsubscribe());
    void this.#readTransport();
    void this.#callerTurns.readTranscripts();
    this.#latency.answered(performance.now());
    const greeting = this.#spec.agent.greetingMessage
      ? fillTemplate(this.#spec.agent.greetingMessage, this.#spec.variables)
      : '';
    if (greeting) {
      this.#setState('greeting');
      const pieces = this.#deps.greetingAudio?.catch(() => undefined) ?? Promise.resolve(undefined);
      this.#replying = pieces
        .then((ready) => this.#voice.greet(greeting, ready))
        .then(() => this.#responder.start())
        .catch((error: unknown) => this.#fail(error));
    } else {
      this.#setState('listening');
      this.#replying = this.#responder.start().catch((error: unknown) => this.#fail(error));
    }
    return this.ended;
  }

  /** Says `text` now, as the agent (a control message from the control plane). */
  async say(text: string): Promise<void> {
    if (this.#ending) return;
    await this.#voice.speakLine(text, `say${this.#callerTurns.count}-${performance.now()}`, this.#callerTurns.count);
  }

  /** Adds context the model should know from now on (e.g. a supervisor's note), without saying anything. */
  inject(text: string): void {
    this.#conversation.push({ role: 'system', content: text });
  }

  /**
   * Transfers the call when the transport can; otherwise — or when the carrier refuses — the agent stays on the line
   * and the answer is false.
   */
  async transfer(to: string): Promise<boolean> {
    if (!this.#transfer.possible || this.#ending) return false;
    return this.#transfer.transfer(to);
  }

  /**
   * Ends the call: says the closing message when `polite` (the agent's, else `fallbackClosing` when given), hangs
   * up, publishes the end. Idempotent.
   */
  end(reason: string, outcome = 'completed', polite = true, fallbackClosing?: string): Promise<CallSummary> {
    this.#ending ??= this.#finish(reason, outcome, polite ? this.#closingLine(fallbackClosing) : '');
    return this.#ending;
  }

  // ---- inbound ------------------------------------------------------------------------------------------------

  async #readTransport(): Promise<void> {
    try {
      for await (const event of this.#deps.transport.events) this.#onTransport(event);
    } catch (error) {
      this.#log('transport failed', { error: String(error) }, 'error');
    }
    this.#transfer.streamEnded('caller_hangup');
  }

  #onTransport(event: TransportEvent): void {
    switch (event.type) {
      case 'audio':
        return this.#onAudio(event.samples);
      case 'dtmf':
        this.#events.publish({ type: 'dtmf', digit: event.digit, atMs: this.#now() });
        this.#limits.activity();
        if (!this.#responder.pressed(event.digit)) this.#callerTurns.pressed(event.digit);
        return;
      case 'mark':
        return this.#voice.markPlayed(event.name);
      case 'answered_by':
        if (event.who === 'machine') void this.#voicemail();
        return;
      case 'hangup':
        return this.#transfer.streamEnded(event.dropped ? 'media_dropped' : 'caller_hangup');
    }
  }

  #onAudio(samples: Int16Array): void {
    if (this.#state === 'ended') return;
    this.#deps.recording?.recorder.caller(samples);
    if (this.#state === 'ending') return;
    const frame = this.#inbound.frame(samples, this.#voice.speaking);
    if (frame.speech) this.#limits.callerVoiced();
    this.#floor(frame.floor);
    if (frame.turn) this.#callerTurns.turnEvent(frame.turn);
  }

  /** What caller voice over the agent decided: hold the agent's audio, stop it, or let it go on. */
  #floor(decision: FloorDecision | undefined): void {
    if (decision === 'commit') return this.#interrupt();
    if (decision === 'pause') {
      if (this.#voice.pause()) this.#log('barge-in paused', { turn: this.#voice.currentTurn });
      else this.#inbound.floorSettled();
      return;
    }
    if (decision === 'resume' && this.#voice.paused) {
      this.#voice.resume();
      this.#log('barge-in resumed', { turn: this.#voice.currentTurn });
    }
  }

  /** The caller's turn is complete: its line is published, its words join the conversation, the responder answers. */
  #turnEnded(turn: CallerTurn): void {
    const now = performance.now();
    this.#latency.turnEnded(turn.turn, turn.lastVoicedAt || now, now, turn.finalAt);
    this.#events.line('user', turn.text, turn.startMs, turn.endMs);
    this.#conversation.push({ role: 'user', content: turn.text });
    this.#replying = this.#replying
      .then(() => (this.#ending ? undefined : this.#responder.respond(turn.turn, turn.text)))
      .catch((error: unknown) => this.#fail(error));
  }

  /** Caller speech took the floor: stop the agent now and keep only what was heard. */
  #interrupt(): void {
    const interruption = this.#voice.interrupt();
    const voicedOverAgentMs = this.#inbound.voicedOverAgentMs;
    this.#inbound.floorSettled();
    if (!interruption) return;
    bargeIns.observe(voicedOverAgentMs / 1000);
    this.#setState('listening');
    this.#log('barge-in', { turn: interruption.turn, heard: interruption.heard });
    this.#conversation.push(...interruption.messages);
  }

  #frameSent(tag: string, samples: Int16Array): void {
    this.#deps.recording?.recorder.agent(samples);
    const at = performance.now();
    const turn = this.#voice.currentTurn;
    if (tag === 'greeting') this.#latency.greetingPlayed(at);
    else if (turn !== undefined && tag.startsWith(`t${turn}`)) this.#latency.firstFrame(turn, at);
    if (this.#state !== 'speaking' && this.#state !== 'greeting' && this.#state !== 'ending')
      this.#setState('speaking');
  }

  #drained(): void {
    this.#limits.activity();
    if (this.#state === 'speaking' || this.#state === 'greeting') this.#setState('listening');
  }

  // ---- limits, voicemail, end ---------------------------------------------------------------------------------

  #checkLimits(): void {
    if (this.#ending) return;
    const idle = this.#state === 'listening' && !this.#inbound.callerSpeaking;
    const verdict = this.#limits.check(this.#now(), idle);
    if (verdict === 'max_duration') void this.end('max_duration');
    else if (verdict === 'inactivity') void this.end('inactivity', 'completed');
    else if (verdict === 'nudge') {
      const turn = this.#callerTurns.count;
      this.#voice.nudge(NUDGE_MESSAGE, `nudge${turn}`, turn);
    }
  }

  async #voicemail(): Promise<void> {
    if (this.#ending) return;
    this.#voice.cancelCurrent();
    this.#voice.clear();
    const message = this.#spec.agent.voicemailMessage
      ? fillTemplate(this.#spec.agent.voicemailMessage, this.#spec.variables)
      : '';
    this.#ending = (async () => {
      if (message) await this.#voice.sayLastLine(message, 'voicemail', this.#callerTurns.count, CLOSING_TIMEOUT_MS);
      return this.#close('voicemail', 'voicemail');
    })();
    await this.#ending;
  }

  /** The agent's closing message, else `fallback` (else nothing). */
  #closingLine(fallback: string | undefined): string {
    return this.#spec.agent.closingMessage
      ? fillTemplate(this.#spec.agent.closingMessage, this.#spec.variables)
      : (fallback ?? '');
  }

  /** Ends the call after saying `closing` (none: at once), cutting short whatever the agent was saying. */
  async #finish(reason: string, outcome: string, closing: string): Promise<CallSummary> {
    this.#voice.cancelCurrent();
    this.#setState('ending');
    if (closing) {
      this.#voice.clear();
      await this.#voice.sayLastLine(closing, 'closing', this.#callerTurns.count, CLOSING_TIMEOUT_MS);
    }
    return this.#close(reason, outcome);
  }

  /** Closes the call once: pending work is aborted, every child closed, the end published, the recording finished. */
  #close(reason: string, outcome: string): CallSummary {
    this.#abort.abort();
    this.#children.closeAll(reason);
    const durationMs = Math.round(this.#now());
    this.#setState('ended');
    this.#events.publish({ type: 'ended', reason, outcome, durationMs, latency: this.#latency.report() });
    if (this.#counted) activeCalls.dec();
    this.#counted = false;
    callsEnded.inc({ outcome });
    const summary = { reason, outcome, durationMs, transcript: this.#events.transcript };
    this.#finishRecording();
    this.#resolveEnded(summary);
    return summary;
  }

  /** Closes the recording, stores it, and says where it is; a recording that cannot be finished is logged, not fatal. */
  #finishRecording(): void {
    this.#deps.recording?.finish().then(
      (stored) => this.#events.publish({ type: 'recording', ...stored }),
      (error: unknown) => this.#log('recording failed', { error: String(error) }, 'error'),
    );
  }

  #fail(error: unknown): void {
    this.#log('call failed', { error: String(error) }, 'error');
    void this.end('error', 'failed', false);
  }

  /**
   * The recogniser is gone for good (docs/architecture.md §18): the agent can no longer hear the caller, so it says
   * so and ends the call, FAILED with reason `stt_unavailable`. Without a voice either (the TTS stream is gone too) it
   * ends at once; a TTS stream still failing over is waited for at most its own failover budget.
   */
  #recogniserLost(error: WorkerStreamError): void {
    if (this.#ending) return;
    const canSpeak = this.#deps.tts.available;
    this.#log('recogniser lost: ending the call', { error: String(error), code: error.code, canSpeak }, 'error');
    const line = canSpeak ? recogniserLostLine(this.#spec.agent, this.#spec.variables) : '';
    this.#ending = this.#finish(STT_UNAVAILABLE, 'failed', line);
  }

  // ---- the responder's view of the call -----------------------------------------------------------------------

  #responderCall(): ResponderCall {
    return {
      spec: this.#spec,
      conversation: this.#conversation,
      signal: this.#abort.signal,
      outbound: this.#voice.outbound,
      now: () => this.#now(),
      publish: (event) => this.#events.publish(event),
      // A voicemail ends the call without the 'ending' state; nothing said after it would be heard.
      closing: () => this.#ending !== undefined && this.#state !== 'ending',
      speakLine: (text, tag, turn = this.#callerTurns.count) => this.#voice.speakLine(text, tag, turn),
      beginReply: (turn, result) => {
        const speech = this.#voice.beginReply(turn, result);
        this.#setState('thinking');
        return speech;
      },
      replied: (turn, result) => {
        this.#latency.replyTimings(turn, result.timings);
        for (const tool of result.tools) this.#events.publish({ type: 'tool_call', ...tool });
      },
      transfer: (to) => this.transfer(to),
      endAfterPlayback: async (reason) => {
        await this.#voice.whenDrained(CLOSING_TIMEOUT_MS);
        await this.end(reason, 'completed', false);
      },
      fail: (error) => this.#fail(error),
    };
  }

  // ---- bookkeeping --------------------------------------------------------------------------------------------

  #setState(state: CallState): void {
    if (this.#state === state || this.#state === 'ended') return;
    this.#state = state;
    this.#events.publish({ type: 'state', state, atMs: Math.round(this.#now()) });
  }

  #now(): number {
    return performance.now() - this.#startedAt;
  }

  /** The role hands the session a child log that names the call (roles/role-log.ts childLog). */
  #log(event: string, detail?: object, level?: 'info' | 'warn' | 'error'): void {
    this.#deps.log?.(event, detail, level);
  }
}
