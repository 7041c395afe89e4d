/**
 * Configuration, read once at start into one typed object (docs/architecture.md §2). Nothing else reads the environment.
 * The variable names are part of the product: add more, never rename.
 */
import path from 'node:path';
import type { EngineConfig, VadMode } from '@parley/engine';
import { readRecordingsBucket, StorageConfigError, type S3BucketConfig } from '@parley/engine/storage';
import { ConfigError } from './config-error.ts';
import { dataDirFrom } from './data-dir.ts';
import type { LiveKitConfig } from './calls/launch/livekit-tokens.ts';
import { parseDollars } from './wallet/money.ts';
import { DEFAULT_CONCURRENT_CALLS } from './billing/call-admission.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimitName } from './rate-limits.ts';
import { CARRIER_API_DEFAULTS, CARRIERS, carrierApiUrlVariable, type Carrier } from './telephony/carrier.ts';

export const ALL_ROLES = ['control-plane', 'engine', 'stt-worker', 'llm-worker', 'tts-worker', 'sip-gateway'] as const;
export type Role = (typeof ALL_ROLES)[number];

export interface Config {
  /** HTTP port of the REST API, MCP, widget and pages. 0 picks a free port. */
  port: number;
  /** Address the HTTP server binds to. */
  host: string;
  enginePort: number;
  sipPort: number;
  /** SIP_HEALTH_PORT: the SIP gateway's own /healthz (docs/architecture.md §11). 0 picks a free port. */
  sipHealthPort: number;
  rtpPortMin: number;
  rtpPortMax: number;
  dataDir: string;
  /** Real Postgres; undefined means the embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Postgres schema holding Parley's tables (search_path); lets several installs or test files share one database. */
  databaseSchema: string;
  /** Real NATS; undefined means the in-process bus. */
  natsUrl: string | undefined;
  roles: Role[];
  publicUrl: string;
  mediaUrl: string;
  /** `id:base64key,…`; undefined means generated once into dataDir. */
  secretKeys: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  logLevel: string;
  rateLimits: Record<RateLimitName, number>;
  /**
   * Each carrier's REST API base URL (PARLEY_CARRIER_A_API_URL … PARLEY_CARRIER_E_API_URL), without a trailing
   * slash; undefined where the carrier has no public default and none is set.
   */
  carrierApiUrls: Record<Carrier, string | undefined>;
  /**
   * PARLEY_CARRIER_A_SERVICE_AUTH_ID: the service's own main carrier-a account (where it rents managed numbers), which
   * no organisation may connect as its own. Unset: no such account.
   */
  carrierAServiceAuthId: string | undefined;
  /** PARLEY_CARRIER_A_SERVICE_AUTH_TOKEN: that account's token, without which managed numbers cannot be rented (503). */
  carrierAServiceAuthToken: string | undefined;
  /** PARLEY_CARRIER_D_USERNAME / PARLEY_CARRIER_D_PASSWORD: the service's reseller account at the India numbering partner. */
  carrierDReseller: { username: string; password: string } | undefined;
  /** PARLEY_BOOTSTRAP_CREDIT_USD in US cents: what the first start puts in the bootstrap organisation's wallet. */
  bootstrapCreditMinor: number;
  /** The payment processor (Razorpay's API) that takes wallet top-ups, and the exchange rate quotes use. */
  payments: PaymentsConfig;
  /**
   * PARLEY_DEFAULT_CONCURRENT_CALLS: calls a pay-as-you-go organisation (no ACTIVE plan) may have live at once; a
   * plan's own concurrentCalls applies to plan billing (billing/call-admission.ts).
   */
  defaultConcurrentCalls: number;
  /**
   * PARLEY_DRAIN_SECONDS, in ms: on SIGTERM (or SIGINT) an engine lets its calls run this long before ending the
   * rest with a closing line (docs/architecture.md §18).
   */
  drainTimeoutMs: number;
  /**
   * PARLEY_OAUTH_CLIENT_METADATA_ALLOW_PRIVATE=1: MCP sign-in may fetch client metadata documents from private and
   * loopback addresses. For tests only: in production it would let anyone make the server fetch internal URLs (SSRF).
   */
  oauthClientMetadataAllowPrivate: boolean;
  /**
   * LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET, set together: browser calls happen in LiveKit rooms
   * (calls/launch/livekit-tokens.ts); undefined: on the engine's own WebRTC endpoint.
   */
  livekit: LiveKitConfig | undefined;
  /** Fail instead of skipping when an optional service is missing (CI). */
  requireAll: boolean;
  /**
   * PARLEY_METRICS_TOKEN: the bearer token every role's GET /metrics asks for; unset: /metrics is open
   * (docs/architecture.md §19).
   */
  metricsToken: string | undefined;
  /** WORKER_HEALTH_PORT: the worker roles' /healthz and /metrics; unset: none (0 picks a free port). */
  workerHealthPort: number | undefined;
  /** Speech and language providers of the engine roles. */
  engine: EngineConfig;
  /**
   * PARLEY_EMBEDDINGS_BASE_URL / _API_KEY / _MODEL (default text-embedding-3-small): an OpenAI-compatible embeddings
   * endpoint; with it and a vector type in the database, knowledge search is hybrid (docs/architecture.md §14).
   */
  embeddings: EmbeddingsConfig | undefined;
}

export interface EmbeddingsConfig {
  /** Base URL without a trailing slash, e.g. https://api.openai.com/v1; requests go to `<baseUrl>/embeddings`. */
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** PARLEY_EMBEDDINGS_MIN_SIMILARITY: cosine similarity a passage needs to count as found (default 0.3, OpenAI's scale). */
  minSimilarity: number | undefined;
}

/** OpenAI's small embeddings model: cheap, 1536 dimensions, good enough to rank passages for a call. */
export const DEFAULT_EMBEDDINGS_MODEL = 'text-embedding-3-small';

export interface PaymentsConfig {
  /** PARLEY_PAYMENTS_API_URL: the processor's API, default Razorpay's; a local fake in tests. */
  apiUrl: string;
  /**
   * PARLEY_PAYMENTS_KEY_ID / _KEY_SECRET / _WEBHOOK_SECRET, set together; undefined: card payments are unavailable
   * (the payment routes answer 503 naming these settings).
   */
  credentials: { keyId: string; keySecret: string; webhookSecret: string } | undefined;
  /**
   * PARLEY_FX_USD_INR: rupees per US dollar with up to 4 decimals, as an integer ×10⁴ (83.25 → 832500); undefined:
   * India's rupee quotes answer 502, as the spec says when no exchange rate is available.
   */
  usdInrRateE4: number | undefined;
}

/** Razorpay's API: orders are created at `${apiUrl}/v1/orders`. */
export const DEFAULT_PAYMENTS_API_URL = 'https://api.razorpay.com';

/** The first start's wallet credit: 10 USD, enough for a few minutes of calls on a new install. */
const DEFAULT_BOOTSTRAP_CREDIT_MINOR = 1000;

export { ConfigError };

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const port = readPort(env, 'PORT', 3000);
  const enginePort = readPort(env, 'ENGINE_PORT', 3100);
  const rtpPortMin = readPort(env, 'RTP_PORT_MIN', 40000);
  const rtpPortMax = readPort(env, 'RTP_PORT_MAX', 40999);
  if (rtpPortMin > rtpPortMax) throw new ConfigError('RTP_PORT_MIN must not be above RTP_PORT_MAX');
  return {
    port,
    host: nonEmpty(env.PARLEY_HOST) ?? '0.0.0.0',
    enginePort,
    sipPort: readPort(env, 'SIP_PORT', 5060),
    sipHealthPort: readPort(env, 'SIP_HEALTH_PORT', 5070),
    rtpPortMin,
    rtpPortMax,
    dataDir: dataDirFrom(env),
    databaseUrl: nonEmpty(env.DATABASE_URL),
    databaseSchema: readIdentifier(env, 'PARLEY_DB_SCHEMA', 'public'),
    natsUrl: nonEmpty(env.NATS_URL),
    roles: readRoles(env.PARLEY_ROLES),
    publicUrl: trimSlash(nonEmpty(env.PARLEY_PUBLIC_URL) ?? `http://127.0.0.1:${port}`),
    mediaUrl: trimSlash(nonEmpty(env.PARLEY_MEDIA_URL) ?? `ws://127.0.0.1:${enginePort}`),
    secretKeys: nonEmpty(env.PARLEY_SECRET_KEYS),
    smtpUrl: nonEmpty(env.SMTP_URL),
    mailFrom: nonEmpty(env.PARLEY_MAIL_FROM) ?? 'Parley <no-reply@parley.local>',
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    rateLimits: readRateLimits(env.PARLEY_RATE_LIMITS),
    carrierApiUrls: readCarrierApiUrls(env),
    carrierAServiceAuthId: nonEmpty(env.PARLEY_CARRIER_A_SERVICE_AUTH_ID),
    carrierAServiceAuthToken: nonEmpty(env.PARLEY_CARRIER_A_SERVICE_AUTH_TOKEN),
    carrierDReseller: readReseller(nonEmpty(env.PARLEY_CARRIER_D_USERNAME), nonEmpty(env.PARLEY_CARRIER_D_PASSWORD)),
    bootstrapCreditMinor: readDollars(env, 'PARLEY_BOOTSTRAP_CREDIT_USD', DEFAULT_BOOTSTRAP_CREDIT_MINOR),
    payments: readPayments(env),
    defaultConcurrentCalls: readCount(env, 'PARLEY_DEFAULT_CONCURRENT_CALLS', DEFAULT_CONCURRENT_CALLS),
    drainTimeoutMs: readDrainSeconds(env) * 1000,
    oauthClientMetadataAllowPrivate: env.PARLEY_OAUTH_CLIENT_METADATA_ALLOW_PRIVATE === '1',
    livekit: readLiveKit(env),
    requireAll: env.PARLEY_REQUIRE_ALL === '1',
    metricsToken: nonEmpty(env.PARLEY_METRICS_TOKEN),
    workerHealthPort: readOptionalPort(env, 'WORKER_HEALTH_PORT'),
    engine: readEngineConfig(env, enginePort),
    embeddings: readEmbeddings(env),
  };
}

function readEmbeddings(env: Env): EmbeddingsConfig | undefined {
  const baseUrl = nonEmpty(env.PARLEY_EMBEDDINGS_BASE_URL);
  if (!baseUrl) return undefined;
  return {
    baseUrl: trimSlash(baseUrl),
    apiKey: nonEmpty(env.PARLEY_EMBEDDINGS_API_KEY),
    model: nonEmpty(env.PARLEY_EMBEDDINGS_MODEL) ?? DEFAULT_EMBEDDINGS_MODEL,
    minSimilarity: readSimilarity(env.PARLEY_EMBEDDINGS_MIN_SIMILARITY),
  };
}

function readSimilarity(value: string | undefined): number | undefined {
  if (nonEmpty(value) === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < -1 || number > 1) {
    throw new ConfigError('PARLEY_EMBEDDINGS_MIN_SIMILARITY must be a number from -1 to 1');
  }
  return number;
}

/** The engine's providers (docs/architecture.md §2): an OpenAI-compatible LLM, and STT/TTS defaults with vendor endpoints. */
function readEngineConfig(env: Env, enginePort: number): EngineConfig {
  const mediaUrl = nonEmpty(env.PARLEY_MEDIA_URL);
  const llmBaseUrl = nonEmpty(env.PARLEY_LLM_BASE_URL);
  const llmModel = nonEmpty(env.PARLEY_LLM_MODEL);
  if (llmBaseUrl && !llmModel) throw new ConfigError('PARLEY_LLM_MODEL is required with PARLEY_LLM_BASE_URL');
  return {
    llm: llmBaseUrl
      ? { baseUrl: trimSlash(llmBaseUrl), apiKey: nonEmpty(env.PARLEY_LLM_API_KEY), model: llmModel! }
      : undefined,
    sttProvider: nonEmpty(env.PARLEY_STT) ?? 'pocketsphinx',
    ttsProvider: nonEmpty(env.PARLEY_TTS) ?? 'flite',
    sttBaseUrl: nonEmpty(env.PARLEY_STT_BASE_URL),
    ttsBaseUrl: nonEmpty(env.PARLEY_TTS_BASE_URL),
    deepgramApiKey: nonEmpty(env.DEEPGRAM_API_KEY),
    elevenlabsApiKey: nonEmpty(env.ELEVENLABS_API_KEY),
    openaiApiKey: nonEmpty(env.OPENAI_API_KEY),
    vad: readVadMode(env.PARLEY_VAD),
    recordingsDir: path.join(dataDirFrom(env), 'recordings'),
    recordingsBucket: readBucket(env),
    vadModelPath: nonEmpty(env.PARLEY_VAD_MODEL),
    metricsToken: nonEmpty(env.PARLEY_METRICS_TOKEN),
    workerHealth: optional(readOptionalPort(env, 'WORKER_HEALTH_PORT'), (port) => ({ port })),
    // The media server carriers stream calls to. Without PARLEY_MEDIA_URL it names the port it actually bound
    // (ENGINE_PORT=0 picks a free one).
    media: {
      port: enginePort,
      publicUrl: mediaUrl === undefined ? undefined : trimSlash(mediaUrl),
      webrtcHosts: readWebrtcHosts(env),
    },
  };
}

/** PARLEY_WEBRTC_HOSTS: IPv4 addresses offered to browsers besides the interfaces' (a public or NAT address). */
function readWebrtcHosts(env: Env): string[] | undefined {
  const raw = nonEmpty(env.PARLEY_WEBRTC_HOSTS);
  if (raw === undefined) return undefined;
  const hosts = raw.split(',').map((host) => host.trim());
  for (const host of hosts)
    if (!/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host) || host.split('.').some((n) => Number(n) > 255))
      throw new ConfigError(`PARLEY_WEBRTC_HOSTS: "${host}" is not an IPv4 address`);
  return hosts;
}

/**
 * PARLEY_RECORDINGS_BUCKET and PARLEY_S3_*: the bucket engines upload finished recordings to and the control plane
 * serves them from; undefined keeps them in the recordings folder. Read by the engine's own reader, so both roles
 * agree on what the variables mean.
 */
function readBucket(env: Env): S3BucketConfig | undefined {
  try {
    return readRecordingsBucket(env);
  } catch (error) {
    if (error instanceof StorageConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/** Every VadMode (the compiler checks it against the engine's type; the engine root is not loaded for a list). */
const VAD_MODES = ['auto', 'silero', 'energy'] as const satisfies readonly VadMode[];

function readVadMode(value: string | undefined): VadMode {
  const mode = nonEmpty(value) ?? 'auto';
  if (!(VAD_MODES as readonly string[]).includes(mode))
    throw new ConfigError(`PARLEY_VAD: "${mode}" is not one of ${VAD_MODES.join(', ')}`);
  return mode as VadMode;
}

/** Parses a PARLEY_ROLES / --roles value: a comma-separated list, `all` or empty for every role. */
export function readRoles(value: string | undefined): Role[] {
  const text = nonEmpty(value);
  if (!text || text === 'all') return [...ALL_ROLES];
  const roles = text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const role of roles) {
    if (!(ALL_ROLES as readonly string[]).includes(role)) {
      throw new ConfigError(`PARLEY_ROLES: unknown role "${role}"; known roles: ${ALL_ROLES.join(', ')}`);
    }
  }
  return [...new Set(roles)] as Role[];
}

/** PARLEY_RATE_LIMITS overrides per-minute limits by name, e.g. `widget=60,telephony=10`. */
function readRateLimits(value: string | undefined): Record<RateLimitName, number> {
  const limits: Record<RateLimitName, number> = { ...RATE_LIMIT_DEFAULTS };
  for (const pair of (nonEmpty(value) ?? '').split(',').filter(Boolean)) {
    const [name, raw] = pair.split('=').map((s) => s.trim());
    if (!name || !(name in limits)) {
      throw new ConfigError(`PARLEY_RATE_LIMITS: unknown limit "${name}"; known: ${Object.keys(limits).join(', ')}`);
    }
    const perMinute = Number(raw);
    if (!Number.isInteger(perMinute) || perMinute < 1) {
      throw new ConfigError(`PARLEY_RATE_LIMITS: ${name} must be a positive integer (requests per minute)`);
    }
    limits[name as RateLimitName] = perMinute;
  }
  return limits;
}

/** PARLEY_CARRIER_<X>_API_URL: an http(s) URL, else the carrier's real API (CARRIER_API_DEFAULTS). */
function readCarrierApiUrls(env: Env): Record<Carrier, string | undefined> {
  const urls = {} as Record<Carrier, string | undefined>;
  for (const carrier of CARRIERS) {
    const name = carrierApiUrlVariable(carrier);
    const value = nonEmpty(env[name]);
    if (value !== undefined && !/^https?:\/\/[^/\s]+/i.test(value))
      throw new ConfigError(`${name} must be an http(s) URL`);
    urls[carrier] = value === undefined ? CARRIER_API_DEFAULTS[carrier] : trimSlash(value);
  }
  return urls;
}

function readLiveKit(env: Env): LiveKitConfig | undefined {
  const url = nonEmpty(env.LIVEKIT_URL);
  const apiKey = nonEmpty(env.LIVEKIT_API_KEY);
  const apiSecret = nonEmpty(env.LIVEKIT_API_SECRET);
  if (!url && !apiKey && !apiSecret) return undefined;
  if (!url || !apiKey || !apiSecret)
    throw new ConfigError('LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET are set together');
  if (!/^(wss?|https?):\/\/[^/\s]+/i.test(url)) throw new ConfigError('LIVEKIT_URL must be a ws(s) or http(s) URL');
  return { url: trimSlash(url), apiKey, apiSecret };
}

function readReseller(username: string | undefined, password: string | undefined): Config['carrierDReseller'] {
  if (!username !== !password)
    throw new ConfigError('PARLEY_CARRIER_D_USERNAME and PARLEY_CARRIER_D_PASSWORD are set together');
  return username && password ? { username, password } : undefined;
}

function readPayments(env: Env): PaymentsConfig {
  const apiUrl = nonEmpty(env.PARLEY_PAYMENTS_API_URL);
  if (apiUrl !== undefined && !/^https?:\/\/[^/\s]+/i.test(apiUrl))
    throw new ConfigError('PARLEY_PAYMENTS_API_URL must be an http(s) URL');
  const keyId = nonEmpty(env.PARLEY_PAYMENTS_KEY_ID);
  const keySecret = nonEmpty(env.PARLEY_PAYMENTS_KEY_SECRET);
  const webhookSecret = nonEmpty(env.PARLEY_PAYMENTS_WEBHOOK_SECRET);
  const given = [keyId, keySecret, webhookSecret].filter((value) => value !== undefined).length;
  // Half a configuration would take money it can never confirm (no webhook secret) or could not take at all.
  if (given !== 0 && given !== 3)
    throw new ConfigError(
      'PARLEY_PAYMENTS_KEY_ID, PARLEY_PAYMENTS_KEY_SECRET and PARLEY_PAYMENTS_WEBHOOK_SECRET are set together',
    );
  return {
    apiUrl: trimSlash(apiUrl ?? DEFAULT_PAYMENTS_API_URL),
    credentials: given === 3 ? { keyId: keyId!, keySecret: keySecret!, webhookSecret: webhookSecret! } : undefined,
    usdInrRateE4: readRateE4(env, 'PARLEY_FX_USD_INR'),
  };
}

/** An exchange rate such as 83.25 as an integer ×10⁴; never rounded. */
function readRateE4(env: Env, name: string): number | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  const match = /^(\d{1,6})(?:\.(\d{1,4}))?$/.exec(raw);
  const rateE4 = match ? Number(match[1]) * 10_000 + Number((match[2] ?? '').padEnd(4, '0')) : 0;
  if (rateE4 <= 0) throw new ConfigError(`${name} must be a positive rate such as 83.25 (up to 4 decimals)`);
  return rateE4;
}

function readDollars(env: Env, name: string, fallbackMinor: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallbackMinor;
  const minor = parseDollars(raw);
  if (minor === undefined) throw new ConfigError(`${name} must be an amount in dollars such as 10 or 2.50`);
  return minor;
}

function readPort(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new ConfigError(`${name} must be a port number`);
  return value;
}

/** A port when the variable is set, undefined when not (a listener that runs only when asked for). */
function readOptionalPort(env: Env, name: string): number | undefined {
  return nonEmpty(env[name]) === undefined ? undefined : readPort(env, name, 0);
}

function optional<T, U>(value: T | undefined, make: (value: T) => U): U | undefined {
  return value === undefined ? undefined : make(value);
}

/** A whole number from 1 to 10000 (the range billing_plans.concurrent_calls allows). */
/**
 * Default PARLEY_DRAIN_SECONDS: inside the 30 s an orchestrator commonly waits after SIGTERM before SIGKILL
 * (Kubernetes' terminationGracePeriodSeconds), with room left for the closing lines and the bus's own drain.
 */
const DEFAULT_DRAIN_SECONDS = 25;
/** The longest drain allowed, s: an hour outlasts any call worth waiting for. */
const MAX_DRAIN_SECONDS = 3600;

function readDrainSeconds(env: Env): number {
  const raw = nonEmpty(env.PARLEY_DRAIN_SECONDS);
  if (raw === undefined) return DEFAULT_DRAIN_SECONDS;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > MAX_DRAIN_SECONDS)
    throw new ConfigError(`PARLEY_DRAIN_SECONDS must be a number of seconds from 0 to ${MAX_DRAIN_SECONDS}`);
  return value;
}

function readCount(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 10_000)
    throw new ConfigError(`${name} must be a whole number from 1 to 10000`);
  return value;
}

function readIdentifier(env: Env, name: string, fallback: string): string {
  const raw = nonEmpty(env[name]) ?? fallback;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) throw new ConfigError(`${name} must be a lower-case SQL identifier`);
  return raw;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
