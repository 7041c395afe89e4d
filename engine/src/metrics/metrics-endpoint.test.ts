import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { observeTurn, turnLatency } from './call-metrics.ts';
import { metricsAuthorised, serveMetrics } from './metrics-endpoint.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A plain listener like the engine's and the health ports': /metrics first, anything else 404. */
async function listener(token: string | undefined): Promise<string> {
  const server = http.createServer((request, response) => {
    if (!serveMetrics(request, response, token)) response.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('/metrics on a plain listener', () => {
  it('answers the text format, and leaves other paths and methods to the listener', async () => {
    const url = await listener(undefined);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await res.text();
    expect(body).toMatch(/^# HELP parley_active_calls /m);
    expect(body).toMatch(/^# TYPE parley_turn_latency_seconds histogram$/m);
    expect(body).toMatch(/^process_cpu_seconds_total \d/m);
    expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${url}/other`)).status).toBe(404);
  });

  it('wants the bearer token when one is set', async () => {
    const url = await listener('s3cret-token');
    const none = await fetch(`${url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong-token!' } })).status).toBe(401);
    const ok = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer s3cret-token' } });
    expect(ok.status).toBe(200);
  });

  it('compares tokens whole', () => {
    expect(metricsAuthorised(undefined, undefined)).toBe(true);
    expect(metricsAuthorised('Bearer abc', 'abc')).toBe(true);
    expect(metricsAuthorised('bearer abc', 'abc')).toBe(true);
    expect(metricsAuthorised('Bearer ab', 'abc')).toBe(false);
    expect(metricsAuthorised('Bearer abcd', 'abc')).toBe(false);
    expect(metricsAuthorised('Basic abc', 'abc')).toBe(false);
    expect(metricsAuthorised(undefined, 'abc')).toBe(false);
  });
});

describe('turn latency', () => {
  it('observes each stage the latency report measured, in seconds, and skips those it did not', async () => {
    const before = await turnLatency.get();
    const count = (stage: string, values = before.values) =>
      values.find((v) => v.metricName === 'parley_turn_latency_seconds_count' && v.labels.stage === stage)?.value ?? 0;
    const sum = (stage: string, values: typeof before.values) =>
      values.find((v) => v.metricName === 'parley_turn_latency_seconds_sum' && v.labels.stage === stage)?.value ?? 0;
    observeTurn({ turn: 1, endpointingMs: 120, sttFinalMs: 300, endToEndMs: 850 });
    const after = (await turnLatency.get()).values;
    expect(count('end_to_end', after)).toBe(count('end_to_end') + 1);
    expect(count('endpointing', after)).toBe(count('endpointing') + 1);
    expect(count('stt_final', after)).toBe(count('stt_final') + 1);
    expect(count('llm_first_token', after)).toBe(count('llm_first_token'));
    expect(sum('end_to_end', after) - sum('end_to_end', before.values)).toBeCloseTo(0.85, 6);
  });
});
