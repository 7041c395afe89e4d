/**
 * docker-compose.yml describes a real deployment (docs/architecture.md §2, §19). No container runtime runs here, so
 * what can be checked without one is checked:
 *
 * - the file is valid under the Compose Specification's JSON schema, `compose-spec.json` beside this test, vendored
 *   from https://github.com/compose-spec/compose-spec/blob/a08f8d51631b7127ddac3d2c65537db429d0f1d0/schema/compose-spec.json
 *   (the file as of that commit; replace it with a newer copy from the same place);
 * - the topology the issue asks for is there: Postgres, NATS with JetStream, two control planes behind a proxy
 *   whose configuration is in the repository, two engines, the workers, the SIP gateway;
 * - each Parley service's command is one `parley start` takes (parsed with the CLI's own options, its roles among
 *   those this build can start), and its environment — after Compose's interpolation — is read by `loadConfig`
 *   without error, each name being one the configuration actually reads (recorded from loadConfig itself, not a
 *   list kept here).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { STARTABLE_ROLES } from '../../src/cli/commands/start.ts';
import { CLI_OPTIONS } from '../../src/cli/main.ts';
import { loadConfig, readRoles } from '../../src/config.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ROOT = new URL('../../../', import.meta.url);
const read = (file: string | URL) => fs.readFileSync(file, 'utf8');

/** What an operator's environment gives `docker compose up`: only what the file insists on. */
const REQUIRED_ONLY: Record<string, string> = {
  PARLEY_SECRET_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};
/** …and every variable the file offers set, so names read only beside another (a model's key) are read too. */
const EVERYTHING_SET: Record<string, string> = {
  ...REQUIRED_ONLY,
  PARLEY_METRICS_TOKEN: 'a-long-random-token',
  PARLEY_PUBLIC_URL: 'https://parley.example.com',
  PARLEY_LLM_BASE_URL: 'https://llm.example.com/v1',
  PARLEY_LLM_API_KEY: 'sk-example',
  PARLEY_LLM_MODEL: 'example-model',
  PARLEY_MEDIA_URL_1: 'wss://media-1.example.com',
  PARLEY_MEDIA_URL_2: 'wss://media-2.example.com',
};

/**
 * Compose's interpolation (https://github.com/compose-spec/compose-spec/blob/main/12-interpolation.md) of the forms
 * the file uses: `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`, and `$$`.
 */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:?)([-?])([^}]*))?\}/g, (whole, name, colon, kind, rest) => {
    if (whole === '$$') return '$';
    const set = env[name] !== undefined && (colon !== ':' || env[name] !== '');
    if (set) return env[name]!;
    if (kind === '?') throw new Error(`required variable ${name} is unset: ${rest}`);
    return kind === '-' ? rest : '';
  });
}

function interpolateAll(node: unknown, env: Record<string, string>): unknown {
  if (typeof node === 'string') return interpolate(node, env);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, env));
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateAll(v, env)]));
  return node;
}

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string> | string[];
  volumes?: string[];
  ports?: string[];
}

const text = read(new URL('docker-compose.yml', ROOT));
const raw = parse(text, { merge: true }) as Record<string, unknown>;
const as = (env: Record<string, string>) => interpolateAll(raw, env) as { services: Record<string, Service> };
const compose = as(REQUIRED_ONLY);
const services = compose.services;
const parleyServices = Object.entries(services).filter(([, service]) => service.build !== undefined);
const parleyServicesWithEverythingSet = Object.entries(as(EVERYTHING_SET).services).filter(
  ([, service]) => service.build !== undefined,
);

/** A service's environment as a map (Compose allows a list of NAME=value too). */
function environment(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
  return Object.fromEntries(env.map((entry) => [entry.split('=')[0]!, entry.slice(entry.indexOf('=') + 1)]));
}

/** Runs loadConfig over `env` and answers the names it read, so a name it never reads can be told apart. */
function namesReadBy(env: Record<string, string>): Set<string> {
  const seen = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') seen.add(name);
      return Reflect.get(target, name);
    },
  });
  loadConfig(recording);
  return seen;
}

describe('docker-compose.yml', () => {
  it('is valid under the Compose Specification schema', () => {
    const schema = JSON.parse(read(new URL('compose-spec.json', import.meta.url))) as Record<string, unknown>;
    // The schema names its meta-schema by https://json-schema.org/draft-07/schema; Ajv knows draft-07 by http.
    const draft07 = JSON.parse(read(createRequire(import.meta.url).resolve('ajv/dist/refs/json-schema-draft-07.json')));
    const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
    ajv.addMetaSchema({ ...draft07, $id: schema.$schema as string });
    const validate = ajv.compile(schema);
    // Validated as Compose sees it: anchors merged, variables interpolated.
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // A check that can fail: a service with a misspelt key is refused.
    expect(validate({ services: { engine: { image: 'parley', comand: ['start'] } } })).toBe(false);
  });

  it('runs Postgres, NATS with JetStream, two control planes behind the proxy, two engines, workers and the SIP gateway', () => {
    const roles = (name: string) =>
      readRoles(
        parseArgs({ args: services[name]!.command!, options: CLI_OPTIONS, allowPositionals: true, strict: true }).values
          .roles,
      );
    const running = (role: string) => parleyServices.filter(([name]) => roles(name).includes(role as never));
    expect(services.postgres?.image).toMatch(/^postgres:\d+/);
    expect(services.nats?.image).toMatch(/^nats:2\./);
    expect(services.nats?.command).toContain('--jetstream');
    expect(running('control-plane')).toHaveLength(2);
    expect(running('engine')).toHaveLength(2);
    for (const worker of ['stt-worker', 'llm-worker', 'tts-worker', 'sip-gateway'])
      expect(running(worker).length, worker).toBeGreaterThanOrEqual(1);

    // The proxy's configuration is in the repository, mounted from there, and sends to both control planes.
    const proxy = services.proxy!;
    const mount = proxy.volumes!.find((v) => v.endsWith(':/etc/caddy/Caddyfile:ro'))!;
    const caddyfile = read(new URL(mount.split(':')[0]!, ROOT));
    for (const [name, service] of running('control-plane'))
      expect(caddyfile).toContain(`${name}:${environment(service).PORT}`);
    expect(caddyfile).toMatch(/health_uri \/readyz/);
    // Each engine is reachable at its own media URL (carriers stream a call to the engine that took it).
    const mediaUrls = running('engine').map(([, service]) => environment(service).PARLEY_MEDIA_URL);
    expect(new Set(mediaUrls).size).toBe(2);
  });

  it("gives the model's key to the llm-worker alone, and the engines no model settings at all", () => {
    // Engines learn from the llm-worker's heartbeat that a model is there (docs/architecture.md §2).
    const withKey = parleyServicesWithEverythingSet.filter(([, service]) => environment(service).PARLEY_LLM_API_KEY);
    expect(withKey.map(([name]) => name)).toEqual(['llm-worker']);
    const engines = parleyServicesWithEverythingSet.filter(([, s]) => s.command?.includes('engine'));
    expect(engines).toHaveLength(2);
    for (const [name, service] of engines)
      expect(
        Object.keys(environment(service)).filter((key) => key.startsWith('PARLEY_LLM_')),
        name,
      ).toEqual([]);
    const llmWorker = Object.fromEntries(parleyServicesWithEverythingSet)['llm-worker']!;
    expect(environment(llmWorker)).toMatchObject({
      PARLEY_LLM_BASE_URL: EVERYTHING_SET.PARLEY_LLM_BASE_URL,
      PARLEY_LLM_API_KEY: EVERYTHING_SET.PARLEY_LLM_API_KEY,
      PARLEY_LLM_MODEL: EVERYTHING_SET.PARLEY_LLM_MODEL,
    });
  });

  it('offers the operator exactly the variables this test sets', () => {
    const offered = new Set([...text.matchAll(/\$\{(\w+)/g)].map((match) => match[1]));
    expect([...offered].sort()).toEqual(Object.keys(EVERYTHING_SET).sort());
  });

  it.each(parleyServices)(
    '%s: its command is one parley start takes, its environment one it loads',
    (_name, service) => {
      const command = service.command ?? [];
      const parsed = parseArgs({ args: command, options: CLI_OPTIONS, allowPositionals: true, strict: true });
      expect(parsed.positionals).toEqual(['start']);
      const env = environment(service);
      for (const role of readRoles(parsed.values.roles ?? env.PARLEY_ROLES)) expect(STARTABLE_ROLES).toContain(role);
      const config = loadConfig(env);
      // The servers of a scale-out deployment, never the embedded ones.
      expect(config.databaseUrl).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      expect(config.natsUrl).toBe('nats://nats:4222');
    },
  );

  it.each(parleyServicesWithEverythingSet)(
    '%s, every option set: each of its names is one loadConfig reads',
    (_name, service) => {
      const env = environment(service);
      const names = namesReadBy(env);
      const unknown = Object.keys(env).filter((name) => !names.has(name));
      expect(unknown, `names loadConfig never reads: ${unknown.join(', ')}`).toEqual([]);
      const roles = readRoles(
        parseArgs({ args: service.command ?? [], options: CLI_OPTIONS, allowPositionals: true, strict: true }).values
          .roles,
      );
      if (roles.some((role) => role.endsWith('-worker'))) expect(loadConfig(env).engine.workerHealth?.port).toBe(9100);
    },
  );

  it('tells which names loadConfig reads apart from those it does not', () => {
    expect(namesReadBy({}).has('WORKER_HEALTH_PORT')).toBe(true);
    expect(namesReadBy({}).has('PARLEY_WORKER_HEALTH_PORT')).toBe(false);
  });
});
