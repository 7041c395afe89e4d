/**
 * A SIP gateway with everything behind it, for the gateway's tests: a test bus (NATS when NATS_URL is set, else
 * in-process, under a namespace of its own), a real engine role with real workers — flite TTS, pocketsphinx STT,
 * the LLM worker against the engine's fake OpenAI-compatible server — and, standing in for the control plane, a
 * responder on `v1.sip.inbound` that dispatches each INVITE to that engine (or refuses it as told). Every call
 * event on the bus is kept.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startEngineRole,
  startLlmWorkerRole,
  startSttWorkerRole,
  startTtsWorkerRole,
  type EngineConfig,
  type EngineRole,
  type WorkerRoleHandle,
} from '@parley/engine';
import { connectBus, namespacedBus, type Bus, type Subscription } from '@parley/engine/bus';
import {
  callCodecs,
  queues,
  sipCodecs,
  subjects,
  type CallEvent,
  type CallSpec,
  type SipInboundOffer,
  type SipInboundReply,
  type SipTrunkTarget,
} from '@parley/engine/protocol';
import { startFakeOpenAi, type FakeOpenAi } from '@parley/engine/testing';
import { SipGateway, type SipGatewayOptions } from '../../src/index.ts';

const LLM_MODEL = 'gpt-test';
const LLM_KEY = 'sk-test';
const OFFLINE: EngineConfig = { sttProvider: 'pocketsphinx', ttsProvider: 'flite' };
/**
 * Short SIP timers, for the tests that wait for Timer B/F/H (6.4 s with T1 100 ms). Tests against SIPp keep RFC
 * 3261's: a SIPp scenario takes a retransmission it did not expect as a failed call, and a loaded machine can
 * take longer than 100 ms to answer.
 */
export const TEST_TIMERS = { t1: 100, t2: 400, t4: 500 };

export type Refusal = Extract<SipInboundReply, { ok: false }>;

export class GatewayRig {
  bus!: Bus;
  engine!: EngineRole;
  llm!: FakeOpenAi;
  gateway!: SipGateway;
  dir!: string;
  readonly events: (CallEvent & { callId: string })[] = [];
  readonly offers: SipInboundOffer[] = [];
  /** The next inbound INVITEs are refused with these, in order. */
  readonly refusals: Refusal[] = [];
  /** Changes the token the stand-in control plane hands the gateway (a forged one, for refusal tests). */
  tokenFor: (real: string) => string = (real) => real;
  /** The agent of inbound calls. */
  agent: Partial<CallSpec['agent']> = {};
  /** How inbound calls may be transferred: REFER, or a bridged new leg by this trunk. */
  transfer: { referEnabled: boolean; trunk?: SipTrunkTarget } = { referEnabled: true };
  readonly logs: { event: string; detail?: Record<string, unknown> }[] = [];
  #workers: WorkerRoleHandle[] = [];
  #subscriptions: Subscription[] = [];
  #listeners = new Set<() => void>();

  static async start(options: Partial<SipGatewayOptions> = {}): Promise<GatewayRig> {
    const rig = new GatewayRig();
    rig.dir = await mkdtemp(join(tmpdir(), 'parley-sip-'));
    rig.bus = namespacedBus(
      await connectBus(process.env.NATS_URL || undefined, 'parley-sip-test'),
      `test.${randomBytes(6).toString('hex')}`,
    );
    rig.llm = await startFakeOpenAi({ apiKey: LLM_KEY, models: [LLM_MODEL] });
    const config: EngineConfig = {
      ...OFFLINE,
      llm: { baseUrl: rig.llm.baseUrl, apiKey: LLM_KEY, model: LLM_MODEL },
      vad: 'energy',
    };
    const quiet = () => {};
    rig.#workers.push(await startTtsWorkerRole(config, rig.bus, quiet));
    rig.#workers.push(await startSttWorkerRole(config, rig.bus, quiet));
    rig.#workers.push(await startLlmWorkerRole(config, rig.bus, quiet));
    rig.engine = await startEngineRole(config, rig.bus, (event, detail) =>
      rig.logs.push({ event, detail: detail as Record<string, unknown> }),
    );
    rig.#answerInbound();
    const events = rig.bus.subscribe(subjects.allCallEvents());
    rig.#subscriptions.push(events);
    void (async () => {
      for await (const message of events) {
        rig.events.push({ ...callCodecs.event.decode(message.data), callId: message.subject.split('.').at(-2)! });
        for (const listener of [...rig.#listeners]) listener();
      }
    })();
    // Each test file its own slice of the RTP range, so files running in parallel never compete for ports.
    const rtpPortMin = 42_000 + Math.floor(Math.random() * 200) * 100;
    rig.gateway = await SipGateway.start(rig.bus, {
      host: '127.0.0.1',
      sipPort: 0,
      rtpPortMin,
      rtpPortMax: rtpPortMin + 99,
      log: (event, detail) => rig.logs.push({ event, ...(detail && { detail }) }),
      ...options,
    });
    return rig;
  }

  spec(callId: string, direction: 'INBOUND' | 'OUTBOUND', phoneNumber: string): CallSpec {
    return {
      callId,
      organisationId: 'org-sip',
      direction,
      participant: { name: 'Ravi', phoneNumber },
      variables: {},
      limits: { maxDurationMs: 120_000, inactivityMs: 60_000 },
      agent: {
        id: 'agent-sip',
        name: 'Maya',
        agentType: 'VOICE',
        builderMode: 'PROMPT',
        agentIdentity: 'You are Maya.',
        agentTask: 'Book appointments.',
        greetingMessage: 'Hello, this is Maya from the clinic. How can I help you today?',
        language: 'en-US',
        customVariables: {},
        functionTools: [],
        ...this.agent,
      },
    };
  }

  /** Dispatches `spec` to the engine as the control plane would; the engine's stream token. */
  async dispatch(spec: CallSpec): Promise<string> {
    const reply = callCodecs.dispatchReply.decode(
      (await this.bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: 15_000 })).data,
    );
    if (!reply.ok) throw new Error(`dispatch refused: ${reply.code} ${reply.message}`);
    return reply.streamToken;
  }

  #answerInbound(): void {
    const inbound = this.bus.subscribe(subjects.sipInbound(), { queue: queues.controlPlane });
    this.#subscriptions.push(inbound);
    void (async () => {
      for await (const message of inbound) {
        const offer = sipCodecs.inboundOffer.decode(message.data);
        this.offers.push(offer);
        const refusal = this.refusals.shift();
        if (refusal) {
          message.respond(sipCodecs.inboundReply.encode(refusal));
          continue;
        }
        const callId = `call${randomBytes(8).toString('hex')}`;
        const streamToken = await this.dispatch(this.spec(callId, 'INBOUND', offer.from));
        message.respond(
          sipCodecs.inboundReply.encode({
            ok: true,
            callId,
            organisationId: 'org-sip',
            streamToken: this.tokenFor(streamToken),
            sipConfigurationId: 'sipcfg-test',
            ...this.transfer,
          }),
        );
      }
    })();
  }

  eventsOf(callId: string): CallEvent[] {
    return this.events.filter((e) => e.callId === callId);
  }

  /** The first event (of any call, or of `callId`) matching `predicate`. */
  waitFor(
    predicate: (event: CallEvent & { callId: string }) => boolean,
    timeoutMs = 20_000,
  ): Promise<CallEvent & { callId: string }> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.find(predicate);
        if (!found) return;
        this.#listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(check);
        reject(
          new Error(
            `no matching call event in ${timeoutMs} ms; saw ${this.events.map((e) => (e.type === 'state' ? e.state : e.type === 'telephony' ? `telephony:${e.status}` : e.type)).join(', ')}`,
          ),
        );
      }, timeoutMs);
      this.#listeners.add(check);
      check();
    });
  }

  /** Resolves once `condition` holds (polled: for gateway state that has no event). */
  async until(condition: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async close(): Promise<void> {
    await this.gateway?.close();
    await this.engine?.close();
    for (const worker of this.#workers) await worker.close();
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    await this.llm?.close();
    await this.bus?.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
