/**
 * `parley start` as an operator runs it: embedded defaults first (PGlite + in-process bus, nothing configured),
 * then the real Postgres and NATS of DATABASE_URL/NATS_URL when the environment has them.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { runCli, startServer, type Env, type RunningServer } from './support/processes.ts';

/**
 * Each test starts Parley as a process (tsx loading the sources, migrations, every role) and runs CLI processes
 * beside it: 10-20 s alone, over 30 s when the other test files load both cores.
 */
vi.setConfig({ testTimeout: 90_000 });

const running = new Set<RunningServer>();
const dirs: string[] = [];
afterAll(async () => {
  for (const server of running) await server.stop('SIGKILL');
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-start-'));
  dirs.push(dir);
  return dir;
}

async function start(env: Env): Promise<RunningServer> {
  const server = await startServer(env);
  running.add(server);
  return server;
}

async function stop(server: RunningServer): Promise<number | null> {
  const code = await server.stop();
  running.delete(server);
  return code;
}

function me(url: string, key: string) {
  return fetch(`${url}/api/v1/api-keys/me`, { headers: { authorization: `Bearer ${key}` } });
}

describe('parley start on embedded defaults', () => {
  it('bootstraps once, serves the API, lets the CLI work beside it, and stops gracefully', async () => {
    const dataDir = await tempDir();
    const server = await start({ PARLEY_DATA_DIR: dataDir });
    expect(server.output()).toMatch(/First start: created organisation [0-9a-f]{24}/);

    const file = path.join(dataDir, 'bootstrap.json');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const bootstrap = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(Object.keys(bootstrap).sort()).toEqual(['apiKey', 'baseUrl', 'organisationId', 'userId']);
    expect(bootstrap.baseUrl).toBe(server.url);
    expect(server.output()).toContain(bootstrap.apiKey);

    const res = await me(server.url, bootstrap.apiKey);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toMatchObject({
      organisationId: bootstrap.organisationId,
      userId: bootstrap.userId,
    });
    const ready = await fetch(`${server.url}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ready', bus: { detail: 'in-process' } });
    // The bootstrap organisation can place a first call: its wallet holds PARLEY_BOOTSTRAP_CREDIT_USD (default 10).
    const overview = await fetch(`${server.url}/api/v1/telephony/overview/${bootstrap.organisationId}`, {
      headers: { authorization: `Bearer ${bootstrap.apiKey}` },
    });
    expect(((await overview.json()) as { data: unknown }).data).toMatchObject({
      wallet: { balance: 10, currency: 'USD' },
    });

    // The CLI, run beside the server, talks to the server's embedded database through its socket.
    const created = await runCli(
      ['keys', 'create', '--org', bootstrap.organisationId, '--scopes', 'org:read', '--name', 'side', '--json'],
      { PARLEY_DATA_DIR: dataDir },
    );
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect((await me(server.url, key.apiKey)).status).toBe(200);
    const revoked = await runCli(['keys', 'revoke', key.id], { PARLEY_DATA_DIR: dataDir });
    expect(revoked.code, revoked.stderr).toBe(0);
    // No bus reaches another process here: the key cache's one-second lifetime applies the revocation.
    await expect
      .poll(async () => (await me(server.url, key.apiKey)).status, { timeout: 3_000, interval: 100 })
      .toBe(401);

    expect(await stop(server)).toBe(0);

    // A second start on the same data keeps the organisation and does not bootstrap again.
    const again = await start({ PARLEY_DATA_DIR: dataDir });
    expect(again.output()).not.toContain('First start');
    expect((await me(again.url, bootstrap.apiKey)).status).toBe(200);
    expect(JSON.parse(await fs.readFile(file, 'utf8')).apiKey).toBe(bootstrap.apiKey);
    expect(await stop(again)).toBe(0);
  });

  it('runs the SIP gateway role on its own, which reports its calls and RTP ports at its /healthz', async () => {
    const server = await start({
      PARLEY_DATA_DIR: await tempDir(),
      PARLEY_ROLES: 'sip-gateway',
      PARLEY_HOST: '127.0.0.1',
      RTP_PORT_MIN: '47000',
      RTP_PORT_MAX: '47019',
      LOG_LEVEL: 'info',
    });
    // pino writes asynchronously: the line may follow the ready line.
    const healthPort = () => Number(/"port":(\d+),"msg":"sip gateway health"/.exec(server.output())?.[1] ?? 0);
    await expect.poll(healthPort, { timeout: 5_000 }).toBeGreaterThan(0);
    const port = healthPort();
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({
      status: 'ok',
      activeCalls: 0,
      pendingCalls: 0,
      rtpPortsFree: 10,
      rtpPortsTotal: 10,
    });
    expect(health.sipPort).toBeGreaterThan(0);
    expect(await stop(server)).toBe(0);
  });

  it('refuses roles it does not know', async () => {
    const result = await runCli(['start', '--roles', 'sip-proxy'], { PARLEY_DATA_DIR: await tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown role "sip-proxy"/);
  });
});

describe.runIf(Boolean(process.env.DATABASE_URL && process.env.NATS_URL))(
  'parley start on real Postgres and NATS',
  () => {
    it('uses the servers, and a key revoked by the CLI stops working on the running server', async () => {
      const schema = `t_start_${randomBytes(5).toString('hex')}`;
      const env = {
        DATABASE_URL: process.env.DATABASE_URL,
        NATS_URL: process.env.NATS_URL,
        PARLEY_DB_SCHEMA: schema,
        PARLEY_DATA_DIR: await tempDir(),
      };
      try {
        const server = await start(env);
        const bootstrap = JSON.parse(await fs.readFile(path.join(env.PARLEY_DATA_DIR, 'bootstrap.json'), 'utf8'));
        const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { bus: { detail: string } };
        expect(ready.bus.detail).toMatch(/^nats:\/\//);
        const created = JSON.parse(
          (
            await runCli(
              ['keys', 'create', '--org', bootstrap.organisationId, '--scopes', 'org:read', '--name', 'n', '--json'],
              env,
            )
          ).stdout,
        );
        expect((await me(server.url, created.apiKey)).status).toBe(200);
        expect((await runCli(['keys', 'revoke', created.id], env)).code).toBe(0);
        // Broadcast or cache expiry, whichever is first; key-revocation.test.ts proves the broadcast on its own.
        await expect
          .poll(async () => (await me(server.url, created.apiKey)).status, { timeout: 1_500, interval: 20 })
          .toBe(401);
        expect(await stop(server)).toBe(0);
      } finally {
        const db = await openDatabase({
          databaseUrl: process.env.DATABASE_URL,
          schema: 'public',
          dataDir: undefined,
          maxConnections: 1,
        });
        await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
        await db.close();
      }
    });
  },
);
