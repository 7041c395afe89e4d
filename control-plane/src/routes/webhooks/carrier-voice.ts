/**
 * The voice webhooks of carrier-a, carrier-b and carrier-c, outside /api/v1 and without an API key. Every request
 * must be the carrier's: signed with the organisation's account secret (carrier-b X-Twilio-Signature, carrier-a
 * X-Plivo-Signature-V3), or for carrier-c, which does not sign, carrying the URL token Parley gave it — else 403.
 *
 * - POST /webhooks/:carrier/answer/:callId  the outbound call was answered: the document that opens the stream
 * - POST /webhooks/:carrier/status/:callId  progress and end of the call (carrier-a: ring_url and hangup_url)
 * - POST /webhooks/:carrier/dial/:callId    carrier-a fetches a transferred call's dial instructions here
 * - POST /webhooks/:carrier/voice           an inbound call to one of the account's numbers (carrier-c: GET, from
 *                                           the flow's Voicebot applet, answered `{ "url": "wss://…" }`)
 * - POST /webhooks/:carrier/hangup          the end of an inbound call, named by the carrier's id of it (carrier-a's
 *                                           application hangup_url)
 *
 * An inbound call nobody can take hears a polite refusal and is hung up; it is never answered 500.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { REFUSALS, type CarrierCalls } from '../../calls/launch/carrier-calls.ts';
import type { CallRow } from '../../calls/repository/call-records.ts';
import {
  isVoiceCarrier,
  voiceCarriers,
  type CarrierDocument,
  type VoiceCarrierName,
  type WebhookRequest,
} from '../../carriers/voice-carriers.ts';
import { ApiError, notFound } from '../../errors.ts';
import { organisationOfNumber } from '../../telephony/phone-number-repository.ts';

const CallParams = Type.Object({
  carrier: Type.String({ minLength: 1, maxLength: 32 }),
  callId: Type.String({ minLength: 1, maxLength: 64 }),
});
const CarrierParams = Type.Object({ carrier: Type.String({ minLength: 1, maxLength: 32 }) });
type Params = Record<string, string>;

export default async function carrierVoiceRoutes(
  app: FastifyInstance,
  options: { calls: CarrierCalls; publicUrl: string },
) {
  const { calls } = options;
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const config = { auth: 'public' as const };

  // Carriers post form-encoded parameters; parsed here only, for these routes.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const send = (reply: FastifyReply, document: CarrierDocument, status = 200) =>
    reply.code(status).type(document.contentType).send(document.body);
  // Refusals of the request itself (unknown carrier, bad signature) answer in the API's envelope like every route;
  // only a refusal the carrier must play to a caller is a carrier document.
  const forbidden = (_reply: FastifyReply, carrier: VoiceCarrierName): never => {
    throw new ApiError(
      'forbidden',
      voiceCarriers[carrier].signsWebhooks ? 'Invalid or missing signature' : 'Invalid or missing token',
    );
  };
  const webhook = (request: FastifyRequest): WebhookRequest => ({
    method: request.method,
    url: `${publicUrl}${request.url}`,
    params: paramsOf(request),
    headers: request.headers,
  });

  /** The call the webhook names, when its carrier account signed the request; else the reply is sent. */
  async function signedCall(
    request: FastifyRequest<{ Params: { carrier: string; callId: string } }>,
    reply: FastifyReply,
  ): Promise<{ call: CallRow; carrier: VoiceCarrierName } | undefined> {
    const { carrier, callId } = request.params;
    if (!isVoiceCarrier(carrier)) {
      throw notFound('Carrier');
    }
    const call = await calls.callById(callId);
    if (!call || call.meta_data.carrier !== carrier) {
      await send(reply, voiceCarriers[carrier].refusal(''), 404);
      return undefined;
    }
    const account = await calls.accounts.find(app.sql, call.organisation_id, carrier);
    if (!account || !voiceCarriers[carrier].verify(account.secret, webhook(request))) {
      await forbidden(reply, carrier);
      return undefined;
    }
    return { call, carrier };
  }

  const callRoute = { schema: { hide: true, params: CallParams }, config };

  app.post<{ Params: { carrier: string; callId: string } }>(
    '/webhooks/:carrier/answer/:callId',
    callRoute,
    async (request, reply) => {
      const signed = await signedCall(request, reply);
      if (!signed) return reply;
      return send(reply, await calls.answerOutbound(signed.call, signed.carrier, paramsOf(request)));
    },
  );

  app.post<{ Params: { carrier: string; callId: string } }>(
    '/webhooks/:carrier/status/:callId',
    callRoute,
    async (request, reply) => {
      const signed = await signedCall(request, reply);
      if (!signed) return reply;
      await calls.progress(signed.call, signed.carrier, paramsOf(request));
      return send(reply, voiceCarriers[signed.carrier].statusAck);
    },
  );

  app.post<{ Params: { carrier: string; callId: string } }>(
    '/webhooks/:carrier/dial/:callId',
    callRoute,
    async (request, reply) => {
      const signed = await signedCall(request, reply);
      if (!signed) return reply;
      return send(reply, await calls.dialDocument(signed.call, signed.carrier));
    },
  );

  const inbound = async (request: FastifyRequest<{ Params: { carrier: string } }>, reply: FastifyReply) => {
    const { carrier } = request.params;
    if (!isVoiceCarrier(carrier)) throw notFound('Carrier');
    const voice = voiceCarriers[carrier];
    const params = paramsOf(request);
    const call = voice.inbound(params);
    if (!call) return send(reply, voice.refusal(REFUSALS.badRequest));
    const organisationId = await inboundOrganisation(carrier, call.accountId, call.to);
    // No organisation has this account or number: nothing to check a signature with, and nothing to answer the call.
    if (!organisationId) return send(reply, voice.refusal(REFUSALS.unknownNumber));
    const account = await calls.accounts.find(app.sql, organisationId, carrier);
    if (!account) return send(reply, voice.refusal(REFUSALS.unknownNumber));
    // carrier-c's voice URL is typed into its flow by hand, so it carries no token: the number decides.
    if (voice.signsWebhooks && !voice.verify(account.secret, webhook(request))) return forbidden(reply, carrier);
    return send(reply, await calls.answerInbound(carrier, organisationId, call));
  };

  /** The organisation the call is for: by the account the carrier names, else by the number called. */
  async function inboundOrganisation(
    carrier: VoiceCarrierName,
    accountId: string | undefined,
    to: string,
  ): Promise<string | undefined> {
    if (accountId) return calls.accounts.organisationOf(app.sql, carrier, accountId);
    return organisationOfNumber(app.sql, to, carrier);
  }

  app.post<{ Params: { carrier: string } }>(
    '/webhooks/:carrier/hangup',
    { schema: { hide: true, params: CarrierParams }, config },
    async (request, reply) => {
      const { carrier } = request.params;
      if (!isVoiceCarrier(carrier)) throw notFound('Carrier');
      const voice = voiceCarriers[carrier];
      const callRef = voice.callRefOf(paramsOf(request));
      const call = callRef ? await calls.callByCarrierRef(carrier, callRef) : undefined;
      // A call Parley never answered (refused, or not ours): nothing to record.
      if (!call) return send(reply, voice.refusal(''));
      const account = await calls.accounts.find(app.sql, call.organisation_id, carrier);
      if (!account || !voice.verify(account.secret, webhook(request))) return forbidden(reply, carrier);
      await calls.progress(call, carrier, paramsOf(request));
      return send(reply, { contentType: 'text/xml; charset=utf-8', body: '<Response/>' });
    },
  );

  const inboundRoute = { schema: { hide: true, params: CarrierParams }, config };
  app.post('/webhooks/:carrier/voice', inboundRoute, inbound);
  app.get('/webhooks/:carrier/voice', inboundRoute, inbound);
}

/** The request's parameters: the form body of a POST, the query of a GET. */
function paramsOf(request: FastifyRequest): Params {
  const source = request.method === 'GET' ? request.query : request.body;
  if (typeof source !== 'object' || source === null) return {};
  return Object.fromEntries(
    Object.entries(source as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}
