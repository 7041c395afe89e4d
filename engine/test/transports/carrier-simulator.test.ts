/**
 * The carrier simulator end to end, with a stand-in for the control plane and the real engine: calls placed
 * through each carrier's REST API are answered, the answer XML read, the engine's media stream opened and the
 * agent heard; calls to the account's numbers ring the application's webhook first; every webhook is signed as the
 * carrier signs; status callbacks tell the end. The API refuses what the carrier refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierSimulator } from '../fakes/carrier-sim/index.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { startAnswerApp, type AnswerApp } from './support/answer-app.ts';
import { startMediaEngine, type MediaEngine } from './support/media-engine.ts';

const [fabric] = fabrics();

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

describe('the carrier simulator', () => {
  let engine: MediaEngine;
  let carriers: CarrierSimulator;
  let app: AnswerApp;
  beforeAll(async () => {
    engine = await startMediaEngine(fabric!, {
      stt: scriptedStt([]),
      tts: toneTts('tone', 20),
      llm: scriptedChat([{ text: 'Hello.' }]),
    });
    carriers = await CarrierSimulator.start({ ringMs: 50 });
    app = await startAnswerApp(engine, carriers.accounts);
  });
  afterAll(async () => {
    await carriers?.close();
    await app?.close();
    await engine?.close();
    await fabric!.close();
  });

  it('carrier-b: places a call through Calls.json, fetches the TwiML, streams to the engine, and reports the end', async () => {
    const { accountSid, authToken } = carriers.accounts['carrier-b'];
    const call = await app.prepare('b-out');
    const form = new URLSearchParams({
      To: '+15550100',
      From: '+15550199',
      Url: `${app.url}/carrier-b/answer/b-out`,
      StatusCallback: `${app.url}/carrier-b/status`,
    });
    form.append('StatusCallbackEvent', 'initiated');
    form.append('StatusCallbackEvent', 'ringing');
    form.append('StatusCallbackEvent', 'answered');
    form.append('StatusCallbackEvent', 'completed');
    const res = await fetch(`${carriers.url}/2010-04-01/Accounts/${accountSid}/Calls.json`, {
      method: 'POST',
      headers: { authorization: basic(accountSid, authToken), 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { sid: string; status: string; to: string };
    expect(created).toMatchObject({
      status: 'queued',
      to: '+15550100',
      sid: expect.stringMatching(/^CA[0-9a-f]{32}$/),
    });

    const placed = await carriers.nextCall();
    expect(placed.sid).toBe(created.sid);
    const stream = await placed.stream;
    expect(stream.identity.parameters).toEqual({ source: 'parley & co' });
    await stream.until(() => stream.marks().includes('greeting'), 'the greeting played');
    expect(stream.violations).toEqual([]);
    await engine.waitFor(call.callId, (e) => e.type === 'transcript' && e.speaker === 'assistant');

    await placed.hangup();
    expect(await placed.ended).toMatchObject({ status: 'completed', source: 'callee' });
    await engine.waitFor(call.callId, (e) => e.type === 'ended' && e.reason === 'caller_hangup');
    const hooks = app.received.filter((r) => r.path.startsWith('/carrier-b/'));
    expect(hooks.every((h) => h.signed)).toBe(true);
    expect(hooks.map((h) => `${h.path} ${h.params.CallStatus}`)).toEqual([
      '/carrier-b/status initiated',
      '/carrier-b/status ringing',
      '/carrier-b/status in-progress',
      '/carrier-b/answer/b-out in-progress',
      '/carrier-b/status completed',
    ]);
    expect(hooks.at(-1)!.params).toMatchObject({
      CallSid: created.sid,
      AccountSid: accountSid,
      Direction: 'outbound-api',
      CallDuration: expect.stringMatching(/^\d+$/),
    });
  });

  it('carrier-a: places a call through Call/, reads the Plivo XML, and posts the stream and hangup callbacks', async () => {
    const { authId, authToken } = carriers.accounts['carrier-a'];
    const call = await app.prepare('a-out');
    const res = await fetch(`${carriers.url}/v1/Account/${authId}/Call/`, {
      method: 'POST',
      headers: { authorization: basic(authId, authToken), 'content-type': 'application/json' },
      body: JSON.stringify({
        from: '+15550199',
        to: '+15550100',
        answer_url: `${app.url}/carrier-a/answer/a-out`,
        answer_method: 'POST',
        hangup_url: `${app.url}/carrier-a/hangup`,
      }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ message: 'call fired', request_uuid: expect.any(String) });

    const placed = await carriers.nextCall();
    const stream = await placed.stream;
    expect(stream.format).toEqual({ encoding: 'mulaw', sampleRate: 8000 });
    expect(stream.identity.parameters).toEqual({ source: 'parley' });
    await stream.until(() => stream.marks().includes('greeting'), 'the greeting played');
    // The application ends the call through the API.
    const hangup = await fetch(`${carriers.url}/v1/Account/${authId}/Call/${placed.sid}/`, {
      method: 'DELETE',
      headers: { authorization: basic(authId, authToken) },
    });
    expect(hangup.status).toBe(204);
    expect(await placed.ended).toMatchObject({ status: 'completed', source: 'api' });
    await engine.waitFor(call.callId, (e) => e.type === 'ended');

    const hooks = app.received.filter((r) => r.path.startsWith('/carrier-a/'));
    expect(hooks.every((h) => h.signed)).toBe(true);
    expect(hooks.map((h) => `${h.path} ${h.params.Event}`)).toEqual([
      '/carrier-a/answer/a-out StartApp',
      '/carrier-a/stream-status StartStream',
      '/carrier-a/stream-status StopStream',
      '/carrier-a/hangup Hangup',
    ]);
    expect(hooks.at(-1)!.params).toMatchObject({
      CallUUID: placed.sid,
      CallStatus: 'completed',
      HangupCause: 'NORMAL_CLEARING',
      HangupSource: 'API Request',
    });
  });

  it('carrier-c: connects a call straight to a stream URL, and to a flow whose voicebot applet asks the application', async () => {
    const { accountSid, apiKey, apiToken } = carriers.accounts['carrier-c'];
    const direct = await app.prepare('c-direct');
    const form = new URLSearchParams({
      From: '+919800000001',
      CallerId: '08047000000',
      StreamUrl: direct.streamUrl('carrier-c'),
      StreamType: 'bidirectional',
      StatusCallback: `${app.url}/carrier-c/status`,
      'StatusCallbackEvents[]': 'terminal',
    });
    const res = await fetch(`${carriers.url}/v1/Accounts/${accountSid}/Calls/connect.json`, {
      method: 'POST',
      headers: { authorization: basic(apiKey, apiToken) },
      body: form,
    });
    expect(res.status).toBe(200);
    const { Call } = (await res.json()) as { Call: { Sid: string } };
    const placed = await carriers.nextCall();
    expect(placed.sid).toBe(Call.Sid);
    const stream = await placed.stream;
    expect(stream.format).toEqual({ encoding: 'l16', sampleRate: 8000 });
    await stream.until(() => stream.marks().includes('greeting'), 'the greeting played');
    expect(stream.violations).toEqual([]);
    await placed.hangup();
    await engine.waitFor(direct.callId, (e) => e.type === 'ended');
    await expect
      .poll(() => app.received.find((r) => r.path === '/carrier-c/status')?.params)
      .toMatchObject({ CallSid: Call.Sid, Status: 'completed', EventType: 'terminal', Direction: 'outbound-api' });

    // A flow: its Voicebot applet's URL is the application's, which answers with the stream to use.
    const viaFlow = await app.prepare('c-flow');
    carriers.setVoicebotApp('4242', `${app.url}/carrier-c/answer/c-flow`);
    const flow = new URLSearchParams({
      From: '+919800000002',
      CallerId: '08047000000',
      Url: `http://my.exotel.com/${accountSid}/exoml/start_voice/4242`,
    });
    expect(
      (
        await fetch(`${carriers.url}/v1/Accounts/${accountSid}/Calls/connect.json`, {
          method: 'POST',
          headers: { authorization: basic(apiKey, apiToken) },
          body: flow,
        })
      ).status,
    ).toBe(200);
    const flowCall = await carriers.nextCall();
    const flowStream = await flowCall.stream;
    await flowStream.until(() => flowStream.marks().includes('greeting'), 'the greeting played');
    expect(flowCall.answerFetch?.params).toMatchObject({
      CallSid: flowCall.sid,
      CallFrom: '+919800000002',
      Direction: 'outbound-dial',
    });
    await flowCall.hangup();
    await engine.waitFor(viaFlow.callId, (e) => e.type === 'ended');
  });

  for (const carrier of ['carrier-b', 'carrier-a', 'carrier-c'] as const) {
    it(`${carrier}: rings the application for a call to one of the account's numbers, signed, then streams its answer`, async () => {
      const url = carrier === 'carrier-c' ? `${app.url}/carrier-c/inbound` : `${app.url}/${carrier}/inbound`;
      const call = carriers.inboundCall(carrier, {
        from: '+15550111',
        to: '+15550122',
        url,
        statusCallback: `${app.url}/${carrier}/inbound-status`,
      });
      const stream = await call.stream;
      await stream.until(() => stream.marks().includes('greeting'), 'the inbound greeting played');
      const ring = app.received.find(
        (r) => r.path === `/${carrier}/inbound` && (r.params.CallSid ?? r.params.CallUUID) === call.sid,
      )!;
      expect(ring.signed).toBe(true);
      if (carrier === 'carrier-b')
        expect(ring.params).toMatchObject({
          From: '+15550111',
          To: '+15550122',
          Direction: 'inbound',
          CallStatus: 'ringing',
        });
      if (carrier === 'carrier-a')
        expect(ring.params).toMatchObject({
          From: '+15550111',
          To: '+15550122',
          Direction: 'inbound',
          Event: 'StartApp',
        });
      if (carrier === 'carrier-c')
        expect(ring.params).toMatchObject({ CallFrom: '+15550111', CallTo: '+15550122', Direction: 'incoming' });
      const dispatched = app.dispatched.get(call.sid)!;
      await engine.waitFor(
        dispatched.callId,
        (e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === 'Thanks for calling the clinic.',
      );
      await call.hangup();
      await engine.waitFor(dispatched.callId, (e) => e.type === 'ended');
      await expect.poll(() => app.received.some((r) => r.path === `/${carrier}/inbound-status`)).toBe(true);
    });
  }

  it('refuses bad credentials and missing parameters as each carrier does, and reports a busy callee', async () => {
    const b = carriers.accounts['carrier-b'];
    const wrong = await fetch(`${carriers.url}/2010-04-01/Accounts/${b.accountSid}/Calls.json`, {
      method: 'POST',
      headers: { authorization: basic(b.accountSid, 'nope') },
      body: new URLSearchParams({ To: '+1', From: '+2', Url: 'http://x.test/' }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 20003 });
    const noUrl = await fetch(`${carriers.url}/2010-04-01/Accounts/${b.accountSid}/Calls.json`, {
      method: 'POST',
      headers: { authorization: basic(b.accountSid, b.authToken) },
      body: new URLSearchParams({ To: '+1', From: '+2' }),
    });
    expect(await noUrl.json()).toMatchObject({ code: 21205, status: 400 });
    // The REST API takes one status event per parameter: a space-separated list (TwiML's syntax) is an unknown event.
    const spaced = await fetch(`${carriers.url}/2010-04-01/Accounts/${b.accountSid}/Calls.json`, {
      method: 'POST',
      headers: { authorization: basic(b.accountSid, b.authToken) },
      body: new URLSearchParams({
        To: '+1',
        From: '+2',
        Url: 'http://x.test/',
        StatusCallbackEvent: 'initiated ringing',
      }),
    });
    expect(await spaced.json()).toMatchObject({ code: 21626, status: 400 });
    const a = carriers.accounts['carrier-a'];
    const noAnswer = await fetch(`${carriers.url}/v1/Account/${a.authId}/Call/`, {
      method: 'POST',
      headers: { authorization: basic(a.authId, a.authToken), 'content-type': 'application/json' },
      body: JSON.stringify({ from: '+1', to: '+2' }),
    });
    expect(noAnswer.status).toBe(400);
    expect(await noAnswer.json()).toMatchObject({ error: 'answer_url parameter is required' });
    const c = carriers.accounts['carrier-c'];
    const noCallerId = await fetch(`${carriers.url}/v1/Accounts/${c.accountSid}/Calls/connect.json`, {
      method: 'POST',
      headers: { authorization: basic(c.apiKey, c.apiToken) },
      body: new URLSearchParams({ From: '+91' }),
    });
    expect(noCallerId.status).toBe(400);
    expect(await noCallerId.json()).toMatchObject({ RestException: { Status: 400 } });
    expect(carriers.refusals.map((r) => `${r.carrier} ${r.status}`)).toEqual([
      'carrier-b 401',
      'carrier-b 400',
      'carrier-b 400',
      'carrier-a 400',
      'carrier-c 400',
    ]);

    carriers.answerNextWith('busy');
    const ok = await fetch(`${carriers.url}/2010-04-01/Accounts/${b.accountSid}/Calls.json`, {
      method: 'POST',
      headers: { authorization: basic(b.accountSid, b.authToken) },
      body: new URLSearchParams({
        To: '+15550100',
        From: '+15550199',
        Url: `${app.url}/carrier-b/answer/none`,
        StatusCallback: `${app.url}/carrier-b/busy-status`,
      }),
    });
    expect(ok.status).toBe(201);
    const busy = await carriers.nextCall();
    expect(await busy.ended).toEqual({ status: 'busy', durationSec: 0, source: 'carrier' });
    await expect(busy.stream).rejects.toThrow(/busy/);
    await expect
      .poll(() => app.received.find((r) => r.path === '/carrier-b/busy-status')?.params.CallStatus)
      .toBe('busy');
  });
});
