/**
 * Builds the providers a worker serves from configuration: the configured default, plus the offline ones this
 * machine can run (so an agent may still pick flite or espeak when the default is a cloud voice). A cloud default
 * that cannot be built (no key) is an error at start, not at the first call. Without Debian's flite and espeak-ng,
 * the offline voice is espeak-ng's WebAssembly build from npm (espeak-wasm), so a machine set up by `npm ci` alone
 * still speaks; the worker role says what to install for the better voice. An offline recogniser has no such
 * fallback: without Debian's pocketsphinx the STT list may be empty, and the worker role says what to install.
 */
import { DeepgramStt } from '../providers/deepgram/index.ts';
import { ElevenLabsTts } from '../providers/elevenlabs/index.ts';
import { createEspeakTts } from '../providers/espeak/espeak-tts.ts';
import { createEspeakWasmTts } from '../providers/espeak-wasm/espeak-wasm-tts.ts';
import { createFliteTts } from '../providers/flite/flite-tts.ts';
import type { LlmProvider } from '../providers/llm-provider.ts';
import { OpenAiCompatLlm, OpenAiCompatStt, OpenAiCompatTts } from '../providers/openai-compat/index.ts';
import { createPocketsphinxStt } from '../providers/pocketsphinx/pocketsphinx-stt.ts';
import type { SttProvider } from '../providers/stt-provider.ts';
import type { TtsProvider } from '../providers/tts-provider.ts';
import type { EngineConfig } from './engine-config.ts';

const OPENAI_URL = 'https://api.openai.com/v1';
/** OpenAI models used when the provider is openai and no model is configured. */
const OPENAI_STT_MODEL = 'whisper-1';
const OPENAI_TTS_MODEL = 'tts-1';

export class ProviderConfigError extends Error {
  override name = 'ProviderConfigError';
  readonly code = 'provider_unavailable';
}

export function llmProviders(config: EngineConfig): LlmProvider[] {
  return config.llm ? [new OpenAiCompatLlm(config.llm)] : [];
}

export function sttProviders(config: EngineConfig): { providers: SttProvider[]; defaultName: string } {
  const providers: SttProvider[] = [];
  const offline = tryBuild(() => createPocketsphinxStt());
  if (offline) providers.push(offline);
  switch (config.sttProvider) {
    case 'pocketsphinx':
      break;
    case 'deepgram':
      if (!config.deepgramApiKey) throw new ProviderConfigError('PARLEY_STT=deepgram needs DEEPGRAM_API_KEY');
      providers.push(new DeepgramStt({ apiKey: config.deepgramApiKey, baseUrl: config.sttBaseUrl }));
      break;
    case 'openai':
      providers.push(
        new OpenAiCompatStt({
          baseUrl: config.sttBaseUrl ?? OPENAI_URL,
          apiKey: config.openaiApiKey,
          model: OPENAI_STT_MODEL,
        }),
      );
      break;
    default:
      throw new ProviderConfigError(
        `PARLEY_STT: unknown provider "${config.sttProvider}" (pocketsphinx, deepgram, openai)`,
      );
  }
  return {
    providers,
    defaultName: providers.some((p) => p.name === config.sttProvider)
      ? config.sttProvider
      : (providers[0]?.name ?? config.sttProvider),
  };
}

export function ttsProviders(config: EngineConfig): { providers: TtsProvider[]; defaultName: string } {
  const providers: TtsProvider[] = [];
  const flite = tryBuild(() => createFliteTts());
  const espeak = tryBuild(() => createEspeakTts());
  if (flite) providers.push(flite);
  if (espeak) providers.push(espeak);
  // Only when neither Debian voice is here: the same espeak-ng, slower to start and a process of ~100 MB more.
  const fallback = flite || espeak ? undefined : tryBuild(() => createEspeakWasmTts());
  if (fallback) providers.push(fallback);
  switch (config.ttsProvider) {
    case 'flite':
    case 'espeak':
      break;
    case 'elevenlabs':
      if (!config.elevenlabsApiKey) throw new ProviderConfigError('PARLEY_TTS=elevenlabs needs ELEVENLABS_API_KEY');
      providers.push(new ElevenLabsTts({ apiKey: config.elevenlabsApiKey, baseUrl: config.ttsBaseUrl }));
      break;
    case 'openai':
      providers.push(
        new OpenAiCompatTts({
          baseUrl: config.ttsBaseUrl ?? OPENAI_URL,
          apiKey: config.openaiApiKey,
          model: OPENAI_TTS_MODEL,
        }),
      );
      break;
    default:
      throw new ProviderConfigError(
        `PARLEY_TTS: unknown provider "${config.ttsProvider}" (flite, espeak, openai, elevenlabs)`,
      );
  }
  const defaultName = providers.some((p) => p.name === config.ttsProvider)
    ? config.ttsProvider
    : (providers[0]?.name ?? config.ttsProvider);
  // The default voice loads now, so the first call's greeting does not wait ~2 s for it.
  if (fallback && defaultName === fallback.name) fallback.start();
  return { providers, defaultName };
}

/** An offline provider, or undefined when its binary is missing on this machine. */
function tryBuild<T>(build: () => T): T | undefined {
  try {
    return build();
  } catch {
    return undefined;
  }
}
