/** What a carrier's API needs of the simulator that hosts it. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallDriver, SimCall, SimOutcome } from './sim-call.ts';
import type { SimCarrier } from './sim-format.ts';

/** Credentials each simulated carrier's API accepts. */
export interface SimAccounts {
  'carrier-a': { authId: string; authToken: string };
  'carrier-b': { accountSid: string; authToken: string };
  'carrier-c': { accountSid: string; apiKey: string; apiToken: string };
}

/** A call arriving at one of the account's numbers. */
export interface InboundCallOptions {
  /** The calling number. */
  from: string;
  /** The account's number that was called. */
  to: string;
  /**
   * Where the carrier asks what to do: carrier-b the number's VoiceUrl, carrier-a the application's answer_url,
   * carrier-c the voicebot applet's URL (a `wss://` stream, or an `https://` endpoint answering `{"url": "wss://…"}`).
   */
  url: string;
  /** Method of the request to `url`; the carrier's default (POST; carrier-c GET). */
  method?: 'GET' | 'POST';
  /** carrier-b the number's StatusCallback, carrier-a the application's hangup_url, carrier-c the flow's StatusCallback. */
  statusCallback?: string;
}

/** A request the simulated API refused, for tests to look at. */
export interface SimRefusal {
  carrier: SimCarrier;
  method: string;
  path: string;
  status: number;
  message: string;
}

export interface SimContext {
  readonly accounts: SimAccounts;
  readonly ringMs: number;
  /** Voicebot applets of carrier-c flows, by app id: the URL the applet streams to. */
  readonly voicebotApps: ReadonlyMap<string, string>;
  /** How the next outbound call ends up. */
  takeOutcome(): SimOutcome;
  /** Starts running `call` and makes it visible to tests. */
  register(call: SimCall, driver: CallDriver): void;
  find(carrier: SimCarrier, sid: string): SimCall | undefined;
  /** Records a refused API request and answers it. */
  refuse(res: ServerResponse, refusal: SimRefusal, body: unknown, contentType?: string): void;
}

export interface CarrierApi {
  readonly carrier: SimCarrier;
  /** Serves `req` when its path belongs to this carrier's API; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** A call arriving at one of the account's numbers. */
  inbound(options: InboundCallOptions): SimCall;
}
