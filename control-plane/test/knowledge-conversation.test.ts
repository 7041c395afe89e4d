/**
 * An agent's knowledge_search in a real phone call (docs/architecture.md §14): a knowledge base processed by the
 * background job, a VOICE agent whose customVariables list it, a carrier-b call through the carrier simulator to a
 * real engine with flite, pocketsphinx and the fake OpenAI server as the language model, and the control plane's
 * KbSearchResponder answering `v1.kb.search` on the call's bus. The model asks for the tool, the engine searches
 * through the control plane, the model is handed the opening-hours passage, and its answer quoting it is spoken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { KbSearchResponder } from '../src/knowledge/kb-search-responder.ts';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { KnowledgeService } from '../src/knowledge/knowledge-service.ts';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';
import { WEBSITE_MD } from './support/knowledge-content.ts';

const OUR_NUMBER = OUR_NUMBERS['carrier-b'];
const QUESTION = 'what time do you open on sunday';
const ANSWER = 'On Sundays we are open from 9 am to 3 pm.';

let rig: PhoneCallRig;
let responder: KbSearchResponder;
let agentId: string;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
  responder = new KbSearchResponder(rig.db.sql, rig.bus, () => {}).listen();
  const document = await new KnowledgeService(rig.db.sql).create(rig.org.organisationId, {
    name: 'Café website',
    description: undefined,
    text: WEBSITE_MD,
    language: 'en',
    files: [],
  });
  const processed = await new KnowledgeJob(rig.db.sql, pino({ level: 'silent' })).runOnce();
  expect(processed.get(document.id)).toBe('ready');
  agentId = await rig.createAgent(OUR_NUMBER, { customVariables: { knowledge_base_ids: [document.id] } });
}, 120_000);

afterAll(async () => {
  responder?.close();
  await rig?.close();
}, 60_000);

describe('knowledge_search in a call', () => {
  it('searches the knowledge base through the control plane and speaks the answer from the passage', async () => {
    const chat = rig.llm.fake.chat;
    chat.enqueue(
      { toolCalls: [{ id: 'call_kb_1', name: 'knowledge_search', arguments: JSON.stringify({ query: QUESTION }) }] },
      { tokens: ANSWER.split(/(?<= )/) },
    );
    const asked = chat.requests.length;
    const res = await rig.place({ agentId, participantNumber: rig.nextNumber() });
    expect(res.statusCode, res.body).toBe(201);
    const callId = res.json().data.sessionId as string;
    const watch = rig.watchEvents(callId);
    const call = await rig.sim.nextCall();
    const stream = await call.stream;
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
      'the agent to listen',
    );
    await stream.pause(300);
    await stream.sayWav(await rig.fliteWav(QUESTION));
    await stream.pause(1_500);
    await waitFor(
      () => watch.events,
      (e) => e.some((x) => x.type === 'transcript' && x.speaker === 'assistant' && x.text === ANSWER),
      'the answer',
      30_000,
    );

    // The model was offered the tool, and its second round was handed the opening-hours passage.
    const first = chat.requests[asked]!.body as { tools?: { function: { name: string } }[] };
    expect(first.tools?.map((tool) => tool.function.name)).toContain('knowledge_search');
    const second = chat.requests[asked + 1]!.body as { messages: { role: string; content: string }[] };
    const toolMessage = second.messages.find((m) => m.role === 'tool');
    const results = JSON.parse(toolMessage!.content).results as { source: string; text: string }[];
    expect(results[0]).toEqual({
      source: 'Café website › Harbour Café › Opening hours',
      text: expect.stringContaining('Sunday: 9 am to 3 pm.'),
    });
    const toolEvent = watch.events.find((e) => e.type === 'tool_call' && e.name === 'knowledge_search');
    expect(toolEvent).toMatchObject({ ok: true, result: expect.stringContaining('Sunday: 9 am to 3 pm.') });

    await call.hangup();
    await waitFor(
      () => rig.record(callId),
      (r) => r.ended_at !== null,
      'the record to end',
    );
    watch.stop();
  });
});
