/**
 * carrier-a's REST API and call behaviour (Plivo Voice API v1):
 *
 * - `POST /v1/Account/{auth_id}/Call/` (HTTP basic: auth id and auth token; JSON — or form — with from, to,
 *   answer_url, answer_method, hangup_url, hangup_method, ring_url, ring_method) → 201
 *   `{ api_id, message: "call fired", request_uuid }`; 401 and 400 as `{ api_id, error }`.
 * - `DELETE /v1/Account/{auth_id}/Call/{call_uuid}/` hangs the call up (204); `GET` reads it; `POST` with
 *   `legs=aleg` and `aleg_url` transfers it: the carrier fetches aleg_url (signed) and follows its <Dial>.
 * - A `<Stream keepCallAlive="true">` keeps the call up after its stream closes, until the API or the callee ends it.
 * - When answered, the carrier requests answer_url (signed X-Plivo-Signature-V3 with its nonce) and reads the XML;
 *   ring_url hears the ringing, the <Stream>'s statusCallbackUrl its StartStream and StopStream, and hangup_url
 *   the end (CallStatus, Duration, HangupCause, HangupSource), all signed the same way.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnswerError, dialTarget, plivoStream } from './answer-xml.ts';
import { SimCall, type CallDriver, type SimCallStatus } from './sim-call.ts';
import type { CarrierApi, InboundCallOptions, SimContext } from './sim-context.ts';
import { formatOfContentType } from './sim-format.ts';
import { basicAuth, callWebhook, param, readParams, reply } from './sim-http.ts';
import { plivoNonce, plivoV3Signature } from './webhook-signatures.ts';

const CALLS = /^\/v1\/Account\/([^/]+)\/Call\/?$/;
const CALL = /^\/v1\/Account\/([^/]+)\/Call\/([^/]+)\/?$/;

/** Plivo's hangup causes for each way a call can end. */
const HANGUP_CAUSES: Record<SimCallStatus, [cause: string, name: string]> = {
  completed: ['NORMAL_CLEARING', 'Normal Hangup'],
  busy: ['USER_BUSY', 'Busy Line'],
  'no-answer': ['NO_ANSWER', 'No Answer'],
  failed: ['CALL_REJECTED', 'Rejected'],
  canceled: ['ORIGINATOR_CANCEL', 'Cancelled'],
  queued: ['NORMAL_CLEARING', 'Normal Hangup'],
  ringing: ['NORMAL_CLEARING', 'Normal Hangup'],
  'in-progress': ['NORMAL_CLEARING', 'Normal Hangup'],
};
const HANGUP_SOURCES = { callee: 'Callee', application: 'Plivo', api: 'API Request', carrier: 'Plivo' } as const;

export function carrierAApi(context: SimContext): CarrierApi {
  const account = context.accounts['carrier-a'];
  const requestIds = new Map<string, string>();

  const error = (res: ServerResponse, req: IncomingMessage, url: URL, status: number, message: string) =>
    context.refuse(
      res,
      { carrier: 'carrier-a', method: req.method ?? '', path: url.pathname, status, message },
      { api_id: randomUUID(), error: message },
    );

  const authorised = (req: IncomingMessage, authId: string) => {
    const credentials = basicAuth(req);
    return (
      credentials?.user === account.authId && credentials.password === account.authToken && authId === account.authId
    );
  };

  const signed = (method: 'GET' | 'POST', params: Record<string, string>) => (target: string) => {
    const nonce = plivoNonce();
    const signature = plivoV3Signature(account.authToken, method, target, nonce, method === 'POST' ? params : {});
    return {
      'x-plivo-signature-v3': signature,
      'x-plivo-signature-ma-v3': signature,
      'x-plivo-signature-v3-nonce': nonce,
    };
  };

  const send = async (
    call: SimCall,
    url: string | undefined,
    methodName: string | undefined,
    params: Record<string, string>,
  ) => {
    if (!url) return;
    const method = methodName?.toUpperCase() === 'GET' ? 'GET' : 'POST';
    call.webhooks.push(await callWebhook(url, method, params, signed(method, params)));
  };

  const base = (call: SimCall): Record<string, string> => ({
    CallUUID: call.sid,
    From: call.from,
    To: call.to,
    Direction: call.direction,
    RequestUUID: requestIds.get(call.sid) ?? call.sid,
  });

  const driver: CallDriver = {
    async answer(call) {
      const url = param(call.request, 'answer_url')!;
      const method = param(call.request, 'answer_method')?.toUpperCase() === 'GET' ? 'GET' : 'POST';
      const params = {
        ...base(call),
        CallStatus: call.direction === 'outbound' ? 'in-progress' : 'ringing',
        Event: 'StartApp',
        ALegUUID: call.sid,
        ALegRequestUUID: base(call).RequestUUID!,
        BillRate: '0.0035',
      };
      const record = await callWebhook(url, method, params, signed(method, params));
      call.answerFetch = record;
      call.webhooks.push(record);
      if (record.status !== 200) throw new AnswerError(`the answer_url answered ${record.status}`);
      const instruction = plivoStream(record.body);
      return { instruction, format: formatOfContentType(instruction.contentType) };
    },
    async notify(call, event) {
      const now = new Date().toISOString().replace('T', ' ').slice(0, 19);
      switch (event) {
        case 'ringing':
          return send(call, param(call.request, 'ring_url'), param(call.request, 'ring_method'), {
            ...base(call),
            CallStatus: 'ringing',
            Event: 'Ring',
          });
        case 'stream-started':
        case 'stream-stopped':
          return send(call, call.instruction?.statusCallbackUrl, call.instruction?.statusCallbackMethod, {
            ...base(call),
            Event: event === 'stream-started' ? 'StartStream' : 'StopStream',
            StreamID: (await call.stream).identity.streamId,
            Timestamp: now,
          });
        case 'ended': {
          const [cause, causeName] = HANGUP_CAUSES[call.status];
          const duration =
            call.answeredAt && call.endedAt
              ? Math.round((call.endedAt.getTime() - call.answeredAt.getTime()) / 1000)
              : 0;
          return send(call, param(call.request, 'hangup_url'), param(call.request, 'hangup_method'), {
            ...base(call),
            CallStatus: call.status === 'canceled' ? 'cancel' : call.status,
            Duration: String(duration),
            BillDuration: String(Math.ceil(duration / 60) * 60),
            HangupCause: cause,
            HangupCauseName: causeName,
            HangupSource: HANGUP_SOURCES[call.hangupSource ?? 'carrier'],
            Event: 'Hangup',
            StartTime: call.createdAt.toISOString().replace('T', ' ').slice(0, 19),
            AnswerTime: call.answeredAt?.toISOString().replace('T', ' ').slice(0, 19) ?? '',
            EndTime: now,
          });
        }
        default:
          return;
      }
    },
  };

  const resource = (call: SimCall) => ({
    api_id: randomUUID(),
    call_uuid: call.sid,
    request_uuid: requestIds.get(call.sid),
    call_direction: call.direction,
    from_number: call.from,
    to_number: call.to,
    call_status: call.status,
    answer_time: call.answeredAt?.toISOString() ?? null,
    end_time: call.endedAt?.toISOString() ?? null,
  });

  async function create(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const params = await readParams(req);
    for (const name of ['from', 'to', 'answer_url']) {
      if (!param(params, name)) return error(res, req, url, 400, `${name} parameter is required`);
    }
    for (const name of ['answer_url', 'hangup_url', 'ring_url']) {
      const value = param(params, name);
      if (value && !/^https?:\/\/\S+$/.test(value)) return error(res, req, url, 400, `${name} is not a valid URL`);
    }
    const requestUuid = randomUUID();
    const call = new SimCall({
      carrier: 'carrier-a',
      sid: randomUUID(),
      direction: 'outbound',
      from: param(params, 'from')!,
      to: param(params, 'to')!,
      accountId: account.authId,
      request: params,
      outcome: context.takeOutcome(),
      ringMs: context.ringMs,
    });
    requestIds.set(call.sid, requestUuid);
    reply(res, 201, { api_id: randomUUID(), message: 'call fired', request_uuid: requestUuid });
    context.register(call, driver);
  }

  /** Call transfer (`legs=aleg`, `aleg_url`): the carrier fetches the URL, signed, and follows its <Dial>. */
  async function transfer(req: IncomingMessage, res: ServerResponse, url: URL, call: SimCall): Promise<void> {
    const params = await readParams(req);
    call.apiRequests.push({ method: 'POST', path: url.pathname, params });
    const target = param(params, 'aleg_url');
    if (param(params, 'legs') !== 'aleg' || !target)
      return error(res, req, url, 400, 'legs must be aleg with an aleg_url');
    if (call.status !== 'in-progress') return error(res, req, url, 400, 'call is not in progress');
    const method = param(params, 'aleg_method')?.toUpperCase() === 'GET' ? 'GET' : 'POST';
    const fetchParams = { ...base(call), CallStatus: 'in-progress', Event: 'Transfer' };
    const record = await callWebhook(target, method, fetchParams, signed(method, fetchParams));
    call.webhooks.push(record);
    let number: string;
    try {
      if (record.status !== 200) throw new AnswerError(`the aleg_url answered ${record.status}`);
      number = dialTarget(record.body);
    } catch (problem) {
      call.errors.push(problem instanceof Error ? problem.message : String(problem));
      return error(res, req, url, 400, 'the transfer XML could not be followed');
    }
    void call.transferTo(number);
    reply(res, 202, { api_id: randomUUID(), message: 'call transferred' });
  }

  return {
    carrier: 'carrier-a',
    async handle(req, res, url) {
      const list = CALLS.exec(url.pathname);
      const one = list ? undefined : CALL.exec(url.pathname);
      if (!list && !one) return false;
      if (!authorised(req, (list ?? one)![1]!)) {
        error(res, req, url, 401, 'authentication failed');
        return true;
      }
      if (list) {
        if (req.method !== 'POST') error(res, req, url, 405, 'method not allowed');
        else await create(req, res, url);
        return true;
      }
      const id = one![2]!;
      const call =
        context.find('carrier-a', id) ??
        [...requestIds]
          .map(([sid, request]) => (request === id ? context.find('carrier-a', sid) : undefined))
          .find(Boolean);
      if (!call) error(res, req, url, 404, 'call not found');
      else if (req.method === 'GET') reply(res, 200, resource(call));
      else if (req.method === 'DELETE') {
        call.apiRequests.push({ method: 'DELETE', path: url.pathname, params: {} });
        void call.hangupByApi();
        res.writeHead(204).end();
      } else if (req.method === 'POST') await transfer(req, res, url, call);
      else error(res, req, url, 405, 'method not allowed');
      return true;
    },
    inbound(options: InboundCallOptions) {
      const request: Record<string, string> = { answer_url: options.url, answer_method: options.method ?? 'POST' };
      if (options.statusCallback) request.hangup_url = options.statusCallback;
      const call = new SimCall({
        carrier: 'carrier-a',
        sid: randomUUID(),
        direction: 'inbound',
        from: options.from,
        to: options.to,
        accountId: account.authId,
        request,
        outcome: 'answer',
        ringMs: 0,
      });
      context.register(call, driver);
      return call;
    },
  };
}
