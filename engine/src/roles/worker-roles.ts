/**
 * The stt-worker, llm-worker and tts-worker roles: each joins its kind's queue group with the providers the
 * configuration gives it. In embedded mode all three run in the one process; in scale-out, as many as needed.
 */
import type { Bus } from '../bus/index.ts';
import { ESPEAK_WASM_NAME } from '../providers/espeak-wasm/espeak-wasm-process.ts';
import { llmWorker } from '../workers/llm/llm-worker.ts';
import { sttWorker } from '../workers/stt/stt-worker.ts';
import { ttsWorker } from '../workers/tts/tts-worker.ts';
import { answerVoiceListings } from '../workers/tts/voice-listing.ts';
import { startWorker, type WorkerHandle } from '../workers/worker-host.ts';
import type { EngineConfig } from './engine-config.ts';
import { llmProviders, sttProviders, ttsProviders } from './provider-factory.ts';
import type { RoleLog } from './role-log.ts';
import { joinWorkerHealth } from './worker-health-server.ts';

export interface WorkerRoleHandle {
  readonly role: string;
  readonly worker: WorkerHandle | undefined;
  close(): Promise<void>;
}

export async function startSttWorkerRole(config: EngineConfig, bus: Bus, log: RoleLog): Promise<WorkerRoleHandle> {
  const { providers, defaultName } = sttProviders(config);
  if (providers.length === 0)
    return idle(
      'stt-worker',
      log,
      `no speech recogniser available for PARLEY_STT=${config.sttProvider}: install Debian's pocketsphinx and pocketsphinx-en-us, or set PARLEY_STT=deepgram or openai`,
    );
  if (defaultName !== config.sttProvider)
    log(`PARLEY_STT=${config.sttProvider} is not installed here; using ${defaultName}`, {}, 'warn');
  return handle('stt-worker', config, startWorker(bus, sttWorker(providers, defaultName), log), log);
}

export async function startTtsWorkerRole(config: EngineConfig, bus: Bus, log: RoleLog): Promise<WorkerRoleHandle> {
  const { providers, defaultName } = ttsProviders(config);
  if (providers.length === 0)
    return idle(
      'tts-worker',
      log,
      `no voice available for PARLEY_TTS=${config.ttsProvider}: install Debian's flite or espeak-ng (or run npm ci, which installs espeak-ng's WebAssembly build), or set PARLEY_TTS=openai or elevenlabs`,
    );
  if (defaultName === ESPEAK_WASM_NAME)
    log(
      `PARLEY_TTS=${config.ttsProvider} is not installed here; speaking with espeak-wasm (espeak-ng built to WebAssembly, from npm). For the better voice: apt-get install ${config.ttsProvider === 'espeak' ? 'espeak-ng' : 'flite'}`,
      {},
      'warn',
    );
  else if (defaultName !== config.ttsProvider)
    log(`PARLEY_TTS=${config.ttsProvider} is not installed here; using ${defaultName}`, {}, 'warn');
  const worker = startWorker(bus, ttsWorker(providers, defaultName), log);
  const voices = answerVoiceListings(bus, { workerId: worker.workerId, providers, defaultProvider: defaultName, log });
  return handle(
    'tts-worker',
    config,
    worker,
    log,
    () => voices.stop(),
    async () => {
      await Promise.all(providers.map((provider) => provider.close?.()));
    },
  );
}

/** Without a configured LLM the role runs no worker: no heartbeat announces a model, so engines know there is none. */
export async function startLlmWorkerRole(config: EngineConfig, bus: Bus, log: RoleLog): Promise<WorkerRoleHandle> {
  const providers = llmProviders(config);
  if (providers.length === 0)
    return idle('llm-worker', log, 'no LLM configured (PARLEY_LLM_BASE_URL): PROMPT agents will greet, then say so');
  return handle('llm-worker', config, startWorker(bus, llmWorker(providers), log), log);
}

/** A role with nothing to serve on this machine: it says why, and runs no worker. */
function idle(role: string, log: RoleLog, why: string): WorkerRoleHandle {
  log(why, { role }, 'warn');
  return { role, worker: undefined, close: async () => {} };
}

/**
 * @param stopAlso what the role runs beside its worker (the TTS voice listing), stopped before it
 * @param release what its providers keep running (espeak-wasm's program), released once the worker has stopped
 */
async function handle(
  role: string,
  config: EngineConfig,
  worker: WorkerHandle,
  log: RoleLog,
  stopAlso?: () => Promise<void>,
  release?: () => Promise<void>,
): Promise<WorkerRoleHandle> {
  log('worker started', { role, workerId: worker.workerId });
  let health: Awaited<ReturnType<typeof joinWorkerHealth>> | undefined;
  if (config.workerHealth) {
    try {
      health = await joinWorkerHealth({ metricsToken: config.metricsToken, ...config.workerHealth }, worker);
    } catch (error) {
      await stopAlso?.();
      await worker.stop();
      await release?.();
      throw error;
    }
    log('worker health', { role, port: health.port });
  }
  return {
    role,
    worker,
    async close() {
      await health?.leave();
      await stopAlso?.();
      await worker.stop();
      await release?.();
    },
  };
}
