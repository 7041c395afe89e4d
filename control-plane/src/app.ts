/**
 * The control plane's Fastify application: plugins, then routes. It is built from what it depends on (database,
 * bus, key store) and opens nothing itself, so tests and the server build it the same way.
 */
import Fastify, { LogController, type FastifyContextConfig, type FastifyInstance, type FastifySchema } from 'fastify';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { Bus } from '@parley/engine/bus';
import type { Config } from './config.ts';
import type { Sql } from './db/database.ts';
import type { KeyStore } from './auth/key-store.ts';
import { OrganisationCache } from './accounts/organisation-cache.ts';
import { sharedSchemas } from './routes/v1/account-schemas.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { ErrorBody } from './http/schemas.ts';
import { validatorCompiler } from './http/validation.ts';
import { answerClientError, answerFrameworkError, MAX_PATH_VALUE_LENGTH } from './http/framework-errors.ts';
import { installStorableTextRule } from './http/storable-text.ts';
import authPlugin from './plugins/app/auth.ts';
import tenancyPlugin from './plugins/app/tenancy.ts';
import rateLimitPlugin from './plugins/external/rate-limit.ts';
import swaggerPlugin from './plugins/external/swagger.ts';
import { KeyRecordSchema } from './routes/v1/api-keys/schemas.ts';
import type { KeyRing } from './secrets/key-ring.ts';
import healthRoutes from './routes/health.ts';
import metricsRoutes from './routes/metrics.ts';
import httpMetricsPlugin from './plugins/app/http-metrics.ts';
import agentRoutes, { type AgentListeners } from './routes/v1/agents/index.ts';
import apiKeyRoutes from './routes/v1/api-keys/index.ts';
import invitationRoutes from './routes/v1/invitations/index.ts';
import memberRoutes from './routes/v1/members/index.ts';
import organisationRoutes from './routes/v1/organisations/index.ts';
import voiceRoutes from './routes/v1/voices/index.ts';
import aiEnhancementRoutes from './routes/v1/ai-enhancement/index.ts';
import telephonyRoutes from './routes/v1/telephony/index.ts';
import voiceSessionRoutes from './routes/v1/voice-sessions/index.ts';
import callHistoryRoutes from './routes/v1/call-history/index.ts';
import resultsRoutes from './routes/v1/results/index.ts';
import analyticsRoutes from './routes/v1/analytics/index.ts';
import invitePageRoutes from './routes/pages/invite.ts';
import voiceSessionPlacementRoutes from './routes/v1/voice-session/index.ts';
import webhookRoutes from './routes/webhooks/index.ts';
import walletRoutes from './routes/v1/wallet/index.ts';
import billingRoutes from './routes/v1/billing/index.ts';
import payPageRoutes from './routes/pages/pay.ts';
import paymentRoutes from './routes/v1/payments/index.ts';
import sipConfigRoutes from './routes/v1/sip-config/index.ts';
import knowledgeBaseRoutes from './routes/v1/knowledge-bases/index.ts';
import catalogueRoutes from './routes/v1/catalogues/index.ts';
import { RazorpayClient } from './integrations/payments/razorpay.ts';
import type { PaymentSetup } from './payments/payment-setup.ts';
import type { Embedder } from './knowledge/embeddings/embedder.ts';
import { createPhoneCalls, type PhoneCalls } from './calls/launch/phone-calls.ts';
import { createCampaigns, type Campaigns } from './campaigns/campaigns.ts';
import campaignRoutes from './routes/v1/campaigns/index.ts';
import { DEFAULT_CONCURRENT_CALLS } from './billing/call-admission.ts';
import widgetRoutes, { answerWidgetPreflight } from './routes/v1/widget/index.ts';
import widgetScriptRoutes from './routes/pages/widget-script.ts';
import { ChatReplies } from './chat/chat-replies.ts';
import { mcpPlugin, injectRestClient, MCP_PATH } from '@parley/mcp';
import oauthRoutes from './routes/oauth/index.ts';
import { AuthorizationServer } from './oauth/authorization-server.ts';
import { ClientDirectory } from './oauth/clients.ts';
import { CUSTOMER_SCOPES } from './auth/scopes.ts';

export const API_PREFIX = '/api/v1';
export const API_VERSION = '0.1.0';
/** Largest JSON body accepted; uploads (knowledge, catalogues) set their own larger limits on their routes. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** One registered route, as the tenant-isolation harness and the docs enumerate them. */
export interface RouteEntry {
  method: string;
  url: string;
  config: FastifyContextConfig;
  schema: FastifySchema | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
    bus: Bus;
    /** Every route registered, in registration order. */
    routeCatalogue: RouteEntry[];
    organisationCache: OrganisationCache;
    /** Placing and answering phone calls; the server's background jobs (scheduler, carrier control) use it too. */
    phoneCalls: PhoneCalls;
    /** Campaigns: the routes use it; the server starts its dialler and upload reader. */
    campaigns: Campaigns;
  }
}

export interface AppDependencies {
  config: Pick<Config, 'publicUrl' | 'rateLimits'> &
    Partial<
      Pick<
        Config,
        | 'carrierApiUrls'
        | 'carrierAServiceAuthId'
        | 'carrierAServiceAuthToken'
        | 'carrierDReseller'
        | 'payments'
        | 'defaultConcurrentCalls'
        | 'oauthClientMetadataAllowPrivate'
        | 'livekit'
        | 'metricsToken'
      >
    >;
  sql: Sql;
  bus: Bus;
  keys: KeyStore;
  logger: Logger | false;
  /** Called when mail was queued, so the outbox sends it now. */
  onMailQueued?: () => void;
  /** Lifetime of cached organisations without an announced change; default ORGANISATION_CACHE_TTL_MS. */
  organisationCacheTtlMs?: number;
  /** Secrets at rest (webhook bearer tokens); without it such secrets can be neither saved nor read (503). */
  secrets?: KeyRing;
  /** Told when an agent is saved or deleted, after commit (the greeting audio cache listens here). */
  agentListeners?: AgentListeners;
  /** The engine's recordings folder, from which GET /voice-sessions/{id}/recording serves (embedded or a shared volume). */
  recordingsDir?: string;
  /** The recordings bucket (PARLEY_RECORDINGS_BUCKET), from which it serves recordings the engines uploaded. */
  recordingsBucket?: Config['engine']['recordingsBucket'];
  /**
   * Whether a language model is there for calls (server.ts asks the live llm workers' heartbeats at each save); false
   * adds a warning to PROMPT agents' saves. Default true.
   */
  languageModel?: boolean | (() => Promise<boolean>);
  /** Extra certificate authorities (PEM) for fetching OAuth client metadata documents: a test server's own. */
  oauthClientMetadataCa?: string;
  /** Told when a knowledge document was stored, so the processing job (knowledge/knowledge-job.ts) looks now. */
  onKnowledgeQueued?: () => void;
  /** Embeds search questions when knowledge search is hybrid (knowledge/search-mode.ts); undefined: full text. */
  knowledgeEmbedder?: Embedder;
  /** The campaigns' clock (windows, dates, cooldowns); default the wall clock. Tests drive the dialler with their own. */
  campaignClock?: () => Date;
}

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger || undefined,
    logger: deps.logger ? undefined : false,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    // docs/architecture.md §19: request logs carry `requestId`, the name of the x-request-id header they answer with.
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_VALUE_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }) as unknown as FastifyInstance;

  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  // The MCP door hands its tools' arguments to the routes above, which refuse them as tool results (spec document 3).
  installStorableTextRule(app, (url) => url === '/mcp' || url.startsWith('/mcp/'));
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  const catalogue: RouteEntry[] = [];
  app.decorate('routeCatalogue', catalogue);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      catalogue.push({
        method,
        url: route.url,
        config: (route.config ?? {}) as FastifyContextConfig,
        schema: route.schema,
      });
    }
  });
  app.decorate('sql', deps.sql);
  app.decorate('bus', deps.bus);
  const organisationCache = new OrganisationCache(
    deps.sql,
    deps.bus,
    (error) => app.log.error({ err: error }, 'organisation cache'),
    deps.organisationCacheTtlMs,
  );
  organisationCache.listen();
  app.decorate('organisationCache', organisationCache);
  app.addHook('onClose', async () => organisationCache.close());
  for (const schema of [ErrorBody, KeyRecordSchema, ...sharedSchemas]) app.addSchema(schema);

  await app.register(swaggerPlugin, { publicUrl: deps.config.publicUrl, version: API_VERSION });
  await app.register(authPlugin, { keys: deps.keys });
  await app.register(tenancyPlugin);
  await app.register(rateLimitPlugin, { limits: deps.config.rateLimits });

  await app.register(httpMetricsPlugin);
  await app.register(healthRoutes);
  await app.register(metricsRoutes, { token: deps.config.metricsToken });
  await app.register(invitePageRoutes);
  await app.register(widgetScriptRoutes);
  answerWidgetPreflight(app, API_PREFIX);
  const payments = deps.config.payments;
  const paymentSetup: PaymentSetup = {
    sql: deps.sql,
    processor: payments?.credentials ? new RazorpayClient(payments.apiUrl, payments.credentials) : undefined,
    keyRing: deps.secrets,
    publicUrl: deps.config.publicUrl.replace(/\/+$/, ''),
    usdInrRateE4: payments?.usdInrRateE4,
    log: (level, message, detail) => app.log[level](detail, message),
    now: () => new Date(),
  };
  await app.register(payPageRoutes, { setup: paymentSetup });
  const phoneCalls = createPhoneCalls({
    sql: deps.sql,
    bus: deps.bus,
    publicUrl: deps.config.publicUrl,
    carrierApiUrls: deps.config.carrierApiUrls,
    keyRing: deps.secrets,
    admission: { defaultConcurrentCalls: deps.config.defaultConcurrentCalls ?? DEFAULT_CONCURRENT_CALLS },
    livekit: deps.config.livekit,
    log: (level, message, detail) => app.log[level](detail, message),
  });
  app.decorate('phoneCalls', phoneCalls);
  const campaigns = createCampaigns({
    sql: deps.sql,
    placer: phoneCalls.placement,
    admission: { defaultConcurrentCalls: deps.config.defaultConcurrentCalls ?? DEFAULT_CONCURRENT_CALLS },
    now: deps.campaignClock,
    log: (level, message, detail) => app.log[level](detail, message),
  });
  app.decorate('campaigns', campaigns);
  await app.register(webhookRoutes, {
    calls: phoneCalls.carrierCalls,
    publicUrl: deps.config.publicUrl,
    payments: paymentSetup,
  });
  await app.register(
    async (v1) => {
      await v1.register(apiKeyRoutes);
      await v1.register(organisationRoutes);
      await v1.register(memberRoutes);
      await v1.register(invitationRoutes, {
        publicUrl: deps.config.publicUrl,
        onMailQueued: deps.onMailQueued ?? (() => {}),
      });
      await v1.register(agentRoutes, {
        keyRing: deps.secrets,
        languageModel: deps.languageModel ?? true,
        ...deps.agentListeners,
      });
      await v1.register(voiceRoutes);
      await v1.register(aiEnhancementRoutes);
      await v1.register(voiceSessionRoutes, {
        recordingsDir: deps.recordingsDir,
        recordingsBucket: deps.recordingsBucket,
      });
      await v1.register(voiceSessionPlacementRoutes, { placement: phoneCalls.placement });
      await v1.register(callHistoryRoutes, { publicUrl: deps.config.publicUrl });
      await v1.register(resultsRoutes, { publicUrl: deps.config.publicUrl });
      await v1.register(analyticsRoutes);
      await v1.register(paymentRoutes, { setup: paymentSetup });
      await v1.register(telephonyRoutes, {
        publicUrl: deps.config.publicUrl,
        carrierApiUrls: deps.config.carrierApiUrls,
        keyRing: deps.secrets,
        serviceAccounts: { 'carrier-a': deps.config.carrierAServiceAuthId },
        serviceTokens: { 'carrier-a': deps.config.carrierAServiceAuthToken },
        resellers: { 'carrier-d': deps.config.carrierDReseller },
      });
      await v1.register(walletRoutes);
      await v1.register(billingRoutes);
      await v1.register(sipConfigRoutes, { keyRing: deps.secrets });
      const chat = new ChatReplies({
        sql: deps.sql,
        bus: deps.bus,
        keyRing: deps.secrets,
        callbacks: phoneCalls.placement,
        log: (level, message, detail) => app.log[level](detail, message),
      });
      await v1.register(widgetRoutes, {
        keyRing: deps.secrets,
        chat,
        apiPrefix: API_PREFIX,
        web: phoneCalls.placement.webDeps,
      });
      await v1.register(knowledgeBaseRoutes, { onQueued: deps.onKnowledgeQueued, embedder: deps.knowledgeEmbedder });
      await v1.register(catalogueRoutes);
      await v1.register(campaignRoutes, { campaigns });
    },
    { prefix: API_PREFIX },
  );

  // MCP sign-in (docs/architecture.md §17): tokens for the MCP server (the default resource) or the REST API.
  const publicUrl = deps.config.publicUrl.replace(/\/+$/, '');
  const oauthClients = new ClientDirectory(deps.sql, {
    allowPrivateAddresses: deps.config.oauthClientMetadataAllowPrivate ?? false,
    ca: deps.oauthClientMetadataCa,
  });
  const authorizationServer = new AuthorizationServer({
    sql: deps.sql,
    keys: deps.keys,
    clients: oauthClients,
    issuer: publicUrl,
    resources: [publicUrl + MCP_PATH, publicUrl + API_PREFIX],
  });
  await app.register(oauthRoutes, { sql: deps.sql, server: authorizationServer, clients: oauthClients, publicUrl });

  // The MCP server is a client of the routes above, reached in-process (docs/architecture.md §1).
  await app.register(mcpPlugin, {
    rest: injectRestClient(app, API_PREFIX),
    publicUrl: deps.config.publicUrl,
    authorizationServer: publicUrl,
    requestsPerMinute: deps.config.rateLimits.mcp,
    scopes: CUSTOMER_SCOPES,
  });

  return app;
}
