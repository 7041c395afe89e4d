/**
 * carrier-b's REST API and call behaviour (Twilio Programmable Voice, API version 2010-04-01):
 *
 * - `POST /2010-04-01/Accounts/{AccountSid}/Calls.json` (HTTP basic: AccountSid and auth token; form-encoded To,
 *   From, Url or Twiml, Method, StatusCallback, StatusCallbackEvent, StatusCallbackMethod) → 201 with the Call
 *   resource; 401 code 20003, 400 codes 21201 (no To), 21213 (no From), 21205 (no or bad Url).
 * - `POST …/Calls/{CallSid}.json` with `Status=completed|canceled` hangs the call up; `GET` reads it.
 * - When answered, the carrier requests the Url (signed X-Twilio-Signature) and reads TwiML; status callbacks
 *   (initiated, ringing, answered, completed — only `completed` unless StatusCallbackEvent says more) are signed too.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnswerError, dialTarget, twimlStream } from './answer-xml.ts';
import { SimCall, type CallDriver, type SimCallEvent } from './sim-call.ts';
import type { CarrierApi, InboundCallOptions, SimContext } from './sim-context.ts';
import { basicAuth, callWebhook, param, paramList, readParams, reply, type FormParams } from './sim-http.ts';
import { twilioSignature } from './webhook-signatures.ts';

const API_VERSION = '2010-04-01';
const CALLS = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\.json$/;
const CALL = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\.json$/;
const EVENTS = ['initiated', 'ringing', 'answered', 'completed'] as const;

export function carrierBApi(context: SimContext): CarrierApi {
  const account = context.accounts['carrier-b'];

  const error = (res: ServerResponse, req: IncomingMessage, url: URL, status: number, code: number, message: string) =>
    context.refuse(
      res,
      { carrier: 'carrier-b', method: req.method ?? '', path: url.pathname, status, message },
      { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
    );

  const authorised = (req: IncomingMessage, sid: string) => {
    const credentials = basicAuth(req);
    return (
      credentials?.user === account.accountSid &&
      credentials.password === account.authToken &&
      sid === account.accountSid
    );
  };

  const resource = (call: SimCall) => ({
    sid: call.sid,
    account_sid: account.accountSid,
    to: call.to,
    from: call.from,
    status: call.status,
    direction: call.direction === 'outbound' ? 'outbound-api' : 'inbound',
    api_version: API_VERSION,
    date_created: call.createdAt.toUTCString(),
    start_time: call.answeredAt?.toUTCString() ?? null,
    end_time: call.endedAt?.toUTCString() ?? null,
    duration:
      call.endedAt && call.answeredAt
        ? String(Math.round((call.endedAt.getTime() - call.answeredAt.getTime()) / 1000))
        : null,
    answered_by: null,
    parent_call_sid: null,
    price: null,
    price_unit: 'USD',
    uri: `/${API_VERSION}/Accounts/${account.accountSid}/Calls/${call.sid}.json`,
  });

  const driver = (): CallDriver => {
    let sequence = 0;
    return {
      async answer(call) {
        const inline = param(call.request, 'Twiml');
        if (inline) return { instruction: twimlStream(inline), format: { encoding: 'mulaw', sampleRate: 8000 } };
        const url = param(call.request, 'Url')!;
        const method = (param(call.request, 'Method')?.toUpperCase() ?? 'POST') === 'GET' ? 'GET' : 'POST';
        const record = await callWebhook(
          url,
          method,
          baseParams(call, call.direction === 'outbound' ? 'in-progress' : 'ringing'),
          (target) => ({
            'x-twilio-signature': twilioSignature(
              account.authToken,
              target,
              method === 'POST' ? baseParams(call, call.direction === 'outbound' ? 'in-progress' : 'ringing') : {},
            ),
          }),
        );
        call.answerFetch = record;
        call.webhooks.push(record);
        if (record.status !== 200) throw new AnswerError(`the answer URL answered ${record.status}`);
        return { instruction: twimlStream(record.body), format: { encoding: 'mulaw', sampleRate: 8000 } };
      },
      async notify(call, event) {
        const url = param(call.request, 'StatusCallback');
        const name = EVENT_NAMES[event];
        if (!url || !name) return;
        const subscribed = paramList(call.request, 'StatusCallbackEvent');
        if (!(subscribed.length ? subscribed : ['completed']).includes(name)) return;
        const method = param(call.request, 'StatusCallbackMethod')?.toUpperCase() === 'GET' ? 'GET' : 'POST';
        const params: Record<string, string> = {
          ...baseParams(call, name === 'answered' ? 'in-progress' : name === 'completed' ? call.status : name),
          CallbackSource: 'call-progress-events',
          SequenceNumber: String(sequence++),
          Timestamp: new Date().toUTCString(),
        };
        if (name === 'completed') {
          const duration =
            call.answeredAt && call.endedAt
              ? Math.round((call.endedAt.getTime() - call.answeredAt.getTime()) / 1000)
              : 0;
          params.CallDuration = String(duration);
          params.Duration = String(Math.ceil(duration / 60));
        }
        call.webhooks.push(
          await callWebhook(url, method, params, (target) => ({
            'x-twilio-signature': twilioSignature(account.authToken, target, method === 'POST' ? params : {}),
          })),
        );
      },
    };
  };

  function baseParams(call: SimCall, status: string): Record<string, string> {
    // Answering-machine detection, when the call asked for it, reports who picked up from the answer on.
    const detected: Record<string, string> =
      param(call.request, 'MachineDetection') && call.answeredAt
        ? { AnsweredBy: call.answeredByMachine ? 'machine_start' : 'human' }
        : {};
    return {
      ...detected,
      AccountSid: account.accountSid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      CallStatus: status,
      Called: call.to,
      Caller: call.from,
      Direction: call.direction === 'outbound' ? 'outbound-api' : 'inbound',
      From: call.from,
      To: call.to,
    };
  }

  async function create(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const params = await readParams(req);
    const to = param(params, 'To');
    const from = param(params, 'From');
    if (!to) return error(res, req, url, 400, 21201, "No 'To' number is specified");
    if (!from) return error(res, req, url, 400, 21213, "No 'From' number is specified");
    const answer = param(params, 'Url');
    if (!answer && !param(params, 'Twiml')) return error(res, req, url, 400, 21205, 'Url parameter is required');
    for (const name of ['Url', 'StatusCallback']) {
      const value = param(params, name);
      if (value && !/^https?:\/\/[^\s]+$/.test(value))
        return error(res, req, url, 400, 21205, `${name} is not a valid URL: ${value}`);
    }
    // The REST API takes one event per parameter, repeated (space-separated lists are TwiML's attribute syntax).
    const events = params.StatusCallbackEvent === undefined ? [] : ([] as string[]).concat(params.StatusCallbackEvent);
    const unknownEvents = events.filter((e) => !(EVENTS as readonly string[]).includes(e));
    if (unknownEvents.length)
      return error(res, req, url, 400, 21626, `Invalid StatusCallbackEvent: ${unknownEvents.join(', ')}`);
    const call = new SimCall({
      carrier: 'carrier-b',
      sid: `CA${randomBytes(16).toString('hex')}`,
      direction: 'outbound',
      from,
      to,
      accountId: account.accountSid,
      request: params,
      outcome: context.takeOutcome(),
      ringMs: context.ringMs,
    });
    reply(res, 201, resource(call));
    context.register(call, driver());
  }

  async function update(req: IncomingMessage, res: ServerResponse, url: URL, call: SimCall): Promise<void> {
    const params: FormParams = await readParams(req);
    call.apiRequests.push({ method: 'POST', path: url.pathname, params });
    const twiml = param(params, 'Twiml');
    if (twiml !== undefined) {
      // New instructions for a live call: the simulator follows a <Dial> (a transfer) and nothing else.
      if (call.status !== 'in-progress')
        return error(res, req, url, 400, 21220, 'Call is not in-progress. Cannot redirect.');
      let number: string;
      try {
        number = dialTarget(twiml);
      } catch (problem) {
        return error(
          res,
          req,
          url,
          400,
          12100,
          `Document parse failure: ${problem instanceof Error ? problem.message : String(problem)}`,
        );
      }
      void call.transferTo(number);
      return reply(res, 200, resource(call));
    }
    const status = param(params, 'Status');
    if (status !== 'completed' && status !== 'canceled')
      return error(
        res,
        req,
        url,
        400,
        21218,
        `Invalid Status: ${status ?? '(none)'}; the simulator takes completed or canceled`,
      );
    const ended = call.ended;
    void call.hangupByApi();
    if (call.status === 'queued' || call.status === 'ringing') await ended;
    reply(res, 200, resource(call));
  }

  return {
    carrier: 'carrier-b',
    async handle(req, res, url) {
      const list = CALLS.exec(url.pathname);
      const one = CALL.exec(url.pathname);
      if (!list && !one) return false;
      const sid = (list ?? one)![1]!;
      if (!authorised(req, sid)) {
        error(res, req, url, 401, 20003, 'Authenticate');
        return true;
      }
      if (list) {
        if (req.method !== 'POST') error(res, req, url, 405, 20004, 'Method not allowed');
        else await create(req, res, url);
        return true;
      }
      const call = context.find('carrier-b', one![2]!);
      if (!call) error(res, req, url, 404, 20404, `The requested resource ${url.pathname} was not found`);
      else if (req.method === 'GET') reply(res, 200, resource(call));
      else if (req.method === 'POST') await update(req, res, url, call);
      else error(res, req, url, 405, 20004, 'Method not allowed');
      return true;
    },
    inbound(options: InboundCallOptions) {
      const request: Record<string, string> = { Url: options.url, Method: options.method ?? 'POST' };
      if (options.statusCallback) request.StatusCallback = options.statusCallback;
      const call = new SimCall({
        carrier: 'carrier-b',
        sid: `CA${randomBytes(16).toString('hex')}`,
        direction: 'inbound',
        from: options.from,
        to: options.to,
        accountId: account.accountSid,
        request,
        outcome: 'answer',
        ringMs: 0,
      });
      context.register(call, driver());
      return call;
    },
  };
}

/** The carrier's name of each lifecycle moment it reports; the others it keeps to itself. */
const EVENT_NAMES: Partial<Record<SimCallEvent, (typeof EVENTS)[number]>> = {
  initiated: 'initiated',
  ringing: 'ringing',
  answered: 'answered',
  ended: 'completed',
};
