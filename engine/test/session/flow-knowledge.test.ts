/**
 * A FLOW agent's knowledge step in a call (docs/architecture.md §14): the caller's words become the question, the
 * engine asks `v1.kb.search` with the call's organisation and the knowledge bases its variables list, and — with
 * no language model — reads the top passage out. The control plane's side of the subject is played here by a
 * responder that decodes and answers with the wire codecs (the engine imports no other workspace; the control
 * plane's real responder is exercised end to end in control-plane/test/knowledge-conversation.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBus } from '../../src/bus/index.ts';
import { kbSearchCodecs, queues, subjects, type CallEvent, type KbSearchRequest } from '../../src/protocol/index.ts';
import { scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

const PASSAGE = 'Sunday: 9 am to 3 pm. We are closed on Christmas Day.';
let call: RunningCall | undefined;

afterEach(async () => {
  await call?.close();
  call = undefined;
});

const said = (events: CallEvent[]) =>
  events.flatMap((e) => (e.type === 'transcript' && e.speaker === 'assistant' ? [e.text] : []));

describe('a FLOW knowledge step', () => {
  it("searches the agent's knowledge bases with the caller's question and reads the top passage out", async () => {
    const bus = new MemoryBus();
    const asked: KbSearchRequest[] = [];
    const responder = bus.subscribe(subjects.kbSearch(), { queue: queues.controlPlane });
    void (async () => {
      for await (const message of responder) {
        asked.push(kbSearchCodecs.request.decode(message.data));
        message.respond(
          kbSearchCodecs.reply.encode({
            ok: true,
            passages: [
              { document_id: 'kb1', document_name: 'Website', heading: 'Opening hours', text: PASSAGE, score: 0.8 },
            ],
            products: [],
          }),
        );
      }
    })();
    const spec = callSpec(
      {
        builderMode: 'FLOW',
        greetingMessage: null,
        agentTask: null,
        customVariables: { knowledge_base_ids: 'aaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbb' },
        flowDefinition: {
          version: 1,
          start: 'question',
          steps: {
            question: { kind: 'knowledge', prompt: 'What would you like to know?', next: 'bye' },
            bye: { kind: 'end', outcome: { key: 'answered', label: 'Answered' }, text: 'Goodbye.' },
          },
        },
      },
      {},
      'INBOUND',
    );
    call = await startCall(
      spec,
      { stt: scriptedStt(['when do you open on sundays']), tts: toneTts('tone', 5) },
      { connect: async () => bus },
    );
    await call.waitFor((e) => e.type === 'transcript' && e.text === 'What would you like to know?');
    await call.speak(400);
    await call.silence(700);
    await call.ended;
    responder.unsubscribe();

    expect(asked).toEqual([
      {
        organisationId: spec.organisationId,
        callId: spec.callId,
        kind: 'knowledge',
        ids: ['aaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbb'],
        query: 'when do you open on sundays',
        limit: 3,
      },
    ]);
    expect(said(call.events)).toContain(PASSAGE);
    expect(call.events.find((e) => e.type === 'tool_call')).toMatchObject({ name: 'knowledge_search', ok: true });
  });
});
