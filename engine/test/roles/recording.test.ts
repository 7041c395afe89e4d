/**
 * Call recordings: the engine role records each call as stereo Ogg Opus — the caller left, the agent right, on one
 * clock — and publishes where the file is when the call ends. Checked with the real opus-tools.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES } from '../../src/audio/format.ts';
import { toneAmplitude, sineWave } from '../../src/audio/tone.ts';
import { MemoryBus } from '../../src/bus/index.ts';
import { callCodecs, subjects, type CallEvent } from '../../src/protocol/index.ts';
import { EngineRole } from '../../src/roles/engine-role.ts';
import { memoryTransport } from '../../src/transports/memory/memory-transport.ts';
import { sttWorker } from '../../src/workers/stt/stt-worker.ts';
import { ttsWorker } from '../../src/workers/tts/tts-worker.ts';
import { startWorker } from '../../src/workers/worker-host.ts';
import { callSpec } from '../session/call-harness.ts';
import { scriptedStt, toneTts } from '../support/scripted-providers.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Channel `c` of an interleaved stereo WAV written by opusdec. */
function channel(wav: Buffer, c: number): Int16Array {
  const data = wav.indexOf('data', 12, 'latin1');
  const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + data + 8, wav.byteOffset + wav.length));
  return Int16Array.from({ length: pcm.length / 2 }, (_, i) => pcm[2 * i + c]!);
}

describe('call recordings', () => {
  it('records the caller on the left and the agent on the right, and says where the file is', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'parley-recordings-'));
    const bus = new MemoryBus();
    const workers = [
      startWorker(bus, sttWorker([scriptedStt([])])),
      startWorker(bus, ttsWorker([toneTts('tone', 40)])),
    ];
    const role = new EngineRole(
      { sttProvider: 'scripted-stt', ttsProvider: 'tone', recordingsDir: dir },
      bus,
      () => {},
    ).start();
    cleanups.push(async () => {
      await role.close();
      for (const w of workers) await w.stop();
      await bus.close();
      await rm(dir, { recursive: true, force: true });
    });
    const events: CallEvent[] = [];
    const subscription = bus.subscribe(subjects.allCallEvents());
    void (async () => {
      for await (const m of subscription) events.push(callCodecs.event.decode(m.data));
    })();

    const spec = callSpec({ greetingMessage: 'Hello there, thank you for calling, how can I help you today?' });
    const reply = callCodecs.dispatchReply.decode(
      (await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: 5_000 })).data,
    );
    if (!reply.ok) throw new Error(reply.message);
    const { transport, caller } = memoryTransport();
    const running = role.attach(reply.streamToken, transport);
    // The agent greets (a 300 Hz tone voice); meanwhile the caller hums 1 kHz, quietly: amplitude 150 is -50 dBFS,
    // below the energy gate's -45 dBFS floor, so the hum never takes the floor (louder, it would pause the agent).
    const hum = sineWave(1_000, 16_000, ENGINE_FRAME_SAMPLES * 100, 150);
    for (let f = 0; f < 100; f += 1) {
      caller.speak(hum.subarray(f * ENGINE_FRAME_SAMPLES, (f + 1) * ENGINE_FRAME_SAMPLES));
      await new Promise((r) => setTimeout(r, 20));
    }
    caller.hangup();
    await running;
    await expect.poll(() => events.find((e) => e.type === 'recording'), { timeout: 5_000 }).toBeTruthy();
    const recording = events.find((e) => e.type === 'recording') as Extract<CallEvent, { type: 'recording' }>;
    expect(recording).toMatchObject({ path: `org/${spec.callId}.ogg`, format: 'audio/ogg' });
    expect(recording.durationMs).toBeGreaterThan(1_800);
    expect(recording.durationMs).toBeLessThan(3_000);

    const file = path.join(dir, recording.path);
    expect(execFileSync('opusinfo', [file], { encoding: 'utf8' })).toMatch(/Channels: 2/);
    const wavPath = path.join(dir, 'decoded.wav');
    execFileSync('opusdec', ['--quiet', '--rate', '16000', file, wavPath]);
    const wav = await readFile(wavPath);
    const callerSide = channel(wav, 0).subarray(3_200, 24_000);
    const agentSide = channel(wav, 1).subarray(3_200, 24_000);
    // The caller's hum is on the left only; the agent's 300 Hz voice on the right only.
    expect(toneAmplitude(callerSide, 1_000, 16_000)).toBeGreaterThan(75);
    expect(toneAmplitude(agentSide, 1_000, 16_000)).toBeLessThan(30);
    expect(toneAmplitude(agentSide, 300, 16_000)).toBeGreaterThan(1_000);
    expect(toneAmplitude(callerSide, 300, 16_000)).toBeLessThan(100);
  });
});
