/**
 * The widget's browser voice call (docs/architecture.md §15, §16): POST /widget/voice-session places the call and
 * answers a one-use participant token and `wsUrl`, the engine's signalling websocket; the page then carries the call
 * over RTCPeerConnection — the visitor's microphone out, the agent's voice into an <audio> element. Signalling is
 * JSON on `wsUrl`: the page sends `offer` and its ICE `candidate`s, the engine answers `answer` and may send
 * `hangup`; the page sends `hangup` to end the call.
 */
import { WidgetError, type Identity } from './widget-api.ts';

export type CallState = 'placing' | 'connecting' | 'connected' | 'ended';

export interface CallEvents {
  state(state: CallState): void;
  /** The call could not start or broke: what went wrong, for the visitor. */
  failed(error: WidgetError): void;
}

interface PlacedCall {
  token: string;
  wsUrl: string;
  sessionId: string;
}

/** A status the widget shows for a microphone the visitor or the browser refused (not an HTTP answer). */
export const MICROPHONE_REFUSED = -1;

/**
 * Echo cancellation keeps the agent from hearing itself through the visitor's speakers; automatic gain control
 * stays off: it ramps up at each onset after silence and garbles the first words the recogniser gets (in Chromium,
 * "please book me for" was heard as "ways but the four").
 */
const MICROPHONE: MediaTrackConstraints = { echoCancellation: true, noiseSuppression: true, autoGainControl: false };

export class BrowserCall {
  readonly #events: CallEvents;
  readonly #audio: HTMLAudioElement;
  #socket: WebSocket | undefined;
  #peer: RTCPeerConnection | undefined;
  #microphone: MediaStream | undefined;
  #state: CallState = 'placing';

  private constructor(events: CallEvents, audio: HTMLAudioElement) {
    this.#events = events;
    this.#audio = audio;
  }

  /** Places the call and connects it; `audio` plays the agent. Failures arrive as `failed`, then `ended`. */
  static start(
    api: string,
    widgetToken: string,
    agentId: string,
    who: Identity | undefined,
    audio: HTMLAudioElement,
    events: CallEvents,
  ): BrowserCall {
    const call = new BrowserCall(events, audio);
    void call.#run(api, widgetToken, agentId, who);
    return call;
  }

  get state(): CallState {
    return this.#state;
  }

  hangUp(): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify({ type: 'hangup' }));
    this.#end();
  }

  async #run(api: string, widgetToken: string, agentId: string, who: Identity | undefined): Promise<void> {
    this.#setState('placing');
    try {
      // The microphone first: a visitor who refuses it has placed (and been billed for) nothing.
      this.#microphone = await navigator.mediaDevices.getUserMedia({ audio: MICROPHONE }).catch(() => {
        throw new WidgetError(MICROPHONE_REFUSED, 'microphone refused');
      });
      const placed = await placeCall(api, widgetToken, agentId, who);
      if (this.#state === 'ended') return;
      await this.#connect(placed);
    } catch (error) {
      this.#events.failed(error instanceof WidgetError ? error : new WidgetError(0, String(error)));
      this.#end();
    }
  }

  async #connect(placed: PlacedCall): Promise<void> {
    const peer = new RTCPeerConnection();
    this.#peer = peer;
    for (const track of this.#microphone!.getTracks()) peer.addTrack(track, this.#microphone!);
    peer.ontrack = (event) => {
      this.#audio.srcObject = new MediaStream([event.track]);
      void this.#audio.play().catch(() => {});
    };
    peer.onconnectionstatechange = () => {
      if (peer.connectionState === 'connected') this.#setState('connected');
      if (peer.connectionState === 'failed') {
        this.#events.failed(new WidgetError(503, 'the audio connection failed'));
        this.#end();
      }
    };
    const socket = new WebSocket(placed.wsUrl);
    this.#socket = socket;
    peer.onicecandidate = (event) => {
      if (event.candidate && socket.readyState === WebSocket.OPEN)
        socket.send(JSON.stringify({ type: 'candidate', candidate: event.candidate.toJSON() }));
    };
    socket.onmessage = (message) => {
      const signal = JSON.parse(String(message.data)) as { type?: string; sdp?: string };
      if (signal.type === 'answer' && signal.sdp) void peer.setRemoteDescription({ type: 'answer', sdp: signal.sdp });
      if (signal.type === 'hangup') this.#end();
    };
    socket.onclose = () => this.#end();
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new WidgetError(503, 'the call could not be connected'));
    });
    this.#setState('connecting');
    await peer.setLocalDescription(await peer.createOffer());
    socket.send(JSON.stringify({ type: 'offer', sdp: peer.localDescription!.sdp }));
  }

  #setState(state: CallState): void {
    if (this.#state === 'ended') return;
    this.#state = state;
    this.#events.state(state);
  }

  #end(): void {
    if (this.#state === 'ended') return;
    this.#setState('ended');
    this.#socket?.close(1000, 'bye');
    this.#peer?.close();
    for (const track of this.#microphone?.getTracks() ?? []) track.stop();
    this.#audio.srcObject = null;
  }
}

async function placeCall(api: string, widgetToken: string, agentId: string, who?: Identity): Promise<PlacedCall> {
  let response: Response;
  try {
    response = await fetch(`${api}/widget/voice-session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${widgetToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        agentId,
        ...(who ? { participantName: who.participantName, participantNumber: who.phoneNumber } : {}),
      }),
    });
  } catch {
    throw new WidgetError(0, 'network');
  }
  const payload = (await response.json().catch(() => ({}))) as { data?: PlacedCall; message?: string };
  if (!response.ok || !payload.data) throw new WidgetError(response.status, payload.message ?? response.statusText);
  return payload.data;
}
