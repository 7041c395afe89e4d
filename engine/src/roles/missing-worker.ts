/**
 * Why an engine refuses a call when a kind of worker has none running, in words the person who set Parley up can act
 * on: what to install or set, and that a restart picks it up. The control plane passes this reason on in its 503, so
 * a fresh machine missing a Debian package says which one instead of "no engine accepted the call".
 */
import type { WorkerKind } from '../protocol/index.ts';
import { WorkerStreamError } from '../workers/client/worker-stream.ts';

/** Said when no worker of the kind answered; every line names the offline package and the cloud alternative. */
export const MISSING_WORKER_ADVICE: Readonly<Record<WorkerKind, string>> = {
  stt:
    'No speech recogniser is running: install pocketsphinx and pocketsphinx-en-us ' +
    '(apt-get install pocketsphinx pocketsphinx-en-us) and restart, or set PARLEY_STT=deepgram with DEEPGRAM_API_KEY ' +
    '(or PARLEY_STT=openai with OPENAI_API_KEY); with separate roles, start a process with the stt-worker role',
  tts:
    'No voice is running: install flite or espeak-ng (apt-get install flite espeak-ng), or run npm ci (which ' +
    "installs espeak-ng's WebAssembly build), and restart, or set " +
    'PARLEY_TTS=openai with OPENAI_API_KEY (or PARLEY_TTS=elevenlabs with ELEVENLABS_API_KEY); with separate roles, ' +
    'start a process with the tts-worker role',
  llm:
    'No language model worker took the call although one was heard on the bus: start a process with the llm-worker ' +
    'role and PARLEY_LLM_BASE_URL and PARLEY_LLM_MODEL set (parley start runs one); without one running, calls go ' +
    'on with scripted (FLOW) agents only',
};

/** A call refused because no worker of `kind` answered: its message is the advice. */
export class MissingWorkerError extends Error {
  override name = 'MissingWorkerError';
  readonly code = 'no_worker';
  readonly retryable = true;
  readonly kind: WorkerKind;

  constructor(kind: WorkerKind, options: { cause?: unknown } = {}) {
    super(MISSING_WORKER_ADVICE[kind], options);
    this.kind = kind;
  }
}

/** Opens a worker client, turning "no worker of this kind answered" into the advice for that kind. */
export async function openWorker<T>(kind: WorkerKind, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof WorkerStreamError && error.code === 'no_worker')
      throw new MissingWorkerError(kind, { cause: error });
    throw error;
  }
}
