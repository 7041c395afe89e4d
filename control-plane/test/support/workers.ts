/**
 * Real engine worker roles for control-plane tests, started the way `parley start` starts them, on a bus of the
 * test's own: the TTS worker with this machine's flite and espeak-ng, the LLM worker against the engine's local
 * fake of an OpenAI-compatible server. Each test file gets its own bus namespace, so files running in parallel on
 * one NATS server never take each other's requests.
 */
import { randomBytes } from 'node:crypto';
import { startLlmWorkerRole, startTtsWorkerRole, type EngineConfig, type WorkerRoleHandle } from '@parley/engine';
import { namespacedBus, type Bus } from '@parley/engine/bus';
import { startFakeElevenLabs, startFakeOpenAi, type FakeElevenLabs, type FakeOpenAi } from '@parley/engine/testing';
import { createTestBus } from './bus.ts';

export { startFakeElevenLabs, type FakeElevenLabs, type FakeOpenAi };

/** The model the fake LLM serves; the key it requires. */
export const TEST_LLM_MODEL = 'gpt-test';
const TEST_LLM_KEY = 'sk-test-key';

/** Offline speech only: the providers every CI machine has (Debian flite, espeak-ng). */
export const OFFLINE_SPEECH: EngineConfig = { sttProvider: 'pocketsphinx', ttsProvider: 'flite' };

/** A test bus (NATS_URL or in-process) under a namespace of its own. */
export async function createIsolatedBus(): Promise<Bus> {
  return namespacedBus(await createTestBus(), `test.${randomBytes(6).toString('hex')}`);
}

export interface TestLlm {
  /** Script its answers with `fake.chat.enqueue(…)`; read what it was asked in `fake.chat.requests`. */
  fake: FakeOpenAi;
  role: WorkerRoleHandle;
  close(): Promise<void>;
}

/** An llm-worker role on `bus`, configured against a fresh fake OpenAI-compatible server. */
export async function startTestLlm(bus: Bus): Promise<TestLlm> {
  const fake = await startFakeOpenAi({ apiKey: TEST_LLM_KEY, models: [TEST_LLM_MODEL] });
  const config: EngineConfig = {
    ...OFFLINE_SPEECH,
    llm: { baseUrl: fake.baseUrl, apiKey: TEST_LLM_KEY, model: TEST_LLM_MODEL },
  };
  const role = await startLlmWorkerRole(config, bus, () => {});
  return {
    fake,
    role,
    async close() {
      await role.close();
      await fake.close();
    },
  };
}

/** A tts-worker role on `bus` with this machine's offline voices (plus whatever `config` adds). */
export async function startTestTts(bus: Bus, config: EngineConfig = OFFLINE_SPEECH): Promise<WorkerRoleHandle> {
  const role = await startTtsWorkerRole(config, bus, () => {});
  if (!role.worker) throw new Error('no TTS provider on this machine: install the Debian packages flite and espeak-ng');
  return role;
}
