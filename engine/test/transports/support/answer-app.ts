/**
 * A stand-in for the control plane's side of a phone call, for simulator tests: it answers the carrier's answer
 * and voice webhooks with the XML that opens the engine's media stream (dispatching the call to the engine when a
 * call comes in), checks the carrier's signature on every request, and records the status callbacks.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallSpec } from '../../../src/protocol/index.ts';
import type { MediaCarrier } from '../../../src/transports/carrier-ws/carrier-protocol.ts';
import { plivoV3Signature, twilioSignature, type SimAccounts } from '../../fakes/carrier-sim/index.ts';
import type { DispatchedCall, MediaEngine } from './media-engine.ts';
import { carrierCallSpec } from './media-engine.ts';

export interface ReceivedWebhook {
  path: string;
  method: string;
  params: Record<string, string>;
  /** Whether the carrier's signature checked out (carrier-c signs nothing: always true). */
  signed: boolean;
}

export interface AnswerApp {
  url: string;
  received: ReceivedWebhook[];
  /** Calls the app dispatched to the engine, by the carrier's call id or the app's own key. */
  dispatched: Map<string, DispatchedCall>;
  /** Dispatches an outbound call now (the control plane does this before asking the carrier to dial). */
  prepare(key: string, spec?: CallSpec): Promise<DispatchedCall>;
  close(): Promise<void>;
}

/** The TwiML, Plivo XML or voicebot JSON that streams a call to `streamUrl`. */
export function answerFor(carrier: MediaCarrier, streamUrl: string, statusUrl: string): { body: string; type: string } {
  if (carrier === 'carrier-b') {
    return {
      type: 'text/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Connect><Stream url="${streamUrl}"><Parameter name="source" value="parley &amp; co"/></Stream></Connect></Response>`,
    };
  }
  if (carrier === 'carrier-a') {
    return {
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response>\n  <Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" extraHeaders="source=parley" statusCallbackUrl="${statusUrl}">\n    ${streamUrl}\n  </Stream>\n</Response>`,
    };
  }
  return { type: 'application/json', body: JSON.stringify({ url: streamUrl }) };
}

export async function startAnswerApp(engine: MediaEngine, accounts: SimAccounts): Promise<AnswerApp> {
  const received: ReceivedWebhook[] = [];
  const dispatched = new Map<string, DispatchedCall>();
  let origin = '';

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      const body = await readText(req);
      const form = Object.fromEntries(new URLSearchParams(req.method === 'GET' ? url.search : body));
      const carrier = url.pathname.split('/')[1] as MediaCarrier;
      const signed = verify(carrier, req, `${origin}${req.url}`, req.method === 'GET' ? {} : form, accounts);
      received.push({ path: url.pathname, method: req.method ?? '', params: form, signed });
      const [, , kind, key] = url.pathname.split('/');
      if (kind === 'answer' || kind === 'inbound') {
        let call = key ? dispatched.get(key) : undefined;
        if (kind === 'inbound') {
          const callId = form.CallSid ?? form.CallUUID ?? `c${Date.now()}`;
          call = await engine.dispatch({
            ...carrierCallSpec({ greetingMessage: 'Thanks for calling the clinic.' }),
            direction: 'INBOUND',
          });
          dispatched.set(callId, call);
        }
        if (!call) return void res.writeHead(404).end();
        const answer = answerFor(carrier, call.streamUrl(carrier), `${origin}/${carrier}/stream-status`);
        res.writeHead(200, { 'content-type': answer.type }).end(answer.body);
        return;
      }
      res.writeHead(204).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    received,
    dispatched,
    async prepare(key, spec = carrierCallSpec({ greetingMessage: 'Hello, this is Maya from the clinic.' })) {
      const call = await engine.dispatch(spec);
      dispatched.set(key, call);
      return call;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function verify(
  carrier: MediaCarrier,
  req: IncomingMessage,
  url: string,
  params: Record<string, string>,
  accounts: SimAccounts,
): boolean {
  if (carrier === 'carrier-b') {
    return req.headers['x-twilio-signature'] === twilioSignature(accounts['carrier-b'].authToken, url, params);
  }
  if (carrier === 'carrier-a') {
    const nonce = String(req.headers['x-plivo-signature-v3-nonce'] ?? '');
    const expected = plivoV3Signature(
      accounts['carrier-a'].authToken,
      req.method === 'GET' ? 'GET' : 'POST',
      url,
      nonce,
      params,
    );
    return (
      nonce !== '' &&
      String(req.headers['x-plivo-signature-v3'] ?? '')
        .split(',')
        .includes(expected)
    );
  }
  return true;
}

async function readText(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts).toString('utf8');
}
