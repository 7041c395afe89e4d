/**
 * A control plane told to stop finishes the requests it is serving (docs/architecture.md §18): `parley start --roles
 * control-plane` as a process, on real Postgres and a NATS server of this test's own, receives SIGTERM while a call
 * placement waits for an engine's answer; the answer comes after the signal, the client still gets its 201, and the
 * process exits 0. The test plays the engine on the dispatch subject.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, type Bus, type BusMessage } from '@parley/engine/bus';
import { callCodecs, queues, subjects } from '@parley/engine/protocol';
import { openDatabase } from '../src/db/database.ts';
import { freePort, NATS_SERVER, startNats, stopNats } from './support/nats-server.ts';
import { startServer } from './support/processes.ts';

describe.runIf(Boolean(NATS_SERVER && process.env.DATABASE_URL))('a control plane stopping', () => {
  let nats: ChildProcess;
  let natsUrl: string;
  let bus: Bus;
  const dirs: string[] = [];
  const schema = `t_cp_drain_${randomBytes(5).toString('hex')}`;

  beforeAll(async () => {
    const storeDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-cp-drain-js-'));
    dirs.push(storeDir);
    const port = await freePort();
    nats = await startNats(port, { jetStreamDir: storeDir });
    natsUrl = `nats://127.0.0.1:${port}`;
    bus = await connectBus(natsUrl, 'parley-cp-drain-test');
  });

  afterAll(async () => {
    await bus?.close();
    if (nats) await stopNats(nats);
    const db = await openDatabase({
      databaseUrl: process.env.DATABASE_URL,
      schema: 'public',
      dataDir: undefined,
      maxConnections: 1,
    });
    await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await db.close();
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  });

  it('finishes a request in flight at SIGTERM before it exits', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-cp-drain-'));
    dirs.push(dataDir);
    const server = await startServer(
      {
        DATABASE_URL: process.env.DATABASE_URL,
        NATS_URL: natsUrl,
        PARLEY_DB_SCHEMA: schema,
        PARLEY_DATA_DIR: dataDir,
      },
      ['--roles', 'control-plane'],
    );
    let exitCode: number | null | undefined;
    try {
      const { apiKey } = JSON.parse(await fs.readFile(path.join(dataDir, 'bootstrap.json'), 'utf8'));
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const agent = await fetch(`${server.url}/api/v1/voice/agents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name: 'Front desk',
          agentIdentity: 'You answer calls.',
          agentTask: 'Help callers.',
          greetingMessage: 'Hello.',
        }),
      });
      expect(agent.status, await agent.clone().text()).toBe(201);
      const agentId = ((await agent.json()) as { data: { id: string } }).data.id;

      // The engine: takes the dispatch and holds its answer.
      const dispatches = bus.subscribe(subjects.dispatch(), { queue: queues.engine });
      const dispatched = (async (): Promise<BusMessage> => {
        for await (const message of dispatches) return message;
        throw new Error('no dispatch came');
      })();
      const placing = fetch(`${server.url}/api/v1/voice/session`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ agentId, participantName: 'Ravi', callType: 'websocket' }),
      });
      const message = await dispatched;
      const spec = callCodecs.spec.decode(message.data);

      const exited = server.stop('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(server.child.exitCode).toBeNull(); // still serving the placement
      message.respond(
        callCodecs.dispatchReply.encode({
          ok: true,
          engineId: 'engine-test',
          streamToken: 'a-stream-token',
          mediaUrl: 'ws://127.0.0.1:9',
        }),
      );
      const res = await placing;
      const body = (await res.json()) as { data: { sessionId: string; websocketUrl?: string } };
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body.data.sessionId).toBe(spec.callId);
      exitCode = await exited;
      expect(exitCode).toBe(0);
    } finally {
      if (exitCode === undefined) await server.stop('SIGKILL');
    }
  }, 120_000);
});
