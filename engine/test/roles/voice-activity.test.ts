/** PARLEY_VAD: which detector the engine role gives its calls, and what happens when the model is missing. */
import { describe, expect, it } from 'vitest';
import { MemoryBus } from '../../src/bus/index.ts';
import { startEngineRole } from '../../src/roles/start-engine-role.ts';
import { loadVoiceActivity } from '../../src/roles/voice-activity.ts';
import { EnergyVad } from '../../src/session/energy-vad.ts';
import { GatedSileroVad } from '../../src/session/gated-silero-vad.ts';

const config = { sttProvider: 'pocketsphinx', ttsProvider: 'flite' };

describe('voice activity of the engine role', () => {
  it('runs Silero behind the gate by default when the model is installed', async () => {
    const bus = new MemoryBus();
    const role = await startEngineRole(config, bus, () => {});
    expect(role.voiceActivity).toBe('silero');
    await role.close();
    await bus.close();
  });

  it('falls back to the gate alone under auto when the model is missing, and says so', async () => {
    const logged: string[] = [];
    const source = await loadVoiceActivity({ vad: 'auto', vadModelPath: '/missing/model.onnx' }, (event) =>
      logged.push(event),
    );
    expect(source.kind).toBe('energy');
    expect(source.create('call')).toBeInstanceOf(EnergyVad);
    expect(logged.join(' ')).toMatch(/did not load/);
  });

  it('refuses to start under PARLEY_VAD=silero without the model, naming the file', async () => {
    await expect(loadVoiceActivity({ vad: 'silero', vadModelPath: '/missing/model.onnx' }, () => {})).rejects.toThrow(
      /PARLEY_VAD=silero.*\/missing\/model\.onnx/,
    );
  });

  it('never loads the model under PARLEY_VAD=energy', async () => {
    const source = await loadVoiceActivity({ vad: 'energy', vadModelPath: '/missing/model.onnx' }, () => {});
    expect(source.kind).toBe('energy');
  });

  it('gives each call its own detector', async () => {
    const source = await loadVoiceActivity({ vad: 'silero' }, () => {});
    const a = source.create('a');
    const b = source.create('b');
    expect(a).toBeInstanceOf(GatedSileroVad);
    expect(a).not.toBe(b);
    await source.close();
  });
});
