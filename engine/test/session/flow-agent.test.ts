/**
 * A FLOW agent in a call, with no language model at all: a keypad menu, a number captured from keys, a webhook
 * tool whose answer is spoken, and the flow's result published at the end.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { supportLineIvr } from '../../src/agent/flow/examples.ts';
import type { CallEvent } from '../../src/protocol/index.ts';
import { scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

let hook: http.Server;
let hookUrl: string;
const lookups: string[] = [];
let call: RunningCall | undefined;

beforeAll(async () => {
  hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      lookups.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":450,"due_date":"the fifth"}');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/balance`;
});
afterAll(() => {
  hook.closeAllConnections();
  hook.close();
});
afterEach(async () => {
  await call?.close();
  call = undefined;
});

function flowSpec(handoverNumber: string | null = null) {
  return callSpec(
    {
      builderMode: 'FLOW',
      greetingMessage: null,
      agentTask: null,
      flowDefinition: supportLineIvr.flow as unknown as Record<string, unknown>,
      functionTools: [{ key: 'get_balance', description: 'Account balance', url: hookUrl }],
      handoverNumber,
    },
    {},
    'INBOUND',
  );
}

const said = (events: CallEvent[]) =>
  events.flatMap((e) => (e.type === 'transcript' && e.speaker === 'assistant' ? [e.text] : []));

describe('a FLOW agent without a language model', () => {
  it('walks the keypad menu, captures the account, calls the tool, speaks its answer and publishes the result', async () => {
    const tts = toneTts('tone', 5);
    call = await startCall({ ...flowSpec(), variables: { company: 'Swift Broadband' } }, { stt: scriptedStt([]), tts });
    await call.waitFor((e) => e.type === 'transcript' && e.text.startsWith('Welcome to Swift Broadband support'));
    call.caller.press('1');
    await call.waitFor((e) => e.type === 'transcript' && e.text.includes('account number'));
    for (const digit of '1234567890') call.caller.press(digit);
    await call.waitFor((e) => e.type === 'transcript' && e.text.includes('payment link'));
    call.caller.press('1');
    const summary = await call.ended;

    expect(summary.reason).toBe('flow_ended');
    expect(JSON.parse(lookups.at(-1)!)).toEqual({ account: 1234567890 });
    expect(said(call.events)).toContain('Your balance is 450 rupees, due on the fifth.');
    expect(said(call.events).at(-1)).toBe('Thanks for calling Swift Broadband. Goodbye.');
    const result = call.events.find((e) => e.type === 'result');
    expect(result).toMatchObject({
      source: 'flow',
      outcomeKey: 'billing_info',
      captured: { account_number: 1234567890, wants_payment_link: true },
    });
    expect((result as { flowPath: string[] }).flowPath).toEqual([
      'menu',
      'account',
      'lookup',
      'balance',
      'payment_link',
      'billing_done',
    ]);
  });

  it('understands a spoken menu choice from the transcript, and ends as the flow says when no handover is possible', async () => {
    call = await startCall(flowSpec(), {
      stt: scriptedStt(['my internet is not working', 'no']),
      tts: toneTts('tone', 5),
    });
    await call.waitFor((e) => e.type === 'transcript' && e.text.startsWith('Welcome to'));
    await call.speak(400);
    await call.silence(700);
    await call.waitFor((e) => e.type === 'transcript' && e.text.includes('completely down'));
    await call.speak(400);
    await call.silence(700);
    const summary = await call.ended;
    expect(summary.reason).toBe('flow_ended');
    expect(call.events.find((e) => e.type === 'result')).toMatchObject({
      outcomeKey: 'callback_requested',
      captured: { outage: false },
    });
  });
});
