/**
 * A control-plane app on a test database and bus, exercised through fastify.inject (real routing, hooks,
 * validation and serialisation; no sockets).
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Bus } from '@parley/engine/bus';
import { buildApp, type AppDependencies } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { KeyStore } from '../../src/auth/key-store.ts';
import type { AgentListeners } from '../../src/routes/v1/agents/index.ts';
import { KeyRing } from '../../src/secrets/key-ring.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimitName } from '../../src/rate-limits.ts';
import { createTestBus } from './bus.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { onSeededChange } from './seed.ts';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  bus: Bus;
  keys: KeyStore;
  /** The key ring of secrets at rest the app encrypts with. */
  secrets: KeyRing;
  /** An injected request with `Authorization: Bearer <key>` when a key is given. */
  call(key: string | undefined, options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const PUBLIC_URL = 'http://parley.test';

export interface TestAppOptions {
  rateLimits?: Partial<Record<RateLimitName, number>>;
  /** Share another app's database (it stays open when this app closes). */
  db?: TestDatabase;
  /** Share another app's bus (it stays open when this app closes); by default each app connects its own. */
  bus?: Bus;
  /** Cache lifetimes (keys and organisations); a long one proves a change arrived by broadcast, not by expiry. */
  cacheTtlMs?: number;
  /** Secrets at rest; default a ring of one fresh key. */
  secrets?: KeyRing;
  /** Told when agents are saved or deleted. */
  agentListeners?: AgentListeners;
  /** Whether a language model is there (or how to ask, at each save); default true. */
  languageModel?: boolean | (() => Promise<boolean>);
  /** The engine's recordings folder the recording route serves from. */
  recordingsDir?: string;
  /** Where the carriers' APIs are (fakes); by default the carriers' real addresses, which tests must not reach. */
  carrierApiUrls?: Config['carrierApiUrls'];
  /** The payment processor (a fake) and exchange rate; by default none, so card payments answer 503. */
  payments?: Config['payments'];
  /** Embeds knowledge search questions (hybrid search); default none (full text). */
  knowledgeEmbedder?: AppDependencies['knowledgeEmbedder'];
  /** PARLEY_DEFAULT_CONCURRENT_CALLS: live calls a pay-as-you-go organisation may have; default the product's. */
  defaultConcurrentCalls?: number;
  /** MCP sign-in: let client metadata documents come from loopback (PARLEY_OAUTH_CLIENT_METADATA_ALLOW_PRIVATE), and trust this CA. */
  oauthClientMetadata?: { allowPrivate: boolean; ca?: string };
  /** LiveKit mode for browser calls; default none (the engine's own WebRTC endpoint). */
  livekit?: Config['livekit'];
  /** PARLEY_METRICS_TOKEN: what GET /metrics wants as a bearer token; default none (open). */
  metricsToken?: string;
  /** The app's pino logger; default none (tests that read log lines pass their own). */
  logger?: AppDependencies['logger'];
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase());
  const bus = options.bus ?? (await createTestBus());
  const keys = new KeyStore(
    db.sql,
    bus,
    (error) => {
      throw error;
    },
    options.cacheTtlMs,
  );
  keys.listen();
  const secrets = options.secrets ?? KeyRing.generate('test').ring;
  const app = await buildApp({
    config: {
      publicUrl: PUBLIC_URL,
      rateLimits: { ...RATE_LIMIT_DEFAULTS, ...options.rateLimits },
      carrierApiUrls: options.carrierApiUrls,
      payments: options.payments,
      defaultConcurrentCalls: options.defaultConcurrentCalls,
      oauthClientMetadataAllowPrivate: options.oauthClientMetadata?.allowPrivate,
      livekit: options.livekit,
      metricsToken: options.metricsToken,
    },
    oauthClientMetadataCa: options.oauthClientMetadata?.ca,
    sql: db.sql,
    bus,
    keys,
    logger: options.logger ?? false,
    organisationCacheTtlMs: options.cacheTtlMs,
    secrets,
    agentListeners: options.agentListeners,
    languageModel: options.languageModel,
    recordingsDir: options.recordingsDir,
    knowledgeEmbedder: options.knowledgeEmbedder,
  });
  await app.ready();
  const stopHearingSeeds = onSeededChange((organisationId) => app.organisationCache.forget(organisationId));
  return {
    app,
    db,
    bus,
    keys,
    secrets,
    call(key, request) {
      const headers = { ...(request.headers ?? {}), ...(key ? { authorization: `Bearer ${key}` } : {}) };
      return app.inject({ ...request, headers });
    },
    async close() {
      stopHearingSeeds();
      await app.close();
      await keys.close();
      if (!options.bus) await bus.close();
      if (!options.db) await db.close();
    },
  };
}
