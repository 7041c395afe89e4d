/**
 * Processes seen from outside, through Linux's /proc: the NATS server's CPU (the bus every call's audio and text
 * crosses, not a Parley process, so reported beside Parley's figures, not gated), the whole machine's CPU
 * (everything else running, other users included), and a child's resident memory, sampled through a window without
 * disturbing the child. Elsewhere than Linux all of them read as unknown.
 */
import { readdir, readFile } from 'node:fs/promises';

/** Kernel clock ticks per second (USER_HZ): 100 on every Linux this bench runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The pid of the one process named `name` (its /proc comm), when there is exactly one. */
export async function findProcess(name: string): Promise<number | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return undefined;
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === name) found.push(Number(entry));
  }
  return found.length === 1 ? found[0] : undefined;
}

/** CPU time `pid` has used, user + system, ms; undefined when it cannot be read. */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat === undefined ? undefined : cpuMsOfStat(stat);
}

/** utime + stime of a /proc/<pid>/stat line, ms. The name (field 2) may hold spaces, so fields count from its ')'. */
export function cpuMsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the line are the 12th and 13th after the name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Resident memory of `pid`, bytes (VmRSS); undefined when it cannot be read. */
export async function processRssBytes(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kib = status === undefined ? undefined : /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib === undefined ? undefined : Number(kib) * 1024;
}

/** The machine's CPU time so far, all cores: busy and total, in clock ticks. */
export interface MachineCpu {
  busy: number;
  total: number;
}

export async function machineCpu(): Promise<MachineCpu | undefined> {
  const stat = await readFile('/proc/stat', 'utf8').catch(() => undefined);
  return stat === undefined ? undefined : machineCpuOfStat(stat);
}

/** The first (all-cores) line of /proc/stat: idle and iowait are idle, the rest (guest time is in user) busy. */
export function machineCpuOfStat(stat: string): MachineCpu {
  const values = stat.split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  const idle = values[3]! + values[4]!;
  return { busy: total - idle, total };
}
