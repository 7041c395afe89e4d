/**
 * Shared pieces of the offline speech tests: real programs, real audio. A suite whose program is not installed is
 * skipped, saying why — except under PARLEY_REQUIRE_ALL=1, where a missing program is a failure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'vitest';
import type { AudioChunk } from '../../../src/audio/format.ts';
import { isProviderError } from '../../../src/providers/provider-error.ts';

const requireAll = process.env.PARLEY_REQUIRE_ALL === '1';

/** Why `create` cannot make its provider on this machine, or undefined when it can. */
export function unavailableReason(create: () => unknown): string | undefined {
  try {
    create();
    return undefined;
  } catch (error) {
    if (isProviderError(error, 'provider_unavailable')) return error.message;
    throw error;
  }
}

/** `describe` when the programs are installed; a skip naming the reason otherwise (a failure under PARLEY_REQUIRE_ALL=1). */
export function describeInstalled(name: string, reason: string | undefined, body: () => void): void {
  describe.skipIf(reason !== undefined)(reason === undefined ? name : `${name} (skipped: ${reason})`, body);
  if (requireAll && reason !== undefined) {
    describe(`${name} under PARLEY_REQUIRE_ALL=1`, () => {
      it('has its programs installed', () => {
        throw new Error(`${reason}; the offline speech programs are required when PARLEY_REQUIRE_ALL=1`);
      });
    });
  }
}

/** All chunks of a synthesis joined, with their (single) rate. */
export async function collectAudio(
  chunks: AsyncIterable<AudioChunk>,
): Promise<{ samples: Int16Array; sampleRate: number; chunks: number }> {
  const parts: AudioChunk[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const rates = new Set(parts.map((p) => p.sampleRate));
  if (rates.size > 1) throw new Error(`chunks at several rates: ${[...rates].join(', ')}`);
  const samples = new Int16Array(parts.reduce((n, p) => n + p.samples.length, 0));
  let offset = 0;
  for (const part of parts) {
    samples.set(part.samples, offset);
    offset += part.samples.length;
  }
  return { samples, sampleRate: parts[0]?.sampleRate ?? 0, chunks: parts.length };
}

/** Root-mean-square level of `samples`, in PCM16 units (speech from these engines is in the thousands). */
export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** `samples` cut into frames of `frameSamples` (the last may be shorter). */
export function* frames(samples: Int16Array, frameSamples: number): Generator<Int16Array> {
  for (let offset = 0; offset < samples.length; offset += frameSamples)
    yield samples.subarray(offset, offset + frameSamples);
}

/** Share of the expected words that appear in `actual`, each counted at most as often as it appears there. */
export function wordOverlap(expected: string, actual: string): number {
  const words = (text: string) =>
    text
      .toLowerCase()
      .split(/[^a-z']+/)
      .filter(Boolean);
  const pool = words(actual);
  const wanted = words(expected);
  let found = 0;
  for (const word of wanted) {
    const at = pool.indexOf(word);
    if (at >= 0) {
      found += 1;
      pool.splice(at, 1);
    }
  }
  return wanted.length === 0 ? 1 : found / wanted.length;
}

/** Pids of this process's live children running `command` (zombies included: a zombie is a child not yet reaped). */
export function childProcesses(command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    // The kernel keeps 15 characters of a command name.
    if (ppid === process.pid && comm === command.slice(0, 15)) pids.push(Number(entry));
  }
  return pids;
}

/** Waits until `check` is true, polling, for at most `timeoutMs`; returns its last value. */
export async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
