/**
 * A chat visitor asks to be called back, end to end (docs/architecture.md §15, "Callbacks"): the widget's chat
 * agent, whose callbackAgentId names a VOICE agent, is offered `request_callback` because the visitor gave a phone
 * number; the model asks for the call now; the control plane places it as POST /voice/callback would, and the
 * carrier simulator (carrier-b's API and phone) receives it — from the voice agent's number, to the visitor's
 * number as they typed it — and the engine greets the visitor by the name they gave in the chat.
 */
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';
import { createWidgetAgent } from './support/widget.ts';

const OUR_NUMBER = OUR_NUMBERS['carrier-b'];

let rig: PhoneCallRig;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

const api = {
  call: (key: string | undefined, request: InjectOptions) =>
    rig.app.inject({ ...request, headers: { ...request.headers, ...(key && { authorization: `Bearer ${key}` }) } }),
};

describe('a callback asked for in a chat', () => {
  it('is placed by the callback voice agent to the number the visitor gave, and the visitor is greeted by name', async () => {
    const voiceAgent = await rig.createAgent(OUR_NUMBER, { name: 'Callbacks' });
    const widget = await createWidgetAgent(api, rig.org, { name: 'Website chat', callbackAgentId: voiceAgent });
    const visitorNumber = rig.nextNumber();
    // Typed as people type it; dialled as E.164.
    const typed = `${visitorNumber.slice(0, 2)} (${visitorNumber.slice(2, 5)}) ${visitorNumber.slice(5, 8)}-${visitorNumber.slice(8)}`;
    const roomName = `chat-callback-${Date.now()}`;
    const boot = await api.call(widget.token, {
      method: 'POST',
      url: '/api/v1/widget/bootstrap',
      payload: { agentId: widget.agentId, participantName: 'Jo', phoneNumber: typed, roomName },
    });
    expect(boot.statusCode, boot.body).toBe(200);

    rig.llm.fake.chat.enqueue(
      { toolCalls: [{ id: 'cb-now', name: 'request_callback', arguments: JSON.stringify({ note: 'boiler repair' }) }] },
      { tokens: ['A colleague ', 'is calling you now.'] },
    );
    const asked = rig.llm.fake.chat.requests.length;
    const reply = await rig.app.inject({
      method: 'POST',
      url: '/api/v1/widget/chat/messages',
      headers: { 'x-chat-token': boot.json().data.metadata.agentToken },
      payload: { messageId: 'call-me', text: 'Could someone call me about my boiler, please?' },
    });
    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.json().data.reply).toBe('A colleague is calling you now.');
    // The model was told the call was placed, not merely scheduled.
    const toolResult = (
      rig.llm.fake.chat.requests[asked + 1]!.body as { messages: { role: string; content: string }[] }
    ).messages.at(-1)!;
    expect(toolResult.role).toBe('tool');
    expect(toolResult.content).not.toMatch(/scheduled/i);

    // The carrier is asked to call the visitor, from the callback agent's number.
    const call = await rig.sim.nextCall();
    expect(call.to).toBe(visitorNumber);
    expect(call.request).toMatchObject({ To: visitorNumber, From: OUR_NUMBER });
    const [conversation] = await rig.db.sql<
      { id: string }[]
    >`select id from call_records where room_name = ${roomName}`;
    const [callback] = await rig.db.sql<
      {
        id: string;
        agent_id: string;
        call_type: string;
        phone_number: string;
        participant_name: string;
        custom_variables: Record<string, string>;
      }[]
    >`select id, agent_id, call_type, phone_number, participant_name, custom_variables from call_records
       where meta_data ->> 'callbackOf' = ${conversation!.id}`;
    expect(callback).toMatchObject({
      agent_id: voiceAgent,
      call_type: 'sip',
      phone_number: visitorNumber,
      participant_name: 'Jo',
    });
    expect(JSON.parse(callback!.custom_variables.callbackMetaData!)).toEqual({ note: 'boiler repair' });
    expect(call.request.Url).toBe(`${rig.publicUrl}/webhooks/carrier-b/answer/${callback!.id}`);

    // The visitor answers and hears the callback agent greet them by the name they gave in the chat.
    const stream = await call.stream;
    await stream.until(() => stream.receivedAudio().length > 8_000, 'the greeting', 30_000);
    const lines = await waitFor(
      () => rig.transcript(callback!.id),
      (l) => l.some((line) => line.speaker === 'assistant'),
      'the greeting line',
      30_000,
    );
    expect(lines[0]).toMatchObject({ speaker: 'assistant', text: 'Hello Jo, this is Sunrise Dental.' });
    await call.hangup();
    await waitFor(
      () => rig.record(callback!.id),
      (r) => r.ended_at !== null,
      'the callback to end',
      30_000,
    );
  }, 120_000);
});
