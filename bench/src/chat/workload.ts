/**
 * The chat suite's load: a control plane on its own database and bus, an llm-worker role against the fake
 * OpenAI-compatible server (every answer the same script: a first token after MODEL_FIRST_TOKEN_MS, then
 * REPLY_TOKENS tokens), one chat agent with a widget token, and `sessions` widget conversations, each on its own
 * websocket, sending a message as soon as the last reply is whole. Measured per message: from sending it to its
 * first streamed token, and to the whole reply. The model's own first-token time is measured first, by the same
 * number of clients streaming straight from the fake server, so the report can say what Parley adds.
 */
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { startLlmWorkerRole } from '@parley/engine';
import { connectBus, namespacedBus } from '@parley/engine/bus';
import { startFakeOpenAi, type ChatScript } from '@parley/engine/testing';
import {
  adjustWallet,
  buildApp,
  KeyRing,
  KeyStore,
  migrate,
  openDatabase,
  provisionOrganisation,
  RATE_LIMIT_DEFAULTS,
} from '@parley/control-plane';
import { SampleBuffer } from '../percentiles.ts';

/** The fake model's own wait before its first token, ms: a fast hosted model's time to first token. */
export const MODEL_FIRST_TOKEN_MS = 40;
/** Tokens per reply, and the fake's pause between them, ms. */
const REPLY_TOKENS = 12;
const TOKEN_GAP_MS = 2;
/** Each wallet starts with this, cents: far more than the run's replies cost (1 cent each). */
const OPENING_BALANCE_MINOR = 10_000_000;
/** Scripts queued per session and second of load: above what a session can send against the model's pace. */
const SCRIPTS_PER_SESSION_SECOND = 30;
const MODEL = 'gpt-bench';

export interface ChatRun {
  database: string;
  bus: string;
  sessions: number;
  durationSeconds: number;
  /** The fake model's first token straight from its HTTP stream, ms per request. */
  modelFirstToken: Float64Array;
  /** Message sent on the websocket → its first streamed token, ms. */
  firstToken: Float64Array;
  /** Message sent → the whole reply, ms. */
  wholeReply: Float64Array;
  errors: Record<string, number>;
  /** Usage records of chat replies, and replies answered: one each when billing is right. */
  usageRecords: number;
  replies: number;
}

const script = (): ChatScript => ({
  headerDelayMs: MODEL_FIRST_TOKEN_MS,
  chunkDelayMs: TOKEN_GAP_MS,
  tokens: Array.from({ length: REPLY_TOKENS }, (_, i) => (i === 0 ? 'Sure' : ' word')),
});

export async function runChatWorkload(
  options: { sessions: number; durationSeconds: number; databaseUrl?: string; natsUrl?: string },
  log: (text: string) => void,
  signal: AbortSignal,
): Promise<ChatRun> {
  const schema = options.databaseUrl ? `bench_${randomBytes(6).toString('hex')}` : 'public';
  const db = await openDatabase({ databaseUrl: options.databaseUrl, schema, dataDir: undefined, maxConnections: 10 });
  const bus = namespacedBus(
    await connectBus(options.natsUrl, 'parley-bench-chat'),
    `bench.${randomBytes(4).toString('hex')}`,
  );
  const fake = await startFakeOpenAi({ models: [MODEL] });
  const llm = await startLlmWorkerRole(
    { sttProvider: 'pocketsphinx', ttsProvider: 'flite', llm: { baseUrl: fake.baseUrl, model: MODEL } },
    bus,
    () => {},
  );
  const keys = new KeyStore(db.sql, bus, (error) => log(`key store: ${String(error)}`));
  keys.listen();
  const rateLimits = Object.fromEntries(Object.keys(RATE_LIMIT_DEFAULTS).map((name) => [name, 1_000_000]));
  const app = await buildApp({
    config: { publicUrl: 'http://127.0.0.1', rateLimits: rateLimits as typeof RATE_LIMIT_DEFAULTS },
    sql: db.sql,
    bus,
    keys,
    logger: false,
    // Chat session tokens are signed with the key ring.
    secrets: KeyRing.generate('bench').ring,
  });
  try {
    await migrate(db.sql, schema);
    const { agentId, token } = await seed(app, db.sql);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const scripts = Math.ceil(options.sessions * options.durationSeconds * SCRIPTS_PER_SESSION_SECOND);
    for (let i = 0; i < scripts; i++) fake.chat.enqueue(script());

    log(`the model alone: ${options.sessions} streams at once…`);
    const modelFirstToken = await modelBaseline(fake.baseUrl, options, signal);
    log(`${options.sessions} widget conversations for ${options.durationSeconds} s…`);
    const firstToken = new SampleBuffer();
    const wholeReply = new SampleBuffer();
    const errors: Record<string, number> = {};
    const until = performance.now() + options.durationSeconds * 1000;
    let replies = 0;
    await Promise.all(
      Array.from({ length: options.sessions }, async (_, n) => {
        const chatToken = await bootstrap(base, token, agentId, n);
        const ws = await openSocket(`ws://${base}/api/v1/widget/chat?token=${encodeURIComponent(chatToken)}`);
        try {
          for (let m = 0; performance.now() < until && !signal.aborted; m++) {
            const outcome = await exchange(ws, `s${n}m${m}`);
            if ('error' in outcome) errors[outcome.error] = (errors[outcome.error] ?? 0) + 1;
            else {
              firstToken.push(outcome.firstTokenMs);
              wholeReply.push(outcome.wholeMs);
              replies += 1;
            }
          }
        } finally {
          ws.close();
        }
      }),
    );
    const [usage] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from usage_records where usage_type = 'CHATBOT_MESSAGE'`;
    return {
      database: db.description,
      bus: options.natsUrl ? 'NATS' : 'in-process',
      sessions: options.sessions,
      durationSeconds: options.durationSeconds,
      modelFirstToken,
      firstToken: firstToken.sorted(),
      wholeReply: wholeReply.sorted(),
      errors,
      usageRecords: usage!.n,
      replies,
    };
  } finally {
    await app.close();
    await keys.close();
    await llm.close();
    await fake.close();
    await bus.close();
    if (options.databaseUrl) await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await db.close();
  }
}

/** An organisation with a funded wallet, a chat agent made through the API, and its widget token. */
async function seed(
  app: Awaited<ReturnType<typeof buildApp>>,
  sql: Parameters<typeof adjustWallet>[0],
): Promise<{ agentId: string; token: string }> {
  const created = await provisionOrganisation(sql as never, {
    name: 'Chat bench',
    ownerEmail: `chat-bench-${randomBytes(4).toString('hex')}@example.com`,
    ownerName: 'Bench Owner',
  });
  await adjustWallet(sql, {
    organisationId: created.organisationId,
    amountMinor: OPENING_BALANCE_MINOR,
    reason: 'Chat bench opening balance',
    actor: 'bench',
  });
  const auth = { authorization: `Bearer ${created.apiKey.key}` };
  const agent = await app.inject({
    method: 'POST',
    url: '/api/v1/voice/agents',
    headers: auth,
    payload: {
      name: 'Bench helper',
      agentType: 'CHAT',
      agentIdentity: 'You are the assistant of a shop.',
      agentTask: 'Answer questions.',
      greetingMessage: 'Hello!',
    },
  });
  if (agent.statusCode !== 201) throw new Error(`creating the agent: ${agent.statusCode} ${agent.body}`);
  const agentId = agent.json().data.id as string;
  const minted = await app.inject({
    method: 'POST',
    url: '/api/v1/api-keys/widget',
    headers: auth,
    payload: { organisation_id: created.organisationId, agent_id: agentId },
  });
  if (minted.statusCode !== 201) throw new Error(`minting the widget token: ${minted.statusCode} ${minted.body}`);
  return { agentId, token: minted.json().data.key as string };
}

async function bootstrap(base: string, token: string, agentId: string, n: number): Promise<string> {
  const response = await fetch(`http://${base}/api/v1/widget/bootstrap`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      agentId,
      participantName: `Visitor ${n}`,
      phoneNumber: '+44 113 496 0000',
      roomName: `bench-${randomBytes(6).toString('hex')}-${n}`,
    }),
  });
  const body = (await response.json()) as { data?: { metadata: { agentToken: string } }; message?: string };
  if (!response.ok || !body.data) throw new Error(`bootstrap: ${response.status} ${body.message}`);
  return body.data.metadata.agentToken;
}

function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** One message and its reply over the socket. */
function exchange(
  ws: WebSocket,
  messageId: string,
): Promise<{ firstTokenMs: number; wholeMs: number } | { error: string }> {
  return new Promise((resolve) => {
    let firstTokenMs: number | undefined;
    const sent = performance.now();
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as { type: string; messageId?: string; code?: string };
      if (message.messageId !== messageId) return;
      if (message.type === 'token') firstTokenMs ??= performance.now() - sent;
      else if (message.type === 'reply' || message.type === 'error') {
        ws.off('message', onMessage);
        if (message.type === 'error') resolve({ error: message.code ?? 'error' });
        else resolve({ firstTokenMs: firstTokenMs ?? Number.NaN, wholeMs: performance.now() - sent });
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ type: 'message', messageId, text: 'What time do you open tomorrow?' }));
  });
}

/** The fake model's first token as a client straight at its HTTP stream sees it, `sessions` streams at once. */
async function modelBaseline(
  baseUrl: string,
  options: { sessions: number; durationSeconds: number },
  signal: AbortSignal,
): Promise<Float64Array> {
  const samples = new SampleBuffer();
  const until = performance.now() + Math.min(options.durationSeconds, 5) * 1000;
  await Promise.all(
    Array.from({ length: options.sessions }, async () => {
      while (performance.now() < until && !signal.aborted) {
        const sent = performance.now();
        const response = await fetch(`${baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
        });
        const reader = response.body!.getReader();
        let first: number | undefined;
        let text = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += new TextDecoder().decode(value);
          if (first === undefined && text.includes('"content"')) first = performance.now() - sent;
        }
        if (first !== undefined) samples.push(first);
      }
    }),
  );
  return samples.sorted();
}
