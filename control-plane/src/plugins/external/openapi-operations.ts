/**
 * What every operation of the OpenAPI document gets from one place rather than from each route: an operationId
 * (the name a generated client gives the call), tags, `security: []` on public routes, and the error answers the
 * app's own machinery gives, derived from what the route has: authentication → 401 and 403, inputs → 400, path
 * parameters → 404, a rate limit → 429. A route's own documented answers are kept as written.
 */
import type { FastifySchema, RouteOptions } from 'fastify';
import { isRateLimit } from './rate-limit.ts';

type Responses = Record<string, Record<string, unknown>>;
type OperationSchema = Record<string, unknown> & { response?: Responses; tags?: string[]; security?: unknown[] };

/** What an error answer means, for the document (the body is the route's error schema). */
const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'Invalid request: `errors` names each failing field',
  401: 'Missing, invalid or revoked API key',
  403: 'The key lacks the scope or role this route needs, or the wrong kind of key',
  404: 'Not found (or not visible to this key)',
  429: 'Rate limit exceeded; Retry-After says when to try again',
};

/**
 * Where the naming rule (see operationIdOf) reads badly, the name to use instead, by "METHOD /path" as the document
 * shows it. Names are part of the API for generated clients: change one only with the API's version.
 */
const OPERATION_ID_OVERRIDES: Record<string, string> = {
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'GET /api/v1/api-keys/me': 'getCurrentApiKey',
  'GET /api/v1/api-keys/widget': 'listWidgetTokens',
  'POST /api/v1/api-keys/widget': 'createWidgetToken',
  'POST /api/v1/api-keys/widget/revoke': 'revokeWidgetToken',
  'GET /api/v1/organisations/user/{userId}': 'listUserOrganisations',
  'GET /api/v1/members/organisation/{organisationId}/members': 'listMembers',
  'POST /api/v1/members/organisation/{organisationId}/members': 'addMember',
  'PUT /api/v1/members/organisation/{organisationId}/members/{userId}': 'updateMember',
  'DELETE /api/v1/members/organisation/{organisationId}/members/{userId}': 'removeMember',
  'GET /api/v1/members/user/{userId}/memberships': 'listUserMemberships',
  'POST /api/v1/organisations/{organisationId}/invite': 'inviteMember',
  'GET /api/v1/organisations/{organisationId}/invitations': 'listInvitations',
  'POST /api/v1/members/organisation/{organisationId}/invite': 'inviteMemberViaMembers',
  'GET /api/v1/members/organisation/{organisationId}/invitations': 'listInvitationsViaMembers',
  'DELETE /api/v1/organisations/{organisationId}/invitations/{id}': 'cancelInvitation',
  'GET /api/v1/invitations/{token}': 'previewInvitation',
  'POST /api/v1/invitations/{token}/accept': 'acceptInvitation',
  'GET /api/v1/voice/agent-instruction-budget': 'getInstructionBudget',
  'GET /api/v1/voice/organisations/{organisationId}/flow-agents': 'listFlowAgents',
  'GET /api/v1/voice/agents/{id}/greeting/audio': 'getAgentGreetingAudio',
  'POST /api/v1/ai-enhancement/enhance-field': 'enhanceField',
  'POST /api/v1/ai-enhancement/enhance-fields': 'enhanceFields',
  'POST /api/v1/voice-sessions': 'createCallRecord',
  'GET /api/v1/voice-sessions/stats': 'getCallStats',
  'GET /api/v1/voice-sessions/organization/{orgId}': 'listCallRecords',
  'GET /api/v1/voice-sessions/room/{roomName}': 'getCallByRoom',
  'POST /api/v1/voice-sessions/room/{roomName}/end': 'endCall',
  'GET /api/v1/voice-sessions/{sessionId}': 'getCall',
  'GET /api/v1/voice-sessions/{sessionId}/recording': 'getCallRecording',
  'POST /api/v1/voice/session': 'placeCall',
  'POST /api/v1/voice/callback': 'placeCallback',
  'GET /api/v1/call-history/sessions/organization/{orgId}': 'listCallHistory',
  'GET /api/v1/wallet/{organisationId}/check-balance': 'checkWalletBalance',
  'GET /api/v1/billing/details/{organisationId}': 'getBillingDetails',
  'GET /api/v1/billing/status/{organisationId}': 'getBillingStatus',
  'GET /api/v1/billing/usage/{organisationId}/details': 'listUsageRecords',
  'GET /api/v1/billing/subscriptions/{id}/change-quote': 'quoteSubscriptionChange',
  'POST /api/v1/billing/subscriptions/{id}/change': 'changeSubscriptionPlan',
  'GET /api/v1/call-history/sessions/organization/{orgId}/export': 'exportCallHistory',
  'GET /api/v1/call-history/sessions/room/{roomName}/transcripts': 'getCallTranscript',
  'GET /api/v1/voice/agents/{agentId}/results/summary': 'getAgentResultsSummary',
  'GET /api/v1/voice/agents/{agentId}/results': 'listAgentResults',
  'GET /api/v1/voice/agents/{agentId}/results/export': 'exportAgentResults',
  'GET /api/v1/voice/organisations/{organisationId}/results/default-agent': 'getDefaultResultsAgent',
  'POST /api/v1/analytics/analyze': 'analyzeCalls',
  'POST /api/v1/analytics/analyze-overview': 'analyzeCallsOverview',
  'GET /api/v1/telephony/numbers/{organisationId}': 'listPhoneNumbers',
  'PUT /api/v1/telephony/numbers/{id}/agent': 'assignPhoneNumberAgent',
  'DELETE /api/v1/telephony/numbers/{id}/agent': 'unassignPhoneNumberAgent',
  'PUT /api/v1/telephony/numbers/{id}/calling-scope': 'setPhoneNumberCallingScope',
  'PUT /api/v1/telephony/numbers/{id}/call-limit': 'setPhoneNumberCallLimit',
  'GET /api/v1/telephony/managed/{organisationId}': 'getManagedTelephony',
  'POST /api/v1/telephony/carrier-b/search': 'searchCarrierBNumbers',
  'POST /api/v1/telephony/carrier-b/purchase': 'purchaseCarrierBNumber',
  'POST /api/v1/telephony/carrier-d/kyc/{step}': 'submitCarrierDKycStep',
  'GET /api/v1/telephony/carrier-d/dids/{organisationId}': 'listCarrierDNumbers',
  'POST /api/v1/telephony/carrier-d/purchase': 'purchaseCarrierDNumber',
  'POST /api/v1/telephony/carrier-d/numbers/{id}/renew': 'renewCarrierDNumber',
  'POST /api/v1/billing/topup-quote': 'quoteTopUp',
  'POST /api/v1/billing/topups': 'createPlanTopUp',
  'POST /api/v1/billing/subscriptions': 'buyPlan',
  'POST /api/v1/payments/create-order': 'createPaymentOrder',
  'POST /webhooks/payments/razorpay': 'receivePaymentWebhook',
  'POST /mcp': 'callMcp',
  'GET /mcp': 'openMcpStream',
  'DELETE /mcp': 'endMcpSession',
  'GET /mcp/health': 'getMcpHealth',
  'GET /.well-known/oauth-protected-resource/mcp': 'getMcpResourceMetadata',
  'GET /.well-known/oauth-authorization-server': 'getAuthorizationServerMetadata',
  'POST /oauth/token': 'requestOAuthToken',
  'POST /oauth/register': 'registerOAuthClient',
  'POST /oauth/revoke': 'revokeOAuthToken',
};

/** Last path words that name what the call does rather than a resource: POST …/agents/{id}/duplicate → duplicateAgent. */
const ACTION_WORDS = new Set(['duplicate', 'connect', 'sync', 'search', 'purchase', 'revoke', 'accept', 'renew']);
/** Path words that group routes without naming a resource. */
const NAMESPACE_WORDS = new Set(['api', 'v1', 'voice']);

/**
 * The naming rule: a verb from the method (GET list/get, POST create, PUT update, DELETE delete) or the path's
 * closing action word, then the path's resource words in order, singular where a parameter picks one out:
 * GET /voice/agents → listAgents, GET /voice/agents/{id} → getAgent, GET /telephony/overview/{organisationId} →
 * getTelephonyOverview, POST /telephony/carrier-a/connect → connectCarrierA.
 */
export function operationIdOf(method: string, path: string): string {
  const override = OPERATION_ID_OVERRIDES[`${method} ${path}`];
  if (override) return override;
  const segments = path.split('/').filter(Boolean);
  const words: string[] = [];
  segments.forEach((segment, i) => {
    if (segment.startsWith('{') || NAMESPACE_WORDS.has(segment)) return;
    const picked = segments[i + 1]?.startsWith('{') ?? false;
    words.push(picked ? singular(segment) : segment);
  });
  const last = segments.at(-1) ?? '';
  let verb: string;
  if (method === 'POST' && ACTION_WORDS.has(last)) {
    verb = words.pop()!;
    if (words.length) words[words.length - 1] = singular(words.at(-1)!);
  } else if (method === 'GET') {
    verb = last.startsWith('{') || !last.endsWith('s') ? 'get' : 'list';
  } else {
    verb = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' }[method] ?? method.toLowerCase();
    if (verb === 'create' && words.length) words[words.length - 1] = singular(words.at(-1)!);
  }
  return verb + words.map(pascal).join('');
}

const singular = (word: string) => word.replace(/ies$/, 'y').replace(/s$/, '');
const pascal = (word: string) =>
  word
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** The first static path word after the namespace, when a route names no tag. */
function defaultTag(path: string): string {
  return path.split('/').find((s) => s && !s.startsWith('{') && !NAMESPACE_WORDS.has(s)) ?? 'other';
}

interface RouteToDocument {
  schema: FastifySchema;
  url: string;
  route: RouteOptions;
}

/** The fastify-swagger transform: the route's schema as the document should show it. */
export function documentOperation({ schema, url, route }: RouteToDocument): Omit<RouteToDocument, 'route'> {
  const given = (schema ?? {}) as OperationSchema;
  if (given.hide) return { schema, url };
  const path = url.replace(/:(\w+)/g, '{$1}');
  const method = [route.method].flat()[0]!.toUpperCase();
  const auth = route.config?.auth ?? (url.startsWith('/api/') ? 'key' : 'public');
  const hasInput = ['body', 'querystring', 'params', 'headers'].some((part) => given[part] !== undefined);
  const rateLimited = [route.preHandler ?? []].flat().some(isRateLimit);

  const response: Responses = { ...given.response };
  // Without a response schema the document shows a bare 200; keep it beside the errors added here.
  if (!given.response) response['200'] = { description: 'Default Response' };
  const errorSchema = routeErrorSchema(response);
  const standard: string[] = [];
  if (auth !== 'public') standard.push('401', '403');
  if (hasInput) standard.push('400');
  if (given.params !== undefined) standard.push('404');
  if (rateLimited) standard.push('429');
  for (const code of standard) response[code] ??= errorSchema;
  for (const [code, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    const answer = response[code];
    // A bare reference takes the standard wording; a route that described its own answer keeps its words.
    if (answer && Object.keys(answer).length === 1 && '$ref' in answer) response[code] = { ...answer, description };
  }

  const documented: OperationSchema = {
    ...given,
    operationId: operationIdOf(method, path),
    tags: given.tags?.length ? given.tags : [defaultTag(path)],
    // Only a route that says it is public: others outside /api (the MCP server) check their own tokens.
    ...(route.config?.auth === 'public' && given.security === undefined ? { security: [] } : {}),
    ...(given.response || standard.length ? { response: sortedByStatus(response) } : {}),
  };
  return { url, schema: documented as FastifySchema };
}

/** The route's own error body (the agent routes have one of their own), else the app's. */
function routeErrorSchema(response: Responses): Record<string, unknown> {
  const declared = Object.values(Object.fromEntries(Object.entries(response).filter(([code]) => code.startsWith('4'))));
  const ref = declared.find((answer) => typeof answer.$ref === 'string')?.$ref;
  return { $ref: ref ?? 'ErrorBody' };
}

function sortedByStatus(response: Responses): Responses {
  return Object.fromEntries(Object.entries(response).sort(([a], [b]) => a.localeCompare(b)));
}
