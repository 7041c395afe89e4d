/**
 * Browser calls (callType web, docs/architecture.md §16) end to end: POST /voice/session admits, records and
 * dispatches the call and answers a participant token and the engine's signalling URL; a real headless Chromium,
 * its microphone a flite WAV, opens a test page that asks its own backend to place the call (the API key stays on
 * the server, as on a real site), connects with RTCPeerConnection and speaks; pocketsphinx hears it, the fake LLM
 * answers, flite speaks, the page measures the agent's audio with WebAudio, and the call record holds both turns.
 * The refusals: 402 (wallet), 409 (the same call twice), 400 (callTime, a bad number), 503 (no engine).
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, hasChromium } from './support/browser.ts';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';
import { seedAgent, seedOrganisation, seedWallet } from './support/seed.ts';
import { createWidgetAgent } from './support/widget.ts';
import type { InjectOptions } from 'fastify';
import { chromium } from 'playwright-core';

/** Where the browser test leaves its screenshot (gitignored). */
const ARTEFACTS = join(import.meta.dirname, '..', '..', 'test-artefacts');
const SENTENCE = 'please book me for tuesday morning';
const REPLY = 'You are booked for Tuesday at ten in the morning.';
/** Silence before the caller speaks, s: the greeting ("Hello Ravi, this is Sunrise Dental.") is over by then. */
const LEAD_SILENCE_S = 5;
/**
 * The widget opens the microphone before it places the call (permission first, as a visitor expects), so its
 * silence also covers the placement, signalling and ICE before the greeting.
 */
const WIDGET_LEAD_SILENCE_S = 10;
/** Silence after, s: the recogniser's end of utterance, and a quiet line while the answer plays. */
const TRAIL_SILENCE_S = 8;

let rig: PhoneCallRig;
let agentId: string;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
  agentId = await rig.createAgent(OUR_NUMBERS['carrier-b']);
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

const placeWeb = (body: Record<string, unknown> = {}, key?: string) =>
  rig.place({ agentId, callType: 'web', participantName: 'Web visitor', ...body }, key);

describe('POST /voice/session with callType web', () => {
  it('admits, records and dispatches the call, answering a participant token and the signalling URL', async () => {
    const res = await placeWeb({ useCase: 'booking' });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toEqual({
      success: true,
      callType: 'web',
      status: 'initiated',
      roomName: expect.any(String),
      sessionId: expect.any(String),
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/),
      wsUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/webrtc\//),
    });
    expect(data.wsUrl.endsWith(`/webrtc/${data.token}`)).toBe(true);
    const row = await rig.record(data.sessionId);
    expect(row).toMatchObject({
      call_type: 'web',
      call_status: 'INITIATED',
      room_name: data.roomName,
      participant_name: 'Web visitor',
      phone_number: null,
      source: 'api',
      use_case: 'booking',
    });
    // Nobody connects: the engine ends the call once the token's time is up; here it is ended at once.
    rig.app.phoneCalls.placement.dispatcher.end(data.sessionId, 'test_over');
  });

  it('refuses a scheduled web call and a malformed number (400), a duplicate (409), a dry wallet (402)', async () => {
    const scheduled = await placeWeb({ callTime: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.statusCode).toBe(400);
    expect(scheduled.json().message).toMatch(/body\.callTime/);
    const badNumber = await placeWeb({ participantNumber: '555-0100' });
    expect(badNumber.statusCode).toBe(400);
    expect(badNumber.json().message).toMatch(/body\.participantNumber/);

    const participantNumber = rig.nextNumber();
    const first = await placeWeb({ participantNumber });
    expect(first.statusCode, first.body).toBe(201);
    const again = await placeWeb({ participantNumber });
    expect(again.statusCode, again.body).toBe(409);
    rig.app.phoneCalls.placement.dispatcher.end(first.json().data.sessionId, 'test_over');

    const poor = await seedOrganisation(rig.db.sql, 'Poor web');
    await seedWallet(rig.db.sql, poor.organisationId, { balanceMinor: 10 });
    const poorAgent = await seedAgent(rig.db.sql, poor.organisationId, 'VOICE');
    const before = await rig.db
      .sql`select count(*)::int as n from call_records where organisation_id = ${poor.organisationId}`;
    const dry = await placeWeb({ agentId: poorAgent }, poor.key);
    expect(dry.statusCode, dry.body).toBe(402);
    const after = await rig.db
      .sql`select count(*)::int as n from call_records where organisation_id = ${poor.organisationId}`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

/** The caller's microphone for Chromium: the sentence in flite's wideband voice, 48 kHz, silence around it. */
async function microphoneFile(leadSilenceS = LEAD_SILENCE_S): Promise<string> {
  await mkdir(ARTEFACTS, { recursive: true });
  const spoken = join(ARTEFACTS, 'web-call-caller.raw.wav');
  const microphone = join(ARTEFACTS, `web-call-caller-${leadSilenceS}s.wav`);
  // flite's wideband voice: pocketsphinx's only model (en-us) is wideband, and a browser microphone is too.
  await promisify(execFile)('flite', ['-voice', 'kal16', '-t', SENTENCE, '-o', spoken]);
  // 48 kHz mono, silence around the sentence: what Chromium's fake microphone plays, once.
  await promisify(execFile)('sox', [
    spoken,
    '-r',
    '48000',
    '-c',
    '1',
    microphone,
    'pad',
    `${leadSilenceS}`,
    `${TRAIL_SILENCE_S}`,
  ]);
  return microphone;
}

/** Headless Chromium whose microphone plays `microphone` once, and which may play audio unprompted. */
function launchChromium(microphone: string) {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphone}%noloop`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

describe.skipIf(!hasChromium)('a browser call in headless Chromium', () => {
  let site: Server;
  let siteUrl = '';

  beforeAll(async () => {
    // The website: a page, and its backend's one route that places the call with the organisation's key.
    site = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(TEST_PAGE);
        return;
      }
      if (req.method === 'POST' && req.url === '/start-call') {
        void fetch(`${rig.publicUrl}/api/v1/voice/session`, {
          method: 'POST',
          headers: { authorization: `Bearer ${rig.org.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agentId, callType: 'web', participantName: 'Ravi' }),
        }).then(async (placed) => {
          res.writeHead(placed.status, { 'content-type': 'application/json' }).end(await placed.text());
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
  });

  it('speaks to the agent through the microphone and hears the answer; the record holds both turns', async () => {
    const microphone = await microphoneFile();
    rig.llm.fake.chat.enqueue({ tokens: [REPLY] });

    const browser = await launchChromium(microphone);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(siteUrl);
      await page.click('#call');
      await page.waitForFunction(() => (globalThis as unknown as TestWindow).sessionId !== undefined);
      const sessionId = await page.evaluate(() => (globalThis as unknown as TestWindow).sessionId);
      const watch = rig.watchEvents(sessionId);
      await page.waitForFunction(() => (globalThis as unknown as TestWindow).state === 'connected', undefined, {
        timeout: 20_000,
      });
      // The greeting has played (the page heard it) by the time the caller's words are final.
      await waitFor(
        () => watch.events,
        (events) => events.some((e) => e.type === 'transcript' && e.speaker === 'user'),
        'the caller to be heard',
        30_000,
      );
      const heardBeforeReply = await page.evaluate(() => (globalThis as unknown as TestWindow).meter);
      expect(heardBeforeReply.voicedMs, 'the greeting heard in the page').toBeGreaterThan(500);
      // The page hears the answer: WebAudio measures the agent's track voiced for a second more.
      await page.waitForFunction(
        (before) => (globalThis as unknown as TestWindow).meter.voicedMs > before + 1_000,
        heardBeforeReply.voicedMs,
        { timeout: 15_000 },
      );
      watch.stop();

      const transcript = await waitFor(
        () => rig.transcript(sessionId),
        (lines) => lines.some((l) => l.speaker === 'assistant' && l.text === REPLY),
        'the agent to answer',
        30_000,
      );
      const user = transcript.find((l) => l.speaker === 'user');
      expect(user?.text.length, JSON.stringify(transcript)).toBeGreaterThan(0);
      expect(wordOverlap(SENTENCE, user!.text), `pocketsphinx heard "${user!.text}"`).toBeGreaterThanOrEqual(0.5);
      expect(transcript.some((l) => l.speaker === 'assistant' && /Sunrise Dental/.test(l.text))).toBe(true);
      const llmAsked = rig.llm.fake.chat.requests.at(-1)!.body.messages as { role: string; content: string }[];
      expect(llmAsked.at(-1)).toEqual({ role: 'user', content: user!.text });
      const meter = await page.evaluate(() => (globalThis as unknown as TestWindow).meter);
      expect(meter.peak).toBeGreaterThan(0.05);
      await page.screenshot({ path: join(ARTEFACTS, 'web-call-connected.png') });

      await page.click('#hangup');
      const row = await waitFor(
        () => rig.record(sessionId),
        (r) => r.ended_at !== null,
        'the call to end',
      );
      expect(row).toMatchObject({ call_type: 'web', call_status: 'COMPLETED', call_outcome: 'completed' });
      expect(await page.evaluate(() => (globalThis as unknown as TestWindow).state)).toBe('ended');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('POST /widget/voice-session', () => {
  it("places the widget's browser call as POST /voice/session does: a participant token and the signalling URL", async () => {
    const api = {
      call: (key: string | undefined, options: InjectOptions) =>
        rig.app.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${key}` } }),
    };
    const widget = await createWidgetAgent(api, rig.org, { name: 'Callable', webCallEnabled: true });
    const res = await api.call(widget.token, {
      method: 'POST',
      url: '/api/v1/widget/voice-session',
      payload: { agentId: widget.agentId, participantName: 'Visitor', participantNumber: '+44 7700 900555' },
      remoteAddress: '10.9.0.1',
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ success: true, callType: 'web', token: expect.any(String) });
    expect(data.wsUrl.endsWith(`/webrtc/${data.token}`)).toBe(true);
    const row = await rig.record(data.sessionId);
    expect(row).toMatchObject({
      call_type: 'web',
      source: 'widget',
      participant_name: 'Visitor',
      phone_number: '+447700900555',
    });
    rig.app.phoneCalls.placement.dispatcher.end(data.sessionId, 'test_over');
  });
});

describe.skipIf(!hasChromium)("the widget's call button in headless Chromium", () => {
  let site: Server;
  let widget: { agentId: string; token: string };

  beforeAll(async () => {
    const api = {
      call: (key: string | undefined, options: InjectOptions) =>
        rig.app.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${key}` } }),
    };
    widget = await createWidgetAgent(api, rig.org, { name: 'Front desk', webCallEnabled: true });
    // A website of another origin that embeds the widget, as a customer's site does.
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html><head><meta charset="utf-8"><title>Sunrise Dental</title></head><body>
<h1>Sunrise Dental</h1>
<script src="${rig.publicUrl}/widget.js" data-agent="${widget.agentId}" data-token="${widget.token}"></script>
</body></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
  });

  it('calls from the widget: the microphone heard, the agent answers, the button hangs up', async () => {
    const microphone = await microphoneFile(WIDGET_LEAD_SILENCE_S);
    rig.llm.fake.chat.enqueue({ tokens: [REPLY] });
    const browser = await launchChromium(microphone);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      await page.click('[data-parley-widget] >> .launcher');
      const call = page.locator('[data-parley-widget] >> button.call');
      await call.waitFor({ state: 'visible' });
      await call.click();
      await page.waitForSelector('[data-parley-widget] >> button.call[data-state="connected"]', { timeout: 20_000 });
      const [record] = await rig.db.sql<{ id: string }[]>`
        select id from call_records where organisation_id = ${rig.org.organisationId} and call_type = 'web'
           and source = 'widget' order by created_at desc limit 1`;
      const transcript = await waitFor(
        () => rig.transcript(record!.id),
        (lines) => lines.some((l) => l.speaker === 'assistant' && l.text === REPLY),
        'the agent to answer the caller',
        60_000,
      );
      const user = transcript.find((l) => l.speaker === 'user');
      expect(wordOverlap(SENTENCE, user?.text ?? ''), `pocketsphinx heard "${user?.text}"`).toBeGreaterThanOrEqual(0.5);
      await page.screenshot({ path: join(ARTEFACTS, 'widget-call-connected.png') });

      await call.click();
      await page.waitForSelector('[data-parley-widget] >> button.call[data-state="ended"]');
      const row = await waitFor(
        () => rig.record(record!.id),
        (r) => r.ended_at !== null,
        'the call to end',
      );
      expect(row).toMatchObject({ call_type: 'web', source: 'widget', call_status: 'COMPLETED' });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('with no engine running', () => {
  it('answers 503 and finishes the record FAILED', async () => {
    await rig.engine!.close();
    rig.engine = undefined;
    const res = await placeWeb();
    expect(res.statusCode, res.body).toBe(503);
    const [row] = await rig.db.sql<Record<string, unknown>[]>`select * from call_records
      where organisation_id = ${rig.org.organisationId} and call_type = 'web' order by created_at desc limit 1`;
    expect(row).toMatchObject({ call_status: 'FAILED', call_outcome: 'failed' });
    expect(row!.ended_at).not.toBeNull();
  }, 30_000);
});

interface TestWindow {
  state: string;
  sessionId: string;
  meter: { voicedMs: number; peak: number };
}

/** Share of the words of `expected` found in `heard`. */
function wordOverlap(expected: string, heard: string): number {
  const words = new Set(heard.toLowerCase().split(/\W+/));
  const wanted = expected.toLowerCase().split(/\W+/).filter(Boolean);
  return wanted.filter((w) => words.has(w)).length / wanted.length;
}

/**
 * The test site's page: a call button; the call is placed by the site's backend, then carried by RTCPeerConnection
 * over the engine's signalling socket; the agent's track plays in an <audio> element and is metered by WebAudio
 * (every 20 ms: RMS over the last 2048 samples; voiced when above 0.01).
 */
const TEST_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Parley web call test</title>
<style>body{font:16px sans-serif;margin:2em} #state{font-weight:bold} button{font-size:1.1em;margin-right:1em}</style>
</head><body>
<h1>Sunrise Dental</h1>
<p>Call state: <span id="state">idle</span></p>
<p>Agent audio: <meter id="level" min="0" max="0.3" value="0"></meter> <span id="voiced">0</span> ms voiced</p>
<button id="call">Call</button><button id="hangup">Hang up</button>
<audio id="agent" autoplay></audio>
<script>
window.state = 'idle';
window.meter = { voicedMs: 0, peak: 0 };
let ws, pc;
const show = (s) => { window.state = s; document.getElementById('state').textContent = s; };
function measure(track) {
  const context = new AudioContext();
  const analyser = context.createAnalyser();
  analyser.fftSize = 2048;
  context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
  const buffer = new Float32Array(analyser.fftSize);
  setInterval(() => {
    analyser.getFloatTimeDomainData(buffer);
    let sum = 0;
    for (const x of buffer) sum += x * x;
    const rms = Math.sqrt(sum / buffer.length);
    if (rms > 0.01) window.meter.voicedMs += 20;
    window.meter.peak = Math.max(window.meter.peak, rms);
    document.getElementById('level').value = rms;
    document.getElementById('voiced').textContent = window.meter.voicedMs;
  }, 20);
}
document.getElementById('call').onclick = async () => {
  show('placing');
  const placed = await (await fetch('/start-call', { method: 'POST' })).json();
  if (!placed.success) { show('refused: ' + placed.message); return; }
  window.sessionId = placed.data.sessionId;
  // The browser's voice processing off: the test's microphone is a clean recording, and the assertion is on words.
  const microphone = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  });
  pc = new RTCPeerConnection();
  for (const track of microphone.getTracks()) pc.addTrack(track, microphone);
  pc.ontrack = (event) => {
    document.getElementById('agent').srcObject = new MediaStream([event.track]);
    measure(event.track);
  };
  pc.onconnectionstatechange = () => { if (pc.connectionState === 'connected') show('connected'); };
  ws = new WebSocket(placed.data.wsUrl);
  pc.onicecandidate = (event) => {
    if (event.candidate && ws.readyState === 1) ws.send(JSON.stringify({ type: 'candidate', candidate: event.candidate.toJSON() }));
  };
  ws.onmessage = async (message) => {
    const signal = JSON.parse(message.data);
    if (signal.type === 'answer') await pc.setRemoteDescription({ type: 'answer', sdp: signal.sdp });
    if (signal.type === 'hangup') { pc.close(); show('ended'); }
  };
  ws.onclose = () => { if (window.state !== 'ended') show('ended'); };
  await new Promise((resolve) => { ws.onopen = resolve; });
  show('connecting');
  await pc.setLocalDescription(await pc.createOffer());
  ws.send(JSON.stringify({ type: 'offer', sdp: pc.localDescription.sdp }));
};
document.getElementById('hangup').onclick = () => {
  ws.send(JSON.stringify({ type: 'hangup' }));
  ws.close(1000, 'bye');
  pc.close();
  show('ended');
};
</script></body></html>`;
