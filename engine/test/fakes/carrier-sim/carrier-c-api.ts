/**
 * carrier-c's REST API and call behaviour (Exotel-style Voice v1):
 *
 * - `POST /v1/Accounts/{AccountSid}/Calls/connect[.json]` (HTTP basic: API key and API token; form-encoded). The
 *   number dialled is `From`; `CallerId` is the account's number. Either `StreamUrl` with `StreamType=bidirectional`
 *   (Connect Voice AI: the answered call streams straight there) or `Url`, a flow
 *   (`…/exoml/start_voice/{app_id}`) whose Voicebot applet streams (register it with
 *   `CarrierSimulator.setVoicebotApp`). `StatusCallback` hears the end (`terminal`), and the answer when
 *   `StatusCallbackEvents` asks for `answered`. → 200 `{ "Call": { Sid, Status, … } }` (XML without `.json`);
 *   errors as `{ "RestException": { Status, Message } }`.
 * - A Voicebot applet URL is a websocket URL (its query string carries custom parameters and `sample-rate`), or an
 *   https URL the carrier GETs (CallSid, CallFrom, CallTo, Direction…) for `{ "url": "wss://…" }`.
 * - Exotel does not sign its webhooks.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnswerError, type StreamInstruction } from './answer-xml.ts';
import { SimCall, type CallDriver } from './sim-call.ts';
import type { CarrierApi, InboundCallOptions, SimContext } from './sim-context.ts';
import type { SimFormat } from './sim-format.ts';
import { basicAuth, callWebhook, exotelTime, param, paramList, readParams, reply } from './sim-http.ts';

const CONNECT = /^\/v1\/accounts\/([^/]+)\/calls\/connect(\.json)?$/i;
/** Where a flow names its app: `http://my.exotel.com/{sid}/exoml/start_voice/{app_id}`. */
const FLOW_APP = /\/start_voice\/([^/?#]+)/;
const SAMPLE_RATES = new Set([8000, 16000, 24000]);

export function carrierCApi(context: SimContext): CarrierApi {
  const account = context.accounts['carrier-c'];

  const error = (res: ServerResponse, req: IncomingMessage, url: URL, status: number, message: string) =>
    context.refuse(
      res,
      { carrier: 'carrier-c', method: req.method ?? '', path: url.pathname, status, message },
      { RestException: { Status: status, Message: message } },
    );

  /** Where the answered call streams, and in what format, from a voicebot URL (fetched when it is https). */
  async function streamOf(
    call: SimCall,
    voicebotUrl: string,
  ): Promise<{ instruction: StreamInstruction; format: SimFormat }> {
    let target = voicebotUrl;
    if (/^https?:\/\//.test(voicebotUrl)) {
      const record = await callWebhook(voicebotUrl, 'GET', {
        CallSid: call.sid,
        CallFrom: call.direction === 'outbound' ? call.to : call.from,
        CallTo: call.direction === 'outbound' ? call.from : call.to,
        Direction: call.direction === 'outbound' ? 'outbound-dial' : 'incoming',
        Created: exotelTime(call.createdAt),
        CustomField: param(call.request, 'CustomField') ?? '',
      });
      call.answerFetch = record;
      call.webhooks.push(record);
      if (record.status !== 200) throw new AnswerError(`the voicebot URL answered ${record.status}`);
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        throw new AnswerError('the voicebot URL did not answer JSON');
      }
      const url = (body as { url?: unknown }).url;
      if (typeof url !== 'string') throw new AnswerError('the voicebot URL answered no "url"');
      target = url;
    }
    if (!/^wss?:\/\//.test(target)) throw new AnswerError(`not a websocket URL: ${target}`);
    const parsed = new URL(target);
    const rate = Number(parsed.searchParams.get('sample-rate') ?? 8000);
    if (!SAMPLE_RATES.has(rate)) throw new AnswerError(`sample-rate ${rate} is not offered`);
    const parameters: Record<string, string> = {};
    for (const [key, value] of parsed.searchParams) if (key !== 'sample-rate') parameters[key] = value;
    return { instruction: { url: target, parameters }, format: { encoding: 'l16', sampleRate: rate } };
  }

  const driver: CallDriver = {
    async answer(call) {
      const direct = param(call.request, 'StreamUrl', 'streamurl');
      if (direct) return streamOf(call, direct);
      const flow = param(call.request, 'Url', 'url') ?? '';
      const app = FLOW_APP.exec(flow)?.[1] ?? flow;
      const voicebot = context.voicebotApps.get(app);
      if (!voicebot) throw new AnswerError(`flow ${flow} has no Voicebot applet (setVoicebotApp)`);
      return streamOf(call, voicebot);
    },
    async notify(call, event) {
      const url = param(call.request, 'StatusCallback', 'statuscallback');
      if (!url) return;
      const subscribed = paramList(
        call.request,
        'StatusCallbackEvents',
        'StatusCallbackEvents[]',
        'statuscallbackevents',
        'statuscallbackevents[]',
      );
      if (event === 'answered' ? !subscribed.includes('answered') : event !== 'ended') return;
      const duration =
        call.answeredAt && call.endedAt ? Math.round((call.endedAt.getTime() - call.answeredAt.getTime()) / 1000) : 0;
      const params: Record<string, string> = {
        CallSid: call.sid,
        DateUpdated: exotelTime(new Date()),
        Status: event === 'answered' ? 'in-progress' : call.status === 'canceled' ? 'failed' : call.status,
        RecordingUrl: '',
      };
      if (subscribed.length) {
        Object.assign(params, {
          EventType: event === 'answered' ? 'answered' : 'terminal',
          DateCreated: exotelTime(call.createdAt),
          // Outbound, `From` is the number dialled first (the callee) and `To` the one connected after it, if any.
          To: call.direction === 'outbound' ? (param(call.request, 'To', 'to') ?? '') : call.to,
          From: call.direction === 'outbound' ? call.to : call.from,
          PhoneNumberSid: call.direction === 'outbound' ? call.from : call.to,
          StartTime: exotelTime(call.answeredAt ?? call.createdAt),
          EndTime: call.endedAt ? exotelTime(call.endedAt) : '',
          ConversationDuration: String(duration),
          Direction: call.direction === 'outbound' ? 'outbound-api' : 'inbound',
          CustomField: param(call.request, 'CustomField', 'customfield') ?? '',
          Legs: JSON.stringify([{ OnCallDuration: duration, Status: call.status, AnsweredBy: 'NA' }]),
        });
      }
      call.webhooks.push(await callWebhook(url, 'POST', params));
    },
  };

  const resource = (call: SimCall) => ({
    Sid: call.sid,
    ParentCallSid: null,
    DateCreated: exotelTime(call.createdAt),
    DateUpdated: exotelTime(new Date()),
    AccountSid: account.accountSid,
    To: call.to,
    From: call.from,
    PhoneNumberSid: call.from,
    Status: call.status === 'queued' ? 'in-progress' : call.status,
    StartTime: exotelTime(call.createdAt),
    EndTime: null,
    Duration: null,
    Price: null,
    Direction: 'outbound-api',
    AnsweredBy: null,
    ForwardedFrom: null,
    CallerName: null,
    Uri: `/v1/Accounts/${account.accountSid}/Calls/${call.sid}.json`,
    RecordingUrl: null,
  });

  return {
    carrier: 'carrier-c',
    async handle(req, res, url) {
      const match = CONNECT.exec(url.pathname);
      if (!match) return false;
      const credentials = basicAuth(req);
      if (
        credentials?.user !== account.apiKey ||
        credentials.password !== account.apiToken ||
        match[1] !== account.accountSid
      ) {
        error(res, req, url, 401, 'Authentication is required to view this page.');
        return true;
      }
      if (req.method !== 'POST') {
        error(res, req, url, 405, 'Method not allowed');
        return true;
      }
      const params = await readParams(req);
      // The number dialled is From; CallerId is the account's own number that the callee sees.
      const callee = param(params, 'From', 'from');
      const callerId = param(params, 'CallerId', 'callerid');
      const streamUrl = param(params, 'StreamUrl', 'streamurl');
      const flow = param(params, 'Url', 'url');
      if (!callee) error(res, req, url, 400, 'From is mandatory');
      else if (!callerId) error(res, req, url, 400, 'CallerId is mandatory');
      else if (!streamUrl && !flow) error(res, req, url, 400, 'Url (a flow) or StreamUrl is mandatory');
      else if (streamUrl && param(params, 'StreamType', 'streamtype') !== 'bidirectional')
        error(res, req, url, 400, 'StreamType must be bidirectional');
      else {
        const call = new SimCall({
          carrier: 'carrier-c',
          sid: randomBytes(16).toString('hex'),
          direction: 'outbound',
          from: callerId,
          to: callee,
          accountId: account.accountSid,
          request: params,
          outcome: context.takeOutcome(),
          ringMs: context.ringMs,
        });
        if (match[2]) reply(res, 200, { Call: resource(call) });
        else
          reply(
            res,
            200,
            `<?xml version="1.0" encoding="UTF-8"?>\n<TwilioResponse><Call>${Object.entries(resource(call))
              .map(([k, v]) => `<${k}>${v ?? ''}</${k}>`)
              .join('')}</Call></TwilioResponse>`,
            'application/xml',
          );
        context.register(call, driver);
      }
      return true;
    },
    inbound(options: InboundCallOptions) {
      const request: Record<string, string> = { StreamUrl: options.url };
      if (options.statusCallback) request.StatusCallback = options.statusCallback;
      const call = new SimCall({
        carrier: 'carrier-c',
        sid: randomBytes(16).toString('hex'),
        direction: 'inbound',
        from: options.from,
        to: options.to,
        accountId: account.accountSid,
        request,
        outcome: 'answer',
        ringMs: 0,
      });
      context.register(call, driver);
      return call;
    },
  };
}
