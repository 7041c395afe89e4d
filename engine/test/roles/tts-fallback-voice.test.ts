/**
 * A machine without Debian's flite and espeak-ng still speaks: the tts-worker role falls back to espeak-wasm (the
 * npm package espeak-ng, in its own program), says so once with what to install, and a call's TTS stream gets
 * speech from it. The Debian programs are made absent by a PATH that holds neither, so this runs the same whether
 * or not they are installed here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { MemoryBus } from '../../src/bus/index.ts';
import { subjects, ttsVoicesCodecs, TTS_VOICES_TIMEOUT_MS, type TtsVoicesReply } from '../../src/protocol/index.ts';
import type { EngineConfig } from '../../src/roles/engine-config.ts';
import { startTtsWorkerRole, type WorkerRoleHandle } from '../../src/roles/worker-roles.ts';
import { TtsClient } from '../../src/workers/client/index.ts';
import { childProcesses, rms } from '../offline-speech/support/offline-speech-kit.ts';

/** The worker role waits for node to start and compile the 18 MB module: seconds on a busy two-core machine. */
const FIRST_SPEECH_MS = 60_000;

let emptyPath: string;
let bus: MemoryBus;
let role: WorkerRoleHandle | undefined;
const logged: string[] = [];

beforeEach(() => {
  emptyPath = mkdtempSync(path.join(tmpdir(), 'parley-no-voices-'));
  vi.stubEnv('PATH', emptyPath);
  bus = new MemoryBus();
  logged.length = 0;
});

afterEach(async () => {
  await role?.close();
  role = undefined;
  await bus.close();
  vi.unstubAllEnvs();
  rmSync(emptyPath, { recursive: true, force: true });
});

const start = async (config: EngineConfig) => {
  role = await startTtsWorkerRole(config, bus, (message) => logged.push(message));
  return role;
};

async function listing(): Promise<Extract<TtsVoicesReply, { ok: true }>> {
  const message = await bus.request(subjects.ttsVoices(), ttsVoicesCodecs.request.encode({}), {
    timeoutMs: TTS_VOICES_TIMEOUT_MS,
  });
  const reply = ttsVoicesCodecs.reply.decode(message.data);
  if (!reply.ok) throw new Error(`the worker refused: ${reply.message}`);
  return reply;
}

it(
  'speaks with espeak-wasm when PARLEY_TTS=flite is not installed, saying once what to install',
  async () => {
    await start({ sttProvider: 'pocketsphinx', ttsProvider: 'flite' });
    const fallbackLines = logged.filter((line) => line.includes('espeak-wasm'));
    expect(fallbackLines).toHaveLength(1);
    expect(fallbackLines[0]).toContain('apt-get install flite');

    const voices = await listing();
    expect(voices.defaultProvider).toBe('espeak-wasm');
    expect(voices.providers).toEqual(['espeak-wasm']);
    expect(voices.voices).toContainEqual(expect.objectContaining({ provider: 'espeak-wasm', id: 'en-us' }));

    // A call's stream names no provider: it gets the default, and the clause comes back as 16 kHz speech.
    const tts = await TtsClient.open(bus, 'call-without-debian-voices');
    try {
      const pieces: Int16Array[] = [];
      for await (const piece of tts.say('Hello world', {}, new AbortController().signal)) pieces.push(piece);
      const samples = Int16Array.from(pieces.flatMap((piece) => [...piece]));
      expect(samples.length / 16_000).toBeGreaterThan(0.6);
      expect(samples.length / 16_000).toBeLessThan(2.5);
      expect(rms(samples)).toBeGreaterThan(500);
    } finally {
      tts.close();
    }
  },
  FIRST_SPEECH_MS,
);

it('names espeak-ng as the better voice when PARLEY_TTS=espeak, and stops its program with the role', async () => {
  await start({ sttProvider: 'pocketsphinx', ttsProvider: 'espeak' });
  expect(logged.filter((line) => line.includes('espeak-wasm'))).toEqual([
    expect.stringContaining('apt-get install espeak-ng'),
  ]);
  // The default voice's program is started with the role, so the first greeting does not wait for it to load.
  expect(childProcesses('node')).toHaveLength(1);
  await role!.close();
  role = undefined;
  expect(childProcesses('node')).toEqual([]);
});

it('keeps a cloud default and offers espeak-wasm beside it, without starting its program', async () => {
  await start({ sttProvider: 'pocketsphinx', ttsProvider: 'openai', openaiApiKey: 'sk-test' });
  expect(logged.some((line) => line.includes('espeak-wasm'))).toBe(false);
  expect(childProcesses('node')).toEqual([]);
  const voices = await listing();
  expect(voices.defaultProvider).toBe('openai');
  expect(voices.providers).toEqual(['espeak-wasm', 'openai']);
});
