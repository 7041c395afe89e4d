/**
 * One simulated browser call: dispatched over the bus as the control plane does, connected with a werift peer
 * (@parley/engine/testing's WebRtcCaller: ICE, DTLS-SRTP, 48 kHz Opus), then the caller says the calls bench's
 * sentence over and over with INTER_UTTERANCE_MS of silence between, whatever the agent does. The carriers' CallMeter
 * measures greeting, turns and gaps from the agent frames' arrival; BargeMeter the interruptions.
 */
import { webrtcSignallingUrl } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects } from '@parley/engine/protocol';
import { connectWebRtcCaller, type WebRtcCaller } from '@parley/engine/testing';
import { CallMeter } from '../calls/call-meter.ts';
import { INTER_UTTERANCE_MS, loadCallSpec } from '../calls/caller-line.ts';
import { BargeMeter } from './barge-meter.ts';

/** How long the engine may take to accept a call, ms. */
const DISPATCH_TIMEOUT_MS = 10_000;
/** The caller lets the greeting play this long, ms, then waits a random share of one utterance cycle more. */
const GREETING_ALLOWANCE_MS = 2_000;
/**
 * How long a peer may take to connect, ms: many peers handshaking at once in one process (DTLS in JavaScript) take
 * seconds each on a busy machine; past this the call counts as not up.
 */
const CONNECT_TIMEOUT_MS = 30_000;
/** The rate the caller's frames are decoded at (Opus at 48 kHz, as a browser plays it). */
const RECEIVE_RATE = 48_000;

export class BrowserLine {
  readonly callId: string;
  readonly meter = new CallMeter(RECEIVE_RATE);
  readonly barge = new BargeMeter();
  /** Dispatch → peer connection up, ms. */
  readonly connectMs: number;
  readonly #caller: WebRtcCaller;
  #stopped = false;
  #done: Promise<void> = Promise.resolve();

  private constructor(callId: string, caller: WebRtcCaller, connectMs: number) {
    this.callId = callId;
    this.#caller = caller;
    this.connectMs = connectMs;
  }

  /** Dispatches a call, connects it, and starts the caller talking (16 kHz `clip`). */
  static async open(bus: Bus, clip: Int16Array): Promise<BrowserLine> {
    const spec = loadCallSpec();
    const begun = performance.now();
    const reply = callCodecs.dispatchReply.decode(
      (await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: DISPATCH_TIMEOUT_MS })).data,
    );
    if (!reply.ok) throw new Error(`the engine refused the call: ${reply.code}: ${reply.message}`);
    if (!reply.mediaUrl) throw new Error('the engine runs no media server (its dispatch reply has no mediaUrl)');
    let line: BrowserLine | undefined;
    const caller = await connectWebRtcCaller(webrtcSignallingUrl(reply.mediaUrl, reply.streamToken), {
      keepAudio: false,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      onAudio: (samples, at) => {
        line?.meter.agentAudio(at, samples.length);
        line?.barge.agentAudio(at);
      },
    });
    line = new BrowserLine(spec.callId, caller, performance.now() - begun);
    line.meter.streamStarted(performance.now());
    line.#done = line.#talk(clip);
    return line;
  }

  async #talk(clip: Int16Array): Promise<void> {
    const cycleMs = (clip.length * 1000) / 16_000 + INTER_UTTERANCE_MS;
    await this.#caller.pause(GREETING_ALLOWANCE_MS + Math.random() * cycleMs);
    while (!this.#stopped) {
      await this.#caller.say(clip, {
        started: (at) => {
          this.meter.utteranceStarted(at);
          this.barge.utteranceStarted(at);
        },
        ended: (at) => {
          this.meter.utteranceEnded(at);
          this.barge.utteranceEnded(at);
        },
      });
      if (this.#stopped) break;
      await this.#caller.pause(INTER_UTTERANCE_MS);
    }
  }

  openWindow(at: number): void {
    this.meter.openWindow(at);
    this.barge.open();
  }

  closeWindow(at: number): void {
    this.meter.closeWindow(at);
    this.barge.close();
  }

  /** Stops talking, hangs up and resolves once the socket has closed. */
  async hangUp(): Promise<void> {
    this.#stopped = true;
    await this.#done;
    await this.#caller.hangup();
    await this.#caller.close();
  }
}
