/**
 * The e-mail outbox against a real SMTP server (smtp-server on a local port): invitation mail goes out through the
 * outbox job, failures are retried with backoff and given up after OUTBOX_MAX_ATTEMPTS, and concurrent jobs never
 * send a mail twice.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMailer, type Mailer } from '../src/integrations/email/mailer.ts';
import { EmailOutboxJob, OUTBOX_MAX_ATTEMPTS } from '../src/integrations/email/outbox-job.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const FROM = 'Parley <no-reply@parley.test>';
const silent = pino({ level: 'silent' });

interface Delivery {
  from: string;
  to: string[];
  /** The message as received, with quoted-printable soft line breaks and escapes undone. */
  text: string;
}

/** A local SMTP server that records every message it accepts. */
class SmtpSink {
  readonly deliveries: Delivery[] = [];
  #server: SMTPServer | undefined;
  #held: { arrived: () => void; released: Promise<void> } | undefined;

  /** Holds the next message before accepting it, until `release` is called; `arrived` settles when it comes in. */
  holdNext(): { arrived: Promise<void>; release: () => void } {
    let arrived!: () => void;
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    this.#held = { arrived, released: new Promise<void>((resolve) => (release = resolve)) };
    return { arrived: arrival, release };
  }

  async start(port = 0): Promise<number> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', async () => {
          const held = this.#held;
          this.#held = undefined;
          if (held) {
            held.arrived();
            await held.released;
          }
          this.deliveries.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
          });
          callback();
        });
      },
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return (server.server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface OutboxRow {
  id: string;
  recipient: string;
  status: string;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
  /** Seconds from now until the next attempt (negative when due). */
  due_in: number;
}

let t: TestApp;
let org: SeededOrganisation;
let sink: SmtpSink;
const mailers: Mailer[] = [];

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Acme');
});
afterAll(() => t?.close());
beforeEach(async () => {
  sink = new SmtpSink();
  await t.db.sql`delete from email_outbox`;
});
afterEach(async () => {
  await sink.stop();
  for (const mailer of mailers.splice(0)) mailer.close();
});

const smtpMailer = (port: number) =>
  remember(createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, log: silent }));
const remember = (mailer: Mailer) => (mailers.push(mailer), mailer);
const outboxJob = (mailer: Mailer) => new EmailOutboxJob(t.db.sql, mailer, silent);

let counter = 0;
async function inviteSomeone(name = 'Ada Lovelace'): Promise<{ email: string; token: string; id: string }> {
  const email = `invitee-${Date.now()}-${++counter}@example.com`;
  const res = await t.call(org.key, {
    method: 'POST',
    url: `/api/v1/organisations/${org.organisationId}/invite`,
    payload: { email, name },
  });
  expect(res.statusCode).toBe(201);
  return { email, token: res.json().data.token, id: res.json().data.id };
}

async function outbox(recipient?: string): Promise<OutboxRow[]> {
  return t.db.sql<OutboxRow[]>`
    select id, recipient, status, attempts, last_error, sent_at,
           extract(epoch from next_attempt_at - now())::float8 as due_in
      from email_outbox where ${recipient === undefined ? t.db.sql`true` : t.db.sql`recipient = ${recipient}`}
     order by created_at, id`;
}
const makeDue = () => t.db.sql`update email_outbox set next_attempt_at = now() where status = 'PENDING'`;

describe('e-mail outbox over SMTP', () => {
  it('queues the invitation mail with the invitation and delivers it with the accept link', async () => {
    const port = await sink.start();
    const { email, token } = await inviteSomeone('Ada Lovelace');
    expect(await outbox(email)).toEqual([expect.objectContaining({ status: 'PENDING', attempts: 0 })]);

    expect(await outboxJob(smtpMailer(port)).runOnce()).toBe(1);
    expect(sink.deliveries).toHaveLength(1);
    const [mail] = sink.deliveries;
    expect(mail!.to).toEqual([email]);
    expect(mail!.from).toBe('no-reply@parley.test');
    expect(mail!.text).toContain(`${PUBLIC_URL}/invite/${token}`);
    expect(mail!.text).toContain('Hello Ada Lovelace');
    expect(mail!.text).toMatch(/^Subject: Join Acme on Parley/m);
    expect(await outbox(email)).toEqual([
      expect.objectContaining({ status: 'SENT', attempts: 1, last_error: null, sent_at: expect.any(Date) }),
    ]);

    expect(await outboxJob(smtpMailer(port)).runOnce()).toBe(0);
    expect(sink.deliveries).toHaveLength(1);
  });

  it('mails the new link when an expired invitation is re-opened', async () => {
    const port = await sink.start();
    const first = await inviteSomeone('Slow Reader');
    await t.db.sql`update invitations set expires_at = now() - interval '1 minute' where id = ${first.id}`;
    const again = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/organisations/${org.organisationId}/invite`,
      payload: { email: first.email, name: 'Slow Reader' },
    });
    expect(again.statusCode).toBe(201);
    const newToken = again.json().data.token as string;

    expect(await outboxJob(smtpMailer(port)).runOnce()).toBe(2);
    const texts = sink.deliveries.filter((d) => d.to.includes(first.email)).map((d) => d.text);
    expect(texts).toHaveLength(2);
    expect(texts.filter((text) => text.includes(`${PUBLIC_URL}/invite/${newToken}`))).toHaveLength(1);
    expect(texts.filter((text) => text.includes(`${PUBLIC_URL}/invite/${first.token}`))).toHaveLength(1);
  });

  it('keeps a mail PENDING with the error while the server is down, and sends it once the server is back', async () => {
    const port = await sink.start();
    await sink.stop();
    const mailer = smtpMailer(port);
    const { email, token } = await inviteSomeone();

    expect(await outboxJob(mailer).runOnce()).toBe(0);
    const [failed] = await outbox(email);
    expect(failed).toMatchObject({ status: 'PENDING', attempts: 1, sent_at: null });
    expect(failed!.last_error).toMatch(/\S/);
    expect(failed!.due_in).toBeGreaterThan(0);

    // Not due yet: another pass leaves it alone.
    expect(await outboxJob(mailer).runOnce()).toBe(0);
    expect((await outbox(email))[0]!.attempts).toBe(1);

    await sink.start(port);
    await makeDue();
    expect(await outboxJob(mailer).runOnce()).toBe(1);
    expect(sink.deliveries.map((d) => d.to)).toEqual([[email]]);
    expect(sink.deliveries[0]!.text).toContain(`${PUBLIC_URL}/invite/${token}`);
    expect(await outbox(email)).toEqual([expect.objectContaining({ status: 'SENT', attempts: 2, last_error: null })]);
  });

  it(`waits longer after each failure and gives up after ${OUTBOX_MAX_ATTEMPTS} attempts`, async () => {
    const mailer = smtpMailer(await closedPort());
    const { email } = await inviteSomeone();
    const waits: number[] = [];
    for (let attempt = 1; attempt <= OUTBOX_MAX_ATTEMPTS; attempt += 1) {
      await makeDue();
      expect(await outboxJob(mailer).runOnce()).toBe(0);
      const [row] = await outbox(email);
      expect(row!.attempts).toBe(attempt);
      expect(row!.last_error).toMatch(/\S/);
      expect(row!.status).toBe(attempt < OUTBOX_MAX_ATTEMPTS ? 'PENDING' : 'FAILED');
      waits.push(row!.due_in);
    }
    for (let i = 1; i < waits.length; i += 1) expect(waits[i]!).toBeGreaterThan(waits[i - 1]!);

    // A FAILED mail is left for an operator: no further attempts, even when its time comes.
    await t.db.sql`update email_outbox set next_attempt_at = now()`;
    expect(await outboxJob(mailer).runOnce()).toBe(0);
    expect(await outbox(email)).toEqual([expect.objectContaining({ status: 'FAILED', attempts: OUTBOX_MAX_ATTEMPTS })]);
  });

  it('sends each mail once when a second job runs while the first is still sending', async () => {
    const port = await sink.start();
    const invited: string[] = [];
    for (let i = 0; i < 12; i += 1) invited.push((await inviteSomeone(`Person ${i}`)).email);

    // The first job has claimed its batch and is in the middle of sending when the second one starts its pass.
    const hold = sink.holdNext();
    const first = outboxJob(smtpMailer(port)).runOnce();
    await hold.arrived;
    const second = await outboxJob(smtpMailer(port)).runOnce();
    hold.release();
    const firstSent = await first;

    expect(firstSent).toBeGreaterThan(0);
    expect(firstSent + second).toBe(12);
    const recipients = sink.deliveries.flatMap((d) => d.to);
    expect(recipients).toHaveLength(12);
    expect([...recipients].sort()).toEqual([...invited].sort());
    const rows = await outbox();
    expect(rows).toHaveLength(12);
    expect(rows.every((row) => row.status === 'SENT' && row.attempts === 1)).toBe(true);
  });

  it('sends each mail once when two jobs start their passes at the same moment', async () => {
    const port = await sink.start();
    const invited: string[] = [];
    for (let i = 0; i < 6; i += 1) invited.push((await inviteSomeone(`Twin ${i}`)).email);
    const [a, b] = await Promise.all([outboxJob(smtpMailer(port)).runOnce(), outboxJob(smtpMailer(port)).runOnce()]);
    expect(a + b).toBe(6);
    expect(sink.deliveries.flatMap((d) => d.to).sort()).toEqual([...invited].sort());
  });
});

describe('e-mail outbox without SMTP', () => {
  it('marks mail SENT with the log-only mailer and writes the accept link to the log', async () => {
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const mailer = remember(createMailer({ smtpUrl: undefined, from: FROM, log }));
    expect(mailer.description).toBe('log-only');
    const { email, token } = await inviteSomeone();

    expect(await outboxJob(mailer).runOnce()).toBe(1);
    expect(await outbox(email)).toEqual([expect.objectContaining({ status: 'SENT', attempts: 1 })]);
    const logged = lines
      .map((line) => JSON.parse(line) as { to?: string; text?: string })
      .find((entry) => entry.to === email);
    expect(logged?.text).toContain(`${PUBLIC_URL}/invite/${token}`);
    expect(sink.deliveries).toHaveLength(0);
  });
});
