/**
 * A local contract fake of the carriers (docs/architecture.md §7.8): carrier-a (Plivo), carrier-b (Twilio) and carrier-c
 * (Exotel-style) on one HTTP server, each at its own API paths, so one URL serves as every
 * PARLEY_CARRIER_<X>_API_URL. It places calls as the carrier's API does, answers them (or not), fetches and reads
 * the answer, opens the media stream and plays the called party on it (SimStream), and posts the carrier's status
 * callbacks, signed as the carrier signs them. Inbound, it rings the application's webhook as a carrier does when
 * one of the account's numbers is called.
 *
 * ```ts
 * const carriers = await CarrierSimulator.start();
 * // PARLEY_CARRIER_B_API_URL = carriers.url; connect carrier-b with carriers.accounts['carrier-b'] …
 * const call = await carriers.nextCall();          // placed by the control plane through the API
 * const stream = await call.stream;                 // answered, answer XML read, media stream open
 * await stream.say(pcm16k, 16_000);                 // the callee speaks
 * await stream.until(() => stream.marks().length > 0, 'the agent’s reply');
 * await call.hangup();                              // the callee hangs up; status callbacks follow
 * ```
 */
import { randomBytes } from 'node:crypto';
import { startHttp, type RunningServer } from '../http-kit.ts';
import { carrierAApi } from './carrier-a-api.ts';
import { carrierBApi } from './carrier-b-api.ts';
import { carrierCApi } from './carrier-c-api.ts';
import type { CallDriver, SimCall, SimOutcome } from './sim-call.ts';
import type { CarrierApi, InboundCallOptions, SimAccounts, SimContext, SimRefusal } from './sim-context.ts';
import type { SimCarrier } from './sim-format.ts';
import { reply } from './sim-http.ts';

/** How long a simulated phone rings before the callee picks up, ms, unless told otherwise. */
export const SIM_RING_MS = 100;
/** Default wait of `nextCall`, ms. */
const NEXT_CALL_WAIT_MS = 10_000;

export interface CarrierSimulatorOptions {
  /** Credentials each carrier's API accepts; generated when omitted. */
  accounts?: Partial<SimAccounts>;
  /** How long outbound calls ring before they are answered, ms. */
  ringMs?: number;
}

export class CarrierSimulator {
  /** Base URL of every carrier's API (`http://127.0.0.1:<port>`). */
  readonly url: string;
  readonly accounts: SimAccounts;
  /** Every call so far, outbound and inbound, in the order they began. */
  readonly calls: SimCall[] = [];
  /** API requests refused (bad credentials, missing parameters), in order. */
  readonly refusals: SimRefusal[] = [];
  readonly #server: RunningServer;
  readonly #apis: Record<SimCarrier, CarrierApi>;
  readonly #outcomes: SimOutcome[] = [];
  readonly #voicebotApps = new Map<string, string>();
  readonly #runs: Promise<void>[] = [];
  #outboundCallsTaken = 0;
  readonly #waiters: (() => void)[] = [];

  private constructor(
    server: RunningServer,
    accounts: SimAccounts,
    ringMs: number,
    build: (context: SimContext) => Record<SimCarrier, CarrierApi>,
  ) {
    this.#server = server;
    this.url = server.origin;
    this.accounts = accounts;
    const context: SimContext = {
      accounts,
      ringMs,
      voicebotApps: this.#voicebotApps,
      takeOutcome: () => this.#outcomes.shift() ?? 'answer',
      register: (call, driver) => this.#register(call, driver),
      find: (carrier, sid) => this.calls.find((c) => c.carrier === carrier && c.sid === sid),
      refuse: (res, refusal, body, contentType) => {
        this.refusals.push(refusal);
        reply(res, refusal.status, body, contentType);
      },
    };
    this.#apis = build(context);
  }

  static async start(options: CarrierSimulatorOptions = {}): Promise<CarrierSimulator> {
    const accounts: SimAccounts = {
      'carrier-a': options.accounts?.['carrier-a'] ?? {
        authId: `MA${randomBytes(9).toString('hex').toUpperCase()}`,
        authToken: randomBytes(20).toString('hex'),
      },
      'carrier-b': options.accounts?.['carrier-b'] ?? {
        accountSid: `AC${randomBytes(16).toString('hex')}`,
        authToken: randomBytes(16).toString('hex'),
      },
      'carrier-c': options.accounts?.['carrier-c'] ?? {
        accountSid: `parley${randomBytes(4).toString('hex')}`,
        apiKey: randomBytes(16).toString('hex'),
        apiToken: randomBytes(16).toString('hex'),
      },
    };
    let simulator: CarrierSimulator | undefined;
    const server = await startHttp(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://carrier.invalid');
      for (const api of Object.values(simulator!.#apis)) if (await api.handle(req, res, url)) return;
      reply(res, 404, { message: `no carrier API at ${url.pathname}` });
    });
    simulator = new CarrierSimulator(server, accounts, options.ringMs ?? SIM_RING_MS, (context) => ({
      'carrier-a': carrierAApi(context),
      'carrier-b': carrierBApi(context),
      'carrier-c': carrierCApi(context),
    }));
    return simulator;
  }

  /**
   * The next outbound call placed through any carrier's API that no earlier `nextCall` returned, as soon as the
   * API accepted it (it is ringing or about to).
   */
  nextCall(timeoutMs = NEXT_CALL_WAIT_MS): Promise<SimCall> {
    return new Promise((resolve, reject) => {
      const take = () => {
        const outbound = this.calls.filter((c) => c.direction === 'outbound');
        if (outbound.length <= this.#outboundCallsTaken) return false;
        resolve(outbound[this.#outboundCallsTaken++]!);
        return true;
      };
      if (take()) return;
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(
          new Error(
            `no call was placed within ${timeoutMs} ms (refused requests: ${this.refusals.map((r) => `${r.carrier} ${r.status} ${r.message}`).join('; ') || 'none'})`,
          ),
        );
      }, timeoutMs);
      const waiter = () => {
        if (!take()) return;
        clearTimeout(timer);
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      };
      this.#waiters.push(waiter);
    });
  }

  /** How the next outbound calls go, in order (then they are answered): `busy`, `no-answer`, `failed`, `answer`. */
  answerNextWith(...outcomes: SimOutcome[]): void {
    this.#outcomes.push(...outcomes);
  }

  /** carrier-c: the Voicebot applet of flow `appId` streams to `url` (wss://…, or https://… answering `{ url }`). */
  setVoicebotApp(appId: string, url: string): void {
    this.#voicebotApps.set(appId, url);
  }

  /**
   * One of the account's numbers is called: the carrier asks the application what to do (signed as the carrier
   * signs), answers, and streams as the answer says.
   */
  inboundCall(carrier: SimCarrier, options: InboundCallOptions): SimCall {
    return this.#apis[carrier].inbound(options);
  }

  /** Hangs up every call still going, waits for their last callbacks, and stops the API. */
  async close(): Promise<void> {
    await Promise.all(this.calls.map((call) => call.hangup()));
    await Promise.all(this.#runs);
    await this.#server.close();
  }

  #register(call: SimCall, driver: CallDriver): void {
    this.calls.push(call);
    this.#runs.push(call.run(driver));
    for (const waiter of [...this.#waiters]) waiter();
  }
}
