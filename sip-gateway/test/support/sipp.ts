/**
 * Runs Debian's SIPp (sip-tester 3.6.1) with a scenario of this folder's scenarios/, its `{{NAME}}` placeholders
 * filled in, on free ports of its own.
 */
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

const SCENARIOS = join(import.meta.dirname, '..', 'scenarios');

export interface SippResult {
  code: number | null;
  stdout: string;
  stderr: string;
  errors: string;
}

/** A port free for both UDP and TCP now. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as { port: number };
        server.close(() => resolve(p));
      });
    });
    const udpFree = await new Promise<boolean>((resolve) => {
      const socket = createSocket('udp4');
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
}

/** An even port whose next three are free too (SIPp's media uses mp, mp+2). */
export async function freeMediaPort(): Promise<number> {
  for (;;) {
    const port = (await freePort()) & ~1;
    if (port < 1024) continue;
    const ok = await Promise.all(
      [port, port + 1, port + 2, port + 3].map(
        (p) =>
          new Promise<boolean>((resolve) => {
            const socket = createSocket('udp4');
            socket.once('error', () => resolve(false));
            socket.bind(p, '127.0.0.1', () => socket.close(() => resolve(true)));
          }),
      ),
    );
    if (ok.every(Boolean)) return port;
  }
}

export interface SippRun {
  scenario: string;
  /** The gateway's SIP port on 127.0.0.1. */
  target: number;
  dir: string;
  values?: Record<string, string | number>;
  /** SIPp's `-s` (the dialled user). */
  service?: string;
  transport?: 'u1' | 't1';
  extra?: string[];
  timeoutMs?: number;
  /** A UAS waits for calls instead of placing them. */
  uas?: { port: number };
  calls?: number;
}

/** Starts SIPp; the promise settles when it exits. */
export async function runSipp(options: SippRun): Promise<SippResult> {
  let xml = await readFile(join(SCENARIOS, options.scenario), 'utf8');
  for (const [key, value] of Object.entries(options.values ?? {})) xml = xml.replaceAll(`{{${key}}}`, String(value));
  const file = join(options.dir, `${options.scenario}.${Math.random().toString(36).slice(2)}.xml`);
  await writeFile(file, xml);
  const errors = `${file}.errors.log`;
  const port = options.uas?.port ?? (await freePort());
  const media = await freeMediaPort();
  const args = [
    ...(options.uas ? [] : [`127.0.0.1:${options.target}`]),
    '-sf',
    file,
    '-i',
    '127.0.0.1',
    '-p',
    String(port),
    '-mi',
    '127.0.0.1',
    '-mp',
    String(media),
    '-m',
    String(options.calls ?? 1),
    '-t',
    options.transport ?? 'u1',
    '-nostdin',
    '-trace_err',
    '-error_file',
    errors,
    '-timeout',
    `${Math.ceil((options.timeoutMs ?? 30_000) / 1000)}s`,
    '-timeout_error',
    ...(options.service ? ['-s', options.service] : []),
    ...(options.extra ?? []),
  ];
  return new Promise((resolve) => {
    execFile(
      'sipp',
      args,
      { cwd: options.dir, timeout: (options.timeoutMs ?? 30_000) + 5_000 },
      (error, stdout, stderr) => {
        void readFile(errors, 'utf8')
          .catch(() => '')
          .then((text) =>
            resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr, errors: text }),
          );
      },
    );
  });
}
