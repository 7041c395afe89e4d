/**
 * One call (DESIGN.md §3): it owns its transport's audio, its worker streams, its outbound queue and its timers,
 * and closes them all once. States: connecting → greeting → listening ⇄ thinking ⇄ speaking → ending → ended.
 *
 * Inbound: every caller frame goes to the VAD, the turn detector and the STT stream. At the end of a turn the
 * agent replies (agent-turn.ts). Caller speech over the agent — past the minimum, not a backchannel, not the
 * agent's own echo — stops the agent at once: the outbound queue and the far end's buffer are cleared, the
 * turn's LLM and TTS requests are cancelled, and the conversation keeps only what the caller heard.
 */
import type { PacingClock } from '../audio/pacing-clock.ts';
import { fillTemplate } from '../protocol/template.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { WebhookTool } from '../agent/webhook-tool.ts';
import type { Bus } from '../bus/index.ts';
import { FlowDefinition, type CallSpec, type CallState } from '../protocol/index.ts';
import type { ChatMessage } from '../providers/llm-provider.ts';
import type { MediaTransport, TransportEvent } from '../transports/media-transport.ts';
import type { LlmClient } from '../workers/client/llm-client.ts';
import type { SttClient } from '../workers/client/stt-client.ts';
import type { SayOptions, TtsClient } from '../workers/client/tts-client.ts';
import { emptyTurnResult, heardMessages, runAgentTurn, type AgentTurnResult } from './agent-turn.ts';
import { BARGE_IN_WITHOUT_WORDS_MS, interrupts } from './barge-in.ts';
import { EnergyVad, type FrameClassifier } from './energy-vad.ts';
import { everyShared } from '../streams/shared-interval.ts';
import { CallEvents, type TranscriptLine } from './call-events.ts';
import type { CallRecording } from '../storage/call-recording.ts';
import { LatencyTracker } from './latency-tracker.ts';
import { RecogniserFeed } from './recogniser-feed.ts';
import { PacedAgentAudio } from './paced-agent-audio.ts';
import { playedText } from './played-text.ts';
import { SpeechPlayer } from './speech-player.ts';
import { SpeechHandle, type HeardSpeech } from './speech-handle.ts';
import { TurnDetector, type TurnEvent } from './turn-detector.ts';
import { soundsLikeVoicemail, VOICEMAIL_LISTEN_MS } from './voicemail-detector.ts';
import { FlowDriver } from './flow-driver.ts';
import { flowLanguageModel } from './flow-language-model.ts';
import { Value } from '@sinclair/typebox/value';
import { callWebhookTool } from '../agent/webhook-tool.ts';

export interface SessionDependencies {
  bus: Bus;
  transport: MediaTransport;
  /** The process's shared 20 ms clock (processPacingClock()). */
  clock: PacingClock;
  stt: SttClient;
  tts: TtsClient;
  /** Undefined when no language model is configured: the agent greets, then says so. */
  llm: LlmClient | undefined;
  /**
   * The greeting's audio (16 kHz PCM16 pieces), synthesised while the phone rang or taken from the greeting cache;
   * when it fails or is absent the greeting is synthesised now.
   */
  greetingAudio?: Promise<Int16Array[]>;
  /** The call's voice activity detector (the engine role's choice: Silero behind the gate); default the gate alone. */
  voiceActivity?: FrameClassifier;
  /** The call's recording, handed over by the engine role: the session feeds it and, at the end, finishes it. */
  recording?: CallRecording;
  log?: (event: string, detail?: object) => void;
}

/** The agent line the caller may interrupt now: a reply to a turn, or a fixed line (greeting, nudge). */
interface ReplyInProgress {
  speech: SpeechHandle;
  /** A reply's LLM rounds and clauses, filled live while it runs. */
  result?: AgentTurnResult;
}

export interface CallSummary {
  reason: string;
  outcome: string;
  durationMs: number;
  transcript: TranscriptLine[];
}

/** What an agent with no language model says after the caller's first words. */
export const NO_LLM_MESSAGE = 'I am sorry, no language model is configured for me yet, so I cannot answer. Goodbye.';
/** Said when the caller has been silent for half the inactivity limit. */
export const NUDGE_MESSAGE = 'Are you still there?';
/** Longest wait for a batch recogniser's words after the caller paused, ms. */
const FINAL_WAIT_MS = 3_000;
/** Longest a closing message may take to play before hanging up anyway, ms. */
const CLOSING_TIMEOUT_MS = 15_000;
/** How often the inactivity and duration limits are checked, ms. */
const LIMIT_CHECK_INTERVAL_MS = 250;

export class CallSession {
  readonly #spec: CallSpec;
  readonly #deps: SessionDependencies;
  readonly #startedAt = performance.now();
  readonly #abort = new AbortController();
  readonly #outbound: PacedAgentAudio;
  readonly #player: SpeechPlayer;
  readonly #vad: FrameClassifier;
  readonly #turns: TurnDetector;
  readonly #latency = new LatencyTracker();
  readonly #conversation: ChatMessage[];
  readonly #events: CallEvents;
  readonly #recogniser: RecogniserFeed;
  readonly #tools: WebhookTool[];
  readonly #voice: SayOptions;
  /** Set for a FLOW agent: the flow, not the LLM, decides each reply. */
  readonly #flow: FlowDriver | undefined;
  #state: CallState = 'connecting';
  #stopLimitChecks: (() => void) | undefined;
  #reply: ReplyInProgress | undefined;
  /** Utterances not yet settled: each says its transcript line once the caller has heard it. */
  readonly #unsettled = new Set<SpeechHandle>();
  #replying: Promise<void> = Promise.resolve();
  #userText = '';
  #userStartedAt = 0;
  #finalAt: number | undefined;
  #lastVoicedAt = 0;
  #voicedWhileAgentSpoke = 0;
  #lastActivityAt = performance.now();
  #nudged = false;
  #turnCount = 0;
  #noModelLineSaid = false;
  #ending: Promise<CallSummary> | undefined;
  /** A transfer is with the carrier: the stream closing now is the carrier leaving it, not the caller hanging up. */
  #transferring = false;
  /** How the stream ended while a transfer was with the carrier, if it did. */
  #closedDuringTransfer: string | undefined;
  #resolveEnded!: (summary: CallSummary) => void;
  readonly ended: Promise<CallSummary>;

  constructor(spec: CallSpec, deps: SessionDependencies) {
    this.#spec = spec;
    this.#deps = deps;
    this.#vad = deps.voiceActivity ?? new EnergyVad();
    this.#turns = new TurnDetector(spec.agent.turn ?? {});
    this.#events = new CallEvents(deps.bus, spec.callId);
    this.#recogniser = new RecogniserFeed(deps.stt);
    this.#tools = spec.agent.functionTools as WebhookTool[];
    this.#voice = {
      voiceId: spec.agent.voiceId ?? undefined,
      speed: spec.agent.voiceSpeed,
      language: spec.agent.language,
    };
    this.#conversation = [{ role: 'system', content: buildSystemPrompt(spec.agent, spec.variables) }];
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    this.#outbound = new PacedAgentAudio(deps.transport, {
      frameSent: (tag, samples) => this.#frameSent(tag, samples),
      markReached: (name) => this.#player.markReached(name),
      drained: () => this.#drained(),
    });
    this.#player = new SpeechPlayer(this.#outbound, deps.tts, this.#voice, this.#abort.signal);
    const flow = spec.agent.builderMode === 'FLOW' ? spec.agent.flowDefinition : undefined;
    // The control plane validated the flow against the agent when it was saved; here only its shape is checked, so
    // a stale snapshot cannot crash the call (a handover without a number, say, simply fails over to its next step).
    this.#flow =
      flow && Value.Check(FlowDefinition, flow)
        ? new FlowDriver(
            flow,
            { variables: spec.variables, llm: deps.llm && flowLanguageModel(deps.llm, this.#abort.signal) },
            {
              speak: (lines) => this.#speakLines(lines),
              runTool: (tool, args) => this.#runFlowTool(tool, args),
              handover: () =>
                spec.agent.handoverNumber ? this.transfer(spec.agent.handoverNumber) : Promise.resolve(false),
              finish: async (end, result) => {
                this.#events.publish({
                  type: 'result',
                  source: 'flow',
                  outcomeKey: result.outcomeKey,
                  outcomeLabel: result.outcomeLabel,
                  captured: result.captured,
                  flowPath: result.flowPath,
                });
                if (end.handedOver) return;
                if (end.closing) await this.#speakLines([end.closing]);
                await this.#player.whenDrained(CLOSING_TIMEOUT_MS);
                await this.end('flow_ended', 'completed', false);
              },
            },
          )
        : undefined;
  }

  get state(): CallState {
    return this.#state;
  }

  /** Runs the call until it ends; resolves with its summary. */
  async run(): Promise<CallSummary> {
    this.#setState('connecting');
    this.#deps.clock.attach(this.#outbound);
    // Attached after the outbound audio: each tick, the agent's frame has gone out before the recorder writes it.
    if (this.#deps.recording) this.#deps.clock.attach(this.#deps.recording.recorder);
    this.#stopLimitChecks = everyShared(LIMIT_CHECK_INTERVAL_MS, () => this.#checkLimits());
    void this.#readTransport();
    void this.#readTranscripts();
    this.#latency.answered(performance.now());
    const greeting = this.#spec.agent.greetingMessage
      ? fillTemplate(this.#spec.agent.greetingMessage, this.#spec.variables)
      : '';
    if (greeting) {
      this.#setState('greeting');
      const speech = this.#speech(0, greeting);
      this.#reply = { speech };
      const ready = this.#deps.greetingAudio?.catch(() => undefined);
      const speak = ready
        ? ready.then((pieces) =>
            pieces?.length
              ? this.#player.play(greeting, pieces, 'greeting', speech)
              : this.#player.say(greeting, 'greeting', speech),
          )
        : this.#player.say(greeting, 'greeting', speech);
      this.#replying = speak.then(
        async () => {
          speech.allQueued();
          if (!speech.cancelled) this.#addAssistant(greeting);
          await this.#flow?.start();
        },
        (error: unknown) => this.#fail(error),
      );
    } else {
      this.#setState('listening');
      this.#replying = this.#flow?.start().catch((error: unknown) => this.#fail(error)) ?? Promise.resolve();
    }
    return this.ended;
  }

  /** Says `text` now, as the agent (a control message from the control plane). */
  async say(text: string): Promise<void> {
    if (this.#ending) return;
    await this.#speakLine(text, `say${this.#turnCount}-${performance.now()}`);
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
    if (!this.#deps.transport.transfer || this.#ending) return false;
    this.#transferring = true;
    try {
      await this.#deps.transport.transfer(to);
    } catch {
      this.#transferring = false;
      // Refused: the agent stays on the line — unless the caller hung up meanwhile.
      if (this.#closedDuringTransfer) void this.end(this.#closedDuringTransfer, 'completed', false);
      return false;
    }
    await this.end('transferred', 'transferred', false);
    return true;
  }

  /** Ends the call: says the closing message when `polite`, hangs up, publishes the end. Idempotent. */
  end(reason: string, outcome = 'completed', polite = true): Promise<CallSummary> {
    this.#ending ??= this.#finish(reason, outcome, polite);
    return this.#ending;
  }

  // ---- inbound ------------------------------------------------------------------------------------------------

  async #readTransport(): Promise<void> {
    try {
      for await (const event of this.#deps.transport.events) this.#onTransport(event);
    } catch (error) {
      this.#log('transport failed', { error: String(error) });
    }
    this.#transportEnded('caller_hangup');
  }

  /** The stream is gone: the caller hung up — or, while a transfer is with the carrier, the carrier left it. */
  #transportEnded(reason: string): void {
    if (this.#transferring) {
      this.#closedDuringTransfer ??= reason;
      return;
    }
    void this.end(reason, 'completed', false);
  }

  #onTransport(event: TransportEvent): void {
    switch (event.type) {
      case 'audio':
        return this.#onAudio(event.samples);
      case 'dtmf':
        this.#events.publish({ type: 'dtmf', digit: event.digit, atMs: this.#now() });
        this.#lastActivityAt = performance.now();
        if (this.#flow) return this.#flow.pressed(event.digit);
        this.#userText += `${this.#userText ? ' ' : ''}[The caller pressed ${event.digit}]`;
        return this.#userTurnEnded(undefined);
      case 'mark':
        return this.#player.markPlayed(event.name);
      case 'answered_by':
        if (event.who === 'machine') void this.#voicemail();
        return;
      case 'hangup':
        return this.#transportEnded(event.dropped ? 'media_dropped' : 'caller_hangup');
    }
  }

  #onAudio(samples: Int16Array): void {
    if (this.#state === 'ended') return;
    this.#deps.recording?.recorder.caller(samples);
    if (this.#state === 'ending') return;
    const { speech } = this.#vad.classify(samples);
    this.#recogniser.frame(samples, speech);
    const agentSpeaking = this.#agentSpeaking();
    if (speech) {
      this.#lastVoicedAt = performance.now();
      this.#lastActivityAt = this.#lastVoicedAt;
      this.#nudged = false;
      this.#voicedWhileAgentSpoke = agentSpeaking ? this.#voicedWhileAgentSpoke + 20 : 0;
      // Without words yet, long enough speech still takes the floor — unless the line echoes the agent back.
      if (agentSpeaking && !this.#deps.transport.echoes && this.#voicedWhileAgentSpoke >= BARGE_IN_WITHOUT_WORDS_MS)
        this.#interrupt();
    }
    const event = this.#turns.frame(speech);
    if (event) this.#onTurnEvent(event);
  }

  #onTurnEvent(event: TurnEvent): void {
    if (event.type === 'speech_started') {
      this.#userStartedAt = this.#now() - 200;
      return;
    }
    this.#recogniser.pause();
    if (event.type === 'turn_ended') this.#userTurnEnded(event);
  }

  async #readTranscripts(): Promise<void> {
    try {
      for await (const event of this.#deps.stt.events) {
        if (event.type === 'partial') {
          if (this.#agentSpeaking() && interrupts(event.text, this.#agentText(), this.#deps.transport.echoes))
            this.#interrupt();
          continue;
        }
        if (this.#agentSpeaking()) {
          if (!interrupts(event.text, this.#agentText(), this.#deps.transport.echoes)) continue;
          this.#interrupt();
        }
        this.#userText += `${this.#userText ? ' ' : ''}${event.text}`;
        this.#finalAt = performance.now();
        if (
          this.#now() < VOICEMAIL_LISTEN_MS &&
          this.#spec.direction === 'OUTBOUND' &&
          soundsLikeVoicemail(this.#userText)
        ) {
          void this.#voicemail();
          continue;
        }
        const ended = this.#turns.finalTranscript();
        if (ended) this.#userTurnEnded(ended);
        // Words settled after their turn had ended (a recogniser that finalised part of a sentence early, then the
        // rest): they are a turn of their own now, or they would wait for the caller's next sentence — and if they
        // just cancelled the reply to the first part, the caller would get no answer at all.
        else if (!this.#turns.speaking) this.#userTurnEnded(undefined);
      }
    } catch (error) {
      this.#fail(error);
    }
  }

  #userTurnEnded(event: TurnEvent | undefined): void {
    const text = this.#userText.trim();
    if (!text && event?.type === 'turn_ended' && this.#finalAt === undefined) {
      // A batch recogniser may still be working on the words: give it a moment before giving up on the turn.
      setTimeout(() => {
        if (this.#userText.trim()) this.#userTurnEnded(undefined);
      }, FINAL_WAIT_MS).unref();
      return;
    }
    this.#userText = '';
    if (!text || this.#ending) return;
    const turn = ++this.#turnCount;
    const now = performance.now();
    this.#latency.turnEnded(turn, this.#lastVoicedAt || now, now, this.#finalAt);
    this.#finalAt = undefined;
    this.#events.line('user', text, this.#userStartedAt, this.#now());
    this.#conversation.push({ role: 'user', content: text });
    const previous = this.#replying;
    this.#replying = previous.then(() => this.#respond(turn));
  }

  // ---- replies ------------------------------------------------------------------------------------------------

  async #respond(turn: number): Promise<void> {
    if (this.#ending) return;
    if (this.#flow) {
      const text = this.#conversation.at(-1)?.content ?? '';
      await this.#flow.heard(typeof text === 'string' ? text : '');
      return;
    }
    if (!this.#deps.llm) {
      if (this.#noModelLineSaid) return;
      this.#noModelLineSaid = true;
      await this.#speakLine(NO_LLM_MESSAGE, `t${turn}`, turn);
      await this.#player.whenDrained(CLOSING_TIMEOUT_MS);
      // Ended as designed, not a platform failure: the record says completed, its reason why (docs/architecture.md §3).
      await this.end('no_language_model', 'completed', false);
      return;
    }
    const result = emptyTurnResult();
    const speech = this.#speech(turn, undefined, result.clauses);
    const reply: ReplyInProgress = { speech, result };
    this.#reply = reply;
    this.#setState('thinking');
    try {
      await runAgentTurn(
        {
          turn,
          messages: this.#conversation,
          tools: this.#tools,
          llm: this.#deps.llm,
          tts: this.#deps.tts,
          voice: this.#voice,
          outbound: this.#outbound,
          speech,
          signal: AbortSignal.any([speech.signal, this.#abort.signal]),
          now: () => this.#now(),
        },
        result,
      );
      speech.allQueued();
      this.#latency.replyTimings(turn, result.timings);
      for (const tool of result.tools) this.#events.publish({ type: 'tool_call', ...tool });
      if (speech.cancelled) return; // the interruption already wrote what was heard
      for (const round of result.rounds) this.#conversation.push(round.assistant, ...round.toolResults);
      if (result.endCall) {
        await this.#player.whenDrained(CLOSING_TIMEOUT_MS);
        await this.end('agent_ended', 'completed', false);
      }
    } catch (error) {
      if (!speech.cancelled) this.#fail(error);
    }
  }

  /** Speaks fixed lines in order (a FLOW agent's words), as one agent line per text. */
  async #speakLines(lines: readonly string[]): Promise<void> {
    for (const text of lines) {
      if (this.#ending && this.#state !== 'ending') return;
      await this.#speakLine(fillTemplate(text, this.#spec.variables), `flow${this.#turnCount}-${performance.now()}`);
    }
  }

  /**
   * Says one fixed line as the agent's reply in progress (so the caller can barge in on it), and adds it to the
   * conversation unless it was interrupted (the interruption adds what was heard).
   */
  async #speakLine(text: string, tag: string, turn = this.#turnCount): Promise<void> {
    const speech = this.#speech(turn, text);
    this.#reply = { speech };
    await this.#player.say(text, tag, speech);
    speech.allQueued();
    if (!speech.cancelled) this.#addAssistant(text);
  }

  /** Says a last line (voicemail, closing) that nothing interrupts, and waits until it has played. */
  async #sayLastLine(text: string, tag: string): Promise<void> {
    const speech = this.#speech(this.#turnCount, text);
    await this.#player.say(text, tag, speech).catch(() => {});
    speech.allQueued();
    this.#addAssistant(text);
    await this.#player.whenDrained(CLOSING_TIMEOUT_MS);
  }

  async #runFlowTool(tool: string, args: Record<string, unknown>): Promise<{ ok: boolean; content: string }> {
    const atMs = this.#now();
    const webhook = this.#tools.find((t) => t.key === tool);
    const outcome = webhook
      ? await callWebhookTool(webhook, JSON.stringify(args), this.#abort.signal)
      : { ok: false, content: `The tool ${tool} is not available on this call.`, durationMs: 0 };
    this.#events.publish({
      type: 'tool_call',
      name: tool,
      arguments: JSON.stringify(args),
      ok: outcome.ok,
      result: outcome.content,
      durationMs: outcome.durationMs,
      atMs,
    });
    return outcome;
  }

  /** Caller speech took the floor: stop the agent now and keep only what was heard. */
  #interrupt(): void {
    const reply = this.#reply;
    if (!reply || reply.speech.cancelled) return;
    const { speech, result } = reply;
    const played = (tag: string) => this.#player.playedFrames(tag);
    const heard = playedText(speech.clauses, played);
    speech.cutShort(played, heard);
    this.#clearOutbound();
    this.#voicedWhileAgentSpoke = 0;
    this.#setState('listening');
    this.#log('barge-in', { turn: speech.turn, heard });
    if (result) this.#conversation.push(...heardMessages(result, played));
    else if (heard) this.#conversation.push({ role: 'assistant', content: heard });
  }

  /** Drops the agent audio not yet played; every utterance in it ends with what the caller heard. */
  #clearOutbound(): void {
    this.#outbound.clear();
    this.#cutShortAll();
  }

  #cutShortAll(): void {
    const played = (tag: string) => this.#player.playedFrames(tag);
    for (const speech of [...this.#unsettled]) speech.cutShort(played);
  }

  /** What the agent is saying now, to tell its echo from the caller. */
  #agentText(): string {
    return this.#reply?.speech.text ?? '';
  }

  /** The agent holds the floor: a line is being produced, or its audio is still queued. */
  #agentSpeaking(): boolean {
    return this.#outbound.queuedFrames > 0 || this.#reply?.speech.producing === true;
  }

  #frameSent(tag: string, samples: Int16Array): void {
    this.#deps.recording?.recorder.agent(samples);
    this.#player.frameSent(tag);
    const at = performance.now();
    if (tag === 'greeting') this.#latency.greetingPlayed(at);
    else if (this.#reply && tag.startsWith(`t${this.#reply.speech.turn}`))
      this.#latency.firstFrame(this.#reply.speech.turn, at);
    if (this.#state !== 'speaking' && this.#state !== 'greeting' && this.#state !== 'ending')
      this.#setState('speaking');
  }

  #drained(): void {
    this.#player.drained();
    this.#lastActivityAt = performance.now();
    if (this.#state === 'speaking' || this.#state === 'greeting') this.#setState('listening');
  }

  // ---- limits, voicemail, end ---------------------------------------------------------------------------------

  #checkLimits(): void {
    if (this.#ending) return;
    if (this.#now() >= this.#spec.limits.maxDurationMs) {
      void this.end('max_duration');
      return;
    }
    if (this.#state !== 'listening' || this.#turns.speaking) return;
    const silentFor = performance.now() - this.#lastActivityAt;
    if (silentFor >= this.#spec.limits.inactivityMs) {
      void this.end('inactivity', 'completed');
    } else if (!this.#nudged && silentFor >= this.#spec.limits.inactivityMs / 2) {
      this.#nudged = true;
      const speech = this.#speech(this.#turnCount, NUDGE_MESSAGE);
      this.#reply = { speech };
      void this.#player.say(NUDGE_MESSAGE, `nudge${this.#turnCount}`, speech).then(() => speech.allQueued());
    }
  }

  async #voicemail(): Promise<void> {
    if (this.#ending) return;
    this.#reply?.speech.cancel();
    this.#clearOutbound();
    const message = this.#spec.agent.voicemailMessage
      ? fillTemplate(this.#spec.agent.voicemailMessage, this.#spec.variables)
      : '';
    this.#ending = (async () => {
      if (message) await this.#sayLastLine(message, 'voicemail');
      return this.#hangUp('voicemail', 'voicemail');
    })();
    await this.#ending;
  }

  async #finish(reason: string, outcome: string, polite: boolean): Promise<CallSummary> {
    this.#reply?.speech.cancel();
    const closing =
      polite && this.#spec.agent.closingMessage
        ? fillTemplate(this.#spec.agent.closingMessage, this.#spec.variables)
        : '';
    this.#setState('ending');
    if (closing) {
      this.#clearOutbound();
      await this.#sayLastLine(closing, 'closing');
    }
    return this.#hangUp(reason, outcome);
  }

  #hangUp(reason: string, outcome: string): CallSummary {
    this.#abort.abort();
    this.#flow?.stop();
    this.#stopLimitChecks?.();
    this.#deps.clock.detach(this.#outbound);
    this.#outbound.close();
    this.#vad.close?.();
    this.#deps.transport.hangup(reason);
    this.#deps.stt.close();
    this.#deps.tts.close();
    this.#deps.llm?.close();
    this.#cutShortAll();
    const durationMs = Math.round(this.#now());
    this.#setState('ended');
    this.#events.publish({ type: 'ended', reason, outcome, durationMs, latency: this.#latency.report() });
    const summary = { reason, outcome, durationMs, transcript: this.#events.transcript };
    this.#finishRecording();
    this.#resolveEnded(summary);
    return summary;
  }

  /**
   * Closes the recording file, stores it, and says where it is; a recording that cannot be finished is logged, not
   * fatal.
   */
  #finishRecording(): void {
    const recording = this.#deps.recording;
    if (!recording) return;
    recording.finish().then(
      (stored) => this.#events.publish({ type: 'recording', ...stored }),
      (error: unknown) => this.#log('recording failed', { error: String(error) }),
    );
  }

  #fail(error: unknown): void {
    this.#log('call failed', { error: String(error) });
    void this.end('error', 'failed', false);
  }

  // ---- bookkeeping --------------------------------------------------------------------------------------------

  /** The agent said `text`: the model hears it from now on (the transcript line waits until it has played). */
  #addAssistant(text: string): void {
    this.#conversation.push({ role: 'assistant', content: text });
  }

  /** A new utterance; its transcript line is published once the caller has heard it (or as much as played). */
  #speech(turn: number, text?: string, clauses?: SpeechHandle['clauses']): SpeechHandle {
    const speech = new SpeechHandle({
      turn,
      text,
      clauses,
      now: () => this.#now(),
      settled: (settled, heard: HeardSpeech) => {
        this.#unsettled.delete(settled);
        this.#events.line('assistant', heard.text, heard.startMs, heard.endMs, heard.interrupted);
      },
    });
    this.#unsettled.add(speech);
    return speech;
  }

  #setState(state: CallState): void {
    if (this.#state === state || this.#state === 'ended') return;
    this.#state = state;
    this.#events.publish({ type: 'state', state, atMs: Math.round(this.#now()) });
  }

  #now(): number {
    return performance.now() - this.#startedAt;
  }

  #log(event: string, detail?: object): void {
    this.#deps.log?.(event, { callId: this.#spec.callId, ...detail });
  }
}
