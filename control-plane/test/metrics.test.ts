/**
 * /metrics (docs/architecture.md §19) after real phone calls through the carrier simulator (the phone-call rig:
 * the control plane on a real port, an engine with its media server, flite, pocketsphinx and the fake LLM as
 * workers): the engine's port shows the call live and then gone, the caller's turn in the turn-latency histogram, a
 * barge-in, and the worker pool; the control plane's port shows HTTP latency labelled by route pattern, never a raw
 * URL, and the leased jobs' lag. Then the bearer token, and request logs carrying requestId.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchJobLag } from '../src/observability/job-lag-metrics.ts';
import { startTestApp } from './support/app.ts';
import { scrape, type Scrape } from './support/metrics.ts';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';

const REPLY = 'Done. You are booked for Tuesday at ten in the morning.';
const LONG_REPLY =
  'Let me check the calendar for you. We have openings on Monday morning. There is also Tuesday at ten. ' +
  'Wednesday afternoon is free as well. Thursday is fully booked I am afraid. Friday has a slot at four.';

let rig: PhoneCallRig;
let agentId: string;
let engineUrl: string;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
  agentId = await rig.createAgent(OUR_NUMBERS['carrier-a']);
  engineUrl = rig.engine!.mediaUrl!.replace(/^ws:/, 'http:');
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

const engine = () => scrape(engineUrl);
const controlPlane = () => scrape(rig.publicUrl);
const turns = (m: Scrape, stage: string) => m.value('parley_turn_latency_seconds_count', { stage });

describe('a phone call in the metrics', () => {
  it('is live on the engine while it runs and gone after; its turn and a barge-in are observed', async () => {
    const before = await engine();
    expect(before.value('parley_active_calls')).toBe(0);
    // The pool as the heartbeats show it: the rig runs one worker of each kind.
    await expect
      .poll(async () => (await engine()).value('parley_worker_pool_size', { kind: 'stt' }), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    const pool = await engine();
    expect(pool.value('parley_worker_pool_size', { kind: 'tts' })).toBeGreaterThanOrEqual(1);
    expect(pool.value('parley_worker_pool_size', { kind: 'llm' })).toBeGreaterThanOrEqual(1);
    expect(pool.value('parley_worker_open_streams', { kind: 'stt' })).toBe(0);

    rig.llm.fake.chat.enqueue({ tokens: REPLY.split(/(?<= )/) });
    rig.llm.fake.chat.enqueue({ tokens: LONG_REPLY.split(/(?<= )/) });
    rig.llm.fake.chat.enqueue({ tokens: ['All right, ', 'which day?'] });
    const res = await rig.place({ agentId, participantNumber: rig.nextNumber(OUR_NUMBERS['carrier-a']) });
    expect(res.statusCode, res.body).toBe(201);
    const callId = res.json().data.sessionId as string;
    const watch = rig.watchEvents(callId);
    const call = await rig.sim.nextCall();
    const stream = await call.stream;
    await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 20_000);

    const during = await engine();
    expect(during.value('parley_active_calls')).toBe(1);
    // The call's recogniser, voice and model streams are open on this process's workers, and the pool knows it.
    expect(during.value('parley_worker_open_streams', { kind: 'stt' })).toBe(1);
    await expect
      .poll(async () => (await engine()).value('parley_worker_pool_streams', { kind: 'tts' }), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);

    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
      'the agent to listen',
    );
    await stream.pause(300);
    await stream.sayWav(await rig.fliteWav('please book me for tuesday morning'));
    await stream.pause(1_000);
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'transcript' && x.speaker === 'assistant' && x.text === REPLY),
      'the reply',
      30_000,
    );

    // A second question, whose long answer the caller cuts into once its first clause has played.
    const speakingBefore = watch.events.filter((x) => x.type === 'state' && x.state === 'speaking').length;
    await stream.pause(1_500);
    await stream.sayWav(await rig.fliteWav('when is my appointment'));
    await stream.pause(500);
    await waitFor(
      () => watch.events,
      (e) => e.filter((x) => x.type === 'state' && x.state === 'speaking').length > speakingBefore,
      'the long reply to start',
      30_000,
    );
    const marks = stream.marks().length;
    await stream.until(() => stream.marks().length > marks, "the long reply's first clause played", 30_000);
    void stream.sayWav(await rig.fliteWav('wait wait I need to change the day of my appointment please'));
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'transcript' && x.speaker === 'assistant' && x.interrupted === true),
      'the interrupted line',
      30_000,
    );
    const barged = await engine();
    expect(barged.value('parley_barge_in_seconds_count')).toBe(before.value('parley_barge_in_seconds_count') + 1);
    // Seconds of caller speech over the agent: something, and less than the sentence itself.
    const bargeSeconds = barged.value('parley_barge_in_seconds_sum') - before.value('parley_barge_in_seconds_sum');
    expect(bargeSeconds).toBeGreaterThan(0);
    expect(bargeSeconds).toBeLessThan(5);

    await call.hangup();
    await waitFor(
      () => rig.record(callId),
      (r) => r.ended_at !== null && r.latency !== null,
      'the record to end',
    );
    watch.stop();

    const after = await engine();
    expect(after.value('parley_active_calls')).toBe(0);
    expect(after.value('parley_calls_ended_total', { outcome: 'completed' })).toBe(
      before.value('parley_calls_ended_total', { outcome: 'completed' }) + 1,
    );
    // The histogram holds the turns the call's latency report holds, no more, no fewer.
    const [row] = await rig.db.sql<{ latency: { turns: { endToEndMs?: number }[] } }[]>`
      select latency from call_records where id = ${callId}`;
    const reported = row!.latency.turns;
    expect(reported.length).toBeGreaterThanOrEqual(2);
    expect(turns(after, 'endpointing') - turns(before, 'endpointing')).toBe(reported.length);
    expect(turns(after, 'end_to_end') - turns(before, 'end_to_end')).toBe(
      reported.filter((t) => t.endToEndMs !== undefined).length,
    );
    const observedSeconds =
      after.value('parley_turn_latency_seconds_sum', { stage: 'end_to_end' }) -
      before.value('parley_turn_latency_seconds_sum', { stage: 'end_to_end' });
    const reportedSeconds = reported.reduce((sum, t) => sum + (t.endToEndMs ?? 0), 0) / 1000;
    expect(observedSeconds).toBeCloseTo(reportedSeconds, 2);
    // The worker closes the stream when the session's `end` reaches it.
    await expect
      .poll(async () => (await engine()).value('parley_worker_open_streams', { kind: 'stt' }), { timeout: 10_000 })
      .toBe(0);
    expect(after.text).toMatch(/^parley_late_frames_total\{direction="inbound"\} \d+$/m);
    expect(after.text).toMatch(/^parley_late_frames_total\{direction="outbound"\} \d+$/m);

    // The control plane labels HTTP latency by route pattern: the carrier's answer webhook named its call in the
    // URL, the label names the pattern; no call id reaches a label.
    const http = await controlPlane();
    const routes = http.labelSets('parley_http_request_duration_seconds_count');
    expect(routes).toContainEqual({ method: 'POST', route: '/api/v1/voice/session', status_code: '201' });
    expect(routes.some((r) => r.route === '/webhooks/:carrier/answer/:callId')).toBe(true);
    expect(http.text).not.toContain(callId);
  }, 180_000);
});

describe('job lag', () => {
  it('reports the oldest due scheduled call nobody has taken, and how many wait', async () => {
    const stop = watchJobLag(rig.db.sql);
    try {
      const res = await rig.place({
        agentId,
        participantNumber: rig.nextNumber(OUR_NUMBERS['carrier-a']),
        callTime: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect(res.statusCode, res.body).toBe(201);
      const callId = res.json().data.sessionId as string;
      const lagged = () => controlPlane().then((m) => m.value('parley_job_lag_seconds', { job: 'scheduler' }));
      // No scheduler runs in the rig: made due two minutes ago, the call waits, and the lag says so.
      await rig.db.sql`update call_records set scheduled_time = now() - interval '120 seconds' where id = ${callId}`;
      const due = await controlPlane();
      expect(due.value('parley_job_lag_seconds', { job: 'scheduler' })).toBeGreaterThanOrEqual(120);
      expect(due.value('parley_job_lag_seconds', { job: 'scheduler' })).toBeLessThan(600);
      expect(due.value('parley_job_backlog', { job: 'scheduler' })).toBeGreaterThanOrEqual(1);
      for (const job of ['post-call', 'dialler', 'knowledge'])
        expect(due.labelSets('parley_job_lag_seconds')).toContainEqual({ job });
      // Taken (cancelled here), it no longer waits.
      await rig.db.sql`update call_records set scheduled_status = 'CANCELLED' where id = ${callId}`;
      expect(await lagged()).toBeLessThan(120);
    } finally {
      stop();
    }
  });
});

describe('the control plane /metrics', () => {
  it('wants PARLEY_METRICS_TOKEN as a bearer token when it is set, answering 401 in the error envelope', async () => {
    const t = await startTestApp({ metricsToken: 'scrape-me-please' });
    try {
      const refused = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ success: false, code: 'unauthorized' });
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      const wrong = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer scrape-me-pleasE' },
      });
      expect(wrong.statusCode).toBe(401);
      const ok = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer scrape-me-please' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(ok.body).toMatch(/^# TYPE parley_http_request_duration_seconds histogram$/m);
    } finally {
      await t.close();
    }
  });

  it("logs each request's lines with its requestId, the x-request-id it answers with", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const t = await startTestApp({ logger: pino({ level: 'info' }, sink) });
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/api-keys/me',
        headers: { 'x-request-id': 'req-metrics-1', authorization: 'Bearer not-a-key' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-request-id']).toBe('req-metrics-1');
      const mine = lines.filter((l) => l.requestId === 'req-metrics-1');
      expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
      expect(lines.some((l) => 'reqId' in l)).toBe(false);
    } finally {
      await t.close();
    }
  });
});
