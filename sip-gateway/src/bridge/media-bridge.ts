/**
 * The gateway's side of the media bridge (engine/src/protocol/sip.ts): one call's audio between its RTP session
 * and the engine over the bus. `start` with the stream token opens it; caller audio goes out as PCM16 8 kHz audio
 * frames on `v1.media.<callId>.in` with DTMF and mark echoes beside it; the engine's frames and orders come back
 * on `.out`. `stop` closes it (the SIP leg ended) and nothing is published after it.
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import {
  decodeAudioFrame,
  encodeAudioFrame,
  isAudioFrame,
  SIP_MEDIA_SAMPLE_RATE,
  sipCodecs,
  subjects,
  type MediaBridgeInbound,
  type MediaBridgeOutbound,
} from '@parley/engine/protocol';
import type { Codec } from '../sip/sdp.ts';

/** What the bridge drives on the SIP side. */
export interface BridgeLeg {
  play(samples: Int16Array): void;
  mark(name: string): void;
  clear(): void;
  sendDigits(digits: string): void;
  /** The engine ended the call, or refused its token. */
  hangup(reason: string): void;
  transfer(to: string): void;
}

export interface MediaBridgeStats {
  framesIn: number;
  framesOut: number;
  /** Messages on `.out` that were neither an audio frame nor a bridge message. */
  malformed: number;
  accepted: boolean;
}

export class MediaBridge {
  readonly #bus: Bus;
  readonly #callId: string;
  readonly #leg: BridgeLeg;
  #subscription: Subscription | undefined;
  #sequence = 0;
  #open = false;
  readonly #stats: MediaBridgeStats = { framesIn: 0, framesOut: 0, malformed: 0, accepted: false };

  constructor(bus: Bus, callId: string, leg: BridgeLeg) {
    this.#bus = bus;
    this.#callId = callId;
    this.#leg = leg;
  }

  get stats(): Readonly<MediaBridgeStats> {
    return this.#stats;
  }

  /** Subscribes the engine's side, then says `start` with the token. */
  open(streamToken: string, codec: Codec, gatewayId: string): void {
    if (this.#open) return;
    this.#open = true;
    const subscription = this.#bus.subscribe(subjects.mediaOut(this.#callId));
    this.#subscription = subscription;
    void (async () => {
      for await (const message of subscription) this.#fromEngine(message.data);
    })().catch(() => {});
    this.#publish({ type: 'start', streamToken, codec, gatewayId });
  }

  /** 20 ms of the caller's audio. */
  audio(samples: Int16Array): void {
    if (!this.#open) return;
    this.#stats.framesIn += 1;
    this.#bus.publish(
      subjects.mediaIn(this.#callId),
      encodeAudioFrame({ sampleRate: SIP_MEDIA_SAMPLE_RATE, requestNumber: 0, sequence: this.#sequence++, samples }),
    );
  }

  dtmf(digit: string): void {
    this.#publish({ type: 'dtmf', digit });
  }

  /** How the engine's transfer went (it leaves the call on success, keeps it otherwise). */
  transferResult(result: { ok: boolean; sipStatus?: number; reason: string }): void {
    this.#publish({
      type: 'transfer_result',
      ok: result.ok,
      reason: result.reason,
      ...(result.sipStatus !== undefined && { sipStatus: result.sipStatus }),
    });
  }

  markPlayed(name: string): void {
    this.#publish({ type: 'mark', name });
  }

  /** The SIP leg is over; idempotent. */
  stop(reason: string): void {
    if (!this.#open) return;
    this.#publish({ type: 'stop', reason });
    this.#open = false;
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
  }

  #publish(message: MediaBridgeInbound): void {
    if (!this.#open) return;
    this.#bus.publish(subjects.mediaIn(this.#callId), sipCodecs.bridgeIn.encode(message));
  }

  #fromEngine(data: Uint8Array): void {
    if (!this.#open) return;
    if (isAudioFrame(data)) {
      try {
        const frame = decodeAudioFrame(data);
        if (frame.sampleRate !== SIP_MEDIA_SAMPLE_RATE) throw new Error('not 8 kHz');
        this.#stats.framesOut += 1;
        this.#leg.play(frame.samples);
      } catch {
        this.#stats.malformed += 1;
      }
      return;
    }
    let message: MediaBridgeOutbound;
    try {
      message = sipCodecs.bridgeOut.decode(data);
    } catch {
      this.#stats.malformed += 1;
      return;
    }
    switch (message.type) {
      case 'accepted':
        this.#stats.accepted = true;
        return;
      case 'rejected':
        return this.#leg.hangup(`stream token refused: ${message.reason}`);
      case 'mark':
        return this.#leg.mark(message.name);
      case 'clear':
        return this.#leg.clear();
      case 'dtmf':
        return this.#leg.sendDigits(message.digits);
      case 'hangup':
        return this.#leg.hangup(message.reason);
      case 'transfer':
        return this.#leg.transfer(message.to);
    }
  }
}
