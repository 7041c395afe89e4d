/**
 * Each role as its own `parley start` process, as docker-compose.yml runs them — a control plane on real Postgres,
 * an engine, the speech workers (WORKER_HEALTH_PORT) and a SIP gateway (SIP_HEALTH_PORT), on a NATS server of this
 * test's own — each scraped at its /metrics (PARLEY_METRICS_TOKEN set) while `parley call` talks to the demo agent
 * and after: the engine had the call live and then not, with its turns in the latency histogram; the workers had
 * its streams open; the control plane labelled the placement by its route. Needs flite and pocketsphinx, like
 * try-call.test.ts, and DATABASE_URL.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { requireAll } from './support/database.ts';
import { scrape, type Scrape } from './support/metrics.ts';
import { NATS_SERVER, startPrivateNats, type PrivateNats } from './support/private-nats.ts';
import { runCli, startServer, type Env, type RunningServer } from './support/processes.ts';

const onPath = (program: string) => {
  try {
    execFileSync('which', [program], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const speechInstalled =
  onPath('flite') && onPath('pocketsphinx_continuous') && existsSync('/usr/share/pocketsphinx/model/en-us');
const TOKEN = 'metrics-token-of-this-test';

const running: RunningServer[] = [];
const dirs: string[] = [];
let nats: PrivateNats | undefined;
let schema: string | undefined;
afterAll(async () => {
  for (const server of running) await server.stop('SIGKILL');
  await nats?.stop();
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  if (schema) {
    const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema: 'public', dataDir: undefined });
    await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await db.close();
  }
}, 60_000);

async function role(roles: string, env: Env): Promise<RunningServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `parley-${roles.split(',')[0]}-`));
  dirs.push(dataDir);
  const server = await startServer({
    NATS_URL: nats!.url,
    PARLEY_DATA_DIR: dataDir,
    PARLEY_METRICS_TOKEN: TOKEN,
    PARLEY_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...env,
    PARLEY_ROLES: roles,
  });
  running.push(server);
  return server;
}

/** The port a role logged under `message` (pino writes asynchronously: the line may follow the ready line). */
async function loggedPort(server: RunningServer, message: string): Promise<number> {
  const read = () => {
    for (const line of server.output().split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === message && entry.port) return entry.port;
    }
    return 0;
  };
  await expect.poll(read, { timeout: 10_000 }).toBeGreaterThan(0);
  return read();
}

describe.runIf((speechInstalled && NATS_SERVER && process.env.DATABASE_URL) || requireAll)(
  "every role's /metrics, each role its own process",
  () => {
    it('moves with a real call: live on the engine and the workers while it runs, its turns and route after', async () => {
      nats = await startPrivateNats();
      schema = `t_metrics_${Date.now().toString(36)}`;
      // The control plane first (it migrates the schema); the others beside each other.
      const controlPlane = await role('control-plane', {
        DATABASE_URL: process.env.DATABASE_URL,
        PARLEY_DB_SCHEMA: schema,
      });
      const [engine, workers, gateway] = await Promise.all([
        role('engine', { PARLEY_VAD: 'energy' }),
        role('stt-worker,tts-worker', { WORKER_HEALTH_PORT: '0' }),
        role('sip-gateway', { RTP_PORT_MIN: '47100', RTP_PORT_MAX: '47119' }),
      ]);
      const engineUrl = `http://127.0.0.1:${await loggedPort(engine!, 'media server listening')}`;
      const workersUrl = `http://127.0.0.1:${await loggedPort(workers!, 'worker health')}`;
      const gatewayUrl = `http://127.0.0.1:${await loggedPort(gateway!, 'sip gateway health')}`;
      const ports = [controlPlane!.url, engineUrl, workersUrl, gatewayUrl];

      // Every /metrics wants the token.
      for (const url of ports) expect((await fetch(`${url}/metrics`)).status, url).toBe(401);
      const metrics = (url: string) => scrape(url, TOKEN);
      const before = await metrics(engineUrl);
      expect(before.value('parley_active_calls')).toBe(0);
      // One worker process runs two kinds; its health port says so, and the engine sees them by their heartbeats.
      const health = (await (await fetch(`${workersUrl}/healthz`)).json()) as { workers: { kind: string }[] };
      expect(health.workers.map((w) => w.kind).sort()).toEqual(['stt', 'tts']);
      await expect
        .poll(async () => (await metrics(engineUrl)).value('parley_worker_pool_size', { kind: 'stt' }), {
          timeout: 15_000,
        })
        .toBe(1);
      const gatewayMetrics = await metrics(gatewayUrl);
      expect(gatewayMetrics.value('parley_rtp_ports')).toBe(10);
      expect(gatewayMetrics.value('parley_sip_active_calls')).toBe(0);

      // The call, with both processes watched while it runs.
      const bootstrapFile = /saved to (\S+)\):/.exec(controlPlane!.output())![1]!;
      const bootstrap = JSON.parse(await fs.readFile(bootstrapFile, 'utf8')) as { apiKey: string };
      const seen = { calls: 0, sttStreams: 0, ttsStreams: 0 };
      const watch = (m: Scrape, key: keyof typeof seen, value: number) => {
        seen[key] = Math.max(seen[key], value);
        return m;
      };
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          const [e, w] = await Promise.all([metrics(engineUrl), metrics(workersUrl)]);
          watch(e, 'calls', e.value('parley_active_calls'));
          watch(w, 'sttStreams', w.value('parley_worker_open_streams', { kind: 'stt' }));
          watch(w, 'ttsStreams', w.value('parley_worker_open_streams', { kind: 'tts' }));
          await new Promise((resolve) => setTimeout(resolve, 150));
        }
      })();
      const call = await runCli(['call', '--url', controlPlane!.url, '--key', bootstrap.apiKey], {
        PARLEY_DATA_DIR: path.dirname(bootstrapFile),
      });
      expect(call.code, `${call.stdout}\n${call.stderr}`).toBe(0);
      expect(call.stdout).toMatch(/caller: .+/);

      await expect
        .poll(async () => (await metrics(engineUrl)).value('parley_active_calls'), { timeout: 20_000 })
        .toBe(0);
      watching = false;
      await watcher;
      expect(seen.calls).toBe(1);
      expect(seen.sttStreams).toBe(1);
      // The call's voice, and perhaps the control plane synthesising the new demo agent's greeting for its cache.
      expect(seen.ttsStreams).toBeGreaterThanOrEqual(1);

      const after = await metrics(engineUrl);
      expect(after.value('parley_calls_ended_total')).toBe(1);
      // The caller spoke once: its turn is in the histogram as the latency report measured it. (The demo agent is a
      // FLOW agent, whose lines the report does not time to first audio, so no end_to_end here; metrics.test.ts has
      // a PROMPT agent's.)
      expect(after.value('parley_turn_latency_seconds_count', { stage: 'endpointing' })).toBeGreaterThanOrEqual(1);
      await expect
        .poll(async () => (await metrics(workersUrl)).value('parley_worker_open_streams'), { timeout: 20_000 })
        .toBe(0);

      const http = await metrics(controlPlane!.url);
      expect(http.labelSets('parley_http_request_duration_seconds_count')).toContainEqual({
        method: 'POST',
        route: '/api/v1/voice/session',
        status_code: '201',
      });
      expect(
        http
          .labelSets('parley_job_lag_seconds')
          .map((l) => l.job)
          .sort(),
      ).toEqual(['dialler', 'knowledge', 'post-call', 'scheduler']);
      // Each process has its own registry: the control plane ran no call.
      expect(http.value('parley_calls_ended_total')).toBe(0);
    }, 240_000);
  },
);
