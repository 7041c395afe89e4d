/**
 * carrier-b's webhooks (Twilio-style), outside /api/v1 and without an API key: every request must carry a valid
 * X-Twilio-Signature of the organisation's carrier-b account (HMAC-SHA1 of the full URL and the sorted POST
 * parameters, keyed by its auth token), else 403.
 *
 * - POST /webhooks/carrier-b/answer/:callId  the outbound call was answered: TwiML connecting it to the engine's stream
 * - POST /webhooks/carrier-b/status/:callId  status callbacks: answered → IN_PROGRESS; ended → the record finished
 * - POST /webhooks/carrier-b/voice           an inbound call to one of the account's numbers
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { CallPlacement } from '../../calls/placement.ts';
import { hangupXml, refusalXml, verifyCarrierBSignature } from '../../calls/placement-carrier-b.ts';

const CallParams = Type.Object({ callId: Type.String({ minLength: 1, maxLength: 64 }) });
type Params = Record<string, string>;

export default async function carrierBWebhookRoutes(app: FastifyInstance, options: { placement: CallPlacement }) {
  const { placement } = options;

  // Carriers post form-encoded parameters; parsed here only, for these routes.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const signedBy = (request: FastifyRequest, authToken: string | undefined) =>
    authToken !== undefined && verifyCarrierBSignature(authToken, `${placement.publicUrl}${request.url}`, paramsOf(request), header(request));
  const xml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/xml; charset=utf-8').send(body);
  const forbidden = (reply: FastifyReply) => reply.code(403).type('text/plain; charset=utf-8').send('Invalid or missing X-Twilio-Signature');

  const config = { auth: 'public' as const };

  app.post<{ Params: { callId: string } }>('/webhooks/carrier-b/answer/:callId', { schema: { hide: true, params: CallParams }, config }, async (request, reply) => {
    const call = await placement.callById(request.params.callId);
    if (!call) return xml(reply, hangupXml(), 404);
    if (!signedBy(request, await placement.carrierBAuthToken(call.organisation_id))) return forbidden(reply);
    return xml(reply, await placement.answerOutbound(call));
  });

  app.post<{ Params: { callId: string } }>('/webhooks/carrier-b/status/:callId', { schema: { hide: true, params: CallParams }, config }, async (request, reply) => {
    const call = await placement.callById(request.params.callId);
    if (!call) return xml(reply, '<Response/>', 404);
    if (!signedBy(request, await placement.carrierBAuthToken(call.organisation_id))) return forbidden(reply);
    await placement.carrierBStatus(call, paramsOf(request));
    return xml(reply, '<Response/>');
  });

  app.post('/webhooks/carrier-b/voice', { schema: { hide: true }, config }, async (request, reply) => {
    const params = paramsOf(request);
    const account = params.AccountSid ? await placement.inboundIntegration(params.AccountSid) : undefined;
    // No organisation has this account: nothing to check the signature with, and nothing to answer the call.
    if (!account) return xml(reply, refusalXml('Sorry, this number is not in service. Goodbye.'));
    if (!signedBy(request, account.authToken)) return forbidden(reply);
    if (!params.To || !params.From) return xml(reply, refusalXml('Sorry, this call cannot be taken. Goodbye.'));
    return xml(reply, await placement.answerInbound(account.organisationId, { from: params.From, to: params.To, callSid: params.CallSid ?? '' }));
  });
}

function paramsOf(request: FastifyRequest): Params {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return {};
  return Object.fromEntries(Object.entries(body as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function header(request: FastifyRequest): string | undefined {
  const value = request.headers['x-twilio-signature'];
  return typeof value === 'string' ? value : undefined;
}
