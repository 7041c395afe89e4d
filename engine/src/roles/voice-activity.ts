/**
 * The engine role's choice of voice activity detector (PARLEY_VAD): Silero v5 behind the energy gate when the model
 * loads, the gate alone otherwise. `auto` (the default) falls back with a warning, so a machine where the model could
 * not be installed still takes calls; `silero` refuses to start without it; `energy` never loads it.
 */
import { SileroModel } from '../providers/silero/silero-model.ts';
import { EnergyVad, type FrameClassifier } from '../session/energy-vad.ts';
import { GatedSileroVad } from '../session/gated-silero-vad.ts';
import type { EngineConfig } from './engine-config.ts';
import type { RoleLog } from './role-log.ts';

export interface VoiceActivitySource {
  /** What this engine runs: `silero` (behind the gate) or `energy` (the gate alone). */
  readonly kind: 'silero' | 'energy';
  /** A new detector for one call. */
  create(callId: string): FrameClassifier;
  close(): Promise<void>;
}

export async function loadVoiceActivity(
  config: Pick<EngineConfig, 'vad' | 'vadModelPath'>,
  log: RoleLog,
): Promise<VoiceActivitySource> {
  const mode = config.vad ?? 'auto';
  if (mode === 'energy') return energyOnly;
  let model: SileroModel;
  try {
    model = await SileroModel.load(config.vadModelPath);
  } catch (error) {
    if (mode === 'silero')
      throw new Error(`PARLEY_VAD=silero: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    log('voice activity: the Silero model did not load; using the energy gate alone', { error: String(error) }, 'warn');
    return energyOnly;
  }
  return {
    kind: 'silero',
    create: (callId) =>
      new GatedSileroVad(model, (error) =>
        log(
          'voice activity: Silero failed; this call continues on the energy gate',
          { callId, error: String(error) },
          'warn',
        ),
      ),
    close: () => model.close(),
  };
}

const energyOnly: VoiceActivitySource = {
  kind: 'energy',
  create: () => new EnergyVad(),
  close: async () => {},
};
