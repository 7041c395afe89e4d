/**
 * Call recordings in an S3-compatible bucket: the engine role records the call to its local folder as always, and
 * once the call is over uploads the finished file to the bucket (the fake S3, which checks every signature) under
 * `<prefix>/<organisationId>/<callId>.ogg`, removes the local file, and says `s3://<bucket>/<key>` in the
 * `recording` event. When the upload fails the file stays on the disk and the event names it there. The audio is
 * real: stereo Ogg Opus, checked with opus-tools.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES } from '../../src/audio/format.ts';
import { sineWave, toneAmplitude } from '../../src/audio/tone.ts';
import { MemoryBus } from '../../src/bus/index.ts';
import { callCodecs, subjects, type CallEvent } from '../../src/protocol/index.ts';
import { EngineRole } from '../../src/roles/engine-role.ts';
import type { S3BucketConfig } from '../../src/storage/s3-config.ts';
import { memoryTransport } from '../../src/transports/memory/memory-transport.ts';
import { sttWorker } from '../../src/workers/stt/stt-worker.ts';
import { ttsWorker } from '../../src/workers/tts/tts-worker.ts';
import { startWorker } from '../../src/workers/worker-host.ts';
import { startFakeS3, type FakeS3 } from '../fakes/index.ts';
import { callSpec } from '../session/call-harness.ts';
import { scriptedStt, toneTts } from '../support/scripted-providers.ts';

type RecordingEvent = Extract<CallEvent, { type: 'recording' }>;

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

/**
 * A call of two seconds on an engine role recording to `dir` and `bucket`: the agent greets, the caller hums.
 * `closeAtHangup`: the role is closed as soon as the call is over (a shutdown), before its recording is stored.
 */
async function recordedCall(
  dir: string,
  bucket: S3BucketConfig,
  closeAtHangup = false,
): Promise<{ event: RecordingEvent; callId: string; log: string[] }> {
  const bus = new MemoryBus();
  const log: string[] = [];
  const workers = [startWorker(bus, sttWorker([scriptedStt([])])), startWorker(bus, ttsWorker([toneTts('tone', 40)]))];
  const role = new EngineRole(
    { sttProvider: 'scripted-stt', ttsProvider: 'tone', recordingsDir: dir, recordingsBucket: bucket },
    bus,
    (event) => log.push(event),
  ).start();
  cleanups.push(async () => {
    await role.close();
    for (const w of workers) await w.stop();
    await bus.close();
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
  // The agent greets with a 300 Hz tone voice; the caller hums 1 kHz, quietly: amplitude 150 is -50 dBFS, below the
  // energy gate's -45 dBFS floor, so the hum never takes the floor (louder, it would pause the agent as speech).
  const hum = sineWave(1_000, 16_000, ENGINE_FRAME_SAMPLES * 100, 150);
  for (let f = 0; f < 100; f += 1) {
    caller.speak(hum.subarray(f * ENGINE_FRAME_SAMPLES, (f + 1) * ENGINE_FRAME_SAMPLES));
    await new Promise((r) => setTimeout(r, 20));
  }
  caller.hangup();
  await running;
  if (closeAtHangup) {
    await role.close();
    // Closing waited for the recording to be stored and announced.
    expect(events.find((e) => e.type === 'recording')).toBeTruthy();
  }
  await expect.poll(() => events.find((e) => e.type === 'recording'), { timeout: 10_000 }).toBeTruthy();
  return { event: events.find((e) => e.type === 'recording') as RecordingEvent, callId: spec.callId, log };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parley-recordings-bucket-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function fakeS3(): Promise<FakeS3> {
  const s3 = await startFakeS3({
    accessKeyId: 'parley-engine',
    secretAccessKey: 'engine-secret',
    region: 'eu-central-1',
    buckets: ['call-recordings'],
  });
  cleanups.push(() => s3.close());
  return s3;
}

function bucketOf(s3: FakeS3, overrides: Partial<S3BucketConfig> = {}): S3BucketConfig {
  return {
    bucket: 'call-recordings',
    prefix: 'parley',
    endpoint: s3.url,
    region: 'eu-central-1',
    accessKeyId: 'parley-engine',
    secretAccessKey: 'engine-secret',
    forcePathStyle: true,
    ...overrides,
  };
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe('call recordings in a bucket', () => {
  it('uploads the finished stereo recording to the bucket, removes the local file, and names the object', async () => {
    const dir = await tempDir();
    const s3 = await fakeS3();
    const { event, callId } = await recordedCall(dir, bucketOf(s3));

    const key = `parley/org/${callId}.ogg`;
    expect(event).toMatchObject({ path: `s3://call-recordings/${key}`, format: 'audio/ogg' });
    expect(event.durationMs).toBeGreaterThan(1_800);
    expect(event.durationMs).toBeLessThan(3_000);
    expect(s3.keys('call-recordings')).toEqual([key]);
    const object = s3.object('call-recordings', key)!;
    expect(object.contentType).toBe('audio/ogg');
    expect(await exists(path.join(dir, 'org', `${callId}.ogg`))).toBe(false);

    // What the bucket holds is the real recording: caller left, agent right.
    const file = path.join(dir, 'downloaded.ogg');
    await writeFile(file, object.body);
    expect(execFileSync('opusinfo', [file], { encoding: 'utf8' })).toMatch(/Channels: 2/);
    const wavPath = path.join(dir, 'decoded.wav');
    execFileSync('opusdec', ['--quiet', '--rate', '16000', file, wavPath]);
    const wav = await readFile(wavPath);
    const callerSide = channel(wav, 0).subarray(3_200, 24_000);
    const agentSide = channel(wav, 1).subarray(3_200, 24_000);
    expect(toneAmplitude(callerSide, 1_000, 16_000)).toBeGreaterThan(75);
    expect(toneAmplitude(agentSide, 1_000, 16_000)).toBeLessThan(30);
    expect(toneAmplitude(agentSide, 300, 16_000)).toBeGreaterThan(1_000);
    expect(toneAmplitude(callerSide, 300, 16_000)).toBeLessThan(100);
  });

  it('makes a role that closes right after a call wait until the recording is uploaded and announced', async () => {
    const dir = await tempDir();
    const s3 = await fakeS3();
    const { event, callId } = await recordedCall(dir, bucketOf(s3), true);
    expect(event.path).toBe(`s3://call-recordings/parley/org/${callId}.ogg`);
    expect(s3.keys('call-recordings')).toEqual([`parley/org/${callId}.ogg`]);
  });

  it('keeps the recording on the local disk, and names it there, when the bucket refuses the upload', async () => {
    const dir = await tempDir();
    const s3 = await fakeS3();
    const { event, callId, log } = await recordedCall(dir, bucketOf(s3, { secretAccessKey: 'rotated-away' }));

    expect(event).toMatchObject({ path: `org/${callId}.ogg`, format: 'audio/ogg' });
    expect(s3.keys('call-recordings')).toEqual([]);
    expect(s3.requests.map((r) => [r.method, r.status])).toEqual([['PUT', 403]]);
    expect(log).toContain('recording upload failed, kept on local disk');
    const file = path.join(dir, event.path);
    expect(execFileSync('opusinfo', [file], { encoding: 'utf8' })).toMatch(/Channels: 2/);
  });
});
