/**
 * A V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) summarised for a report: self time per function, the
 * heaviest first, and self time per area of the code (an engine folder, a package, Node's internals, the garbage
 * collector), so a reader sees where the engine's CPU goes without opening a profiler.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** The parts of the .cpuprofile format read here; times are µs of the monotonic clock. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  startTime: number;
  endTime: number;
  /** The node on top of the stack at each sample, and the time since the sample before (the first: since startTime). */
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  /** Where it is: `engine/src/audio/resampler.ts`, `node internals`, a package name, or `(garbage collector)`. */
  where: string;
  selfMs: number;
  /** Share of the profile's busy time (idle excluded). */
  share: number;
}

export interface ProfileSummary {
  /** Profiled wall time, and the part of it not idle, ms. */
  wallMs: number;
  busyMs: number;
  functions: ProfileRow[];
  areas: ProfileRow[];
}

/** Where a script URL belongs: its path from the repository's workspaces, its package, or Node's own. */
export function areaOf(url: string): string {
  if (url === '') return 'native code (V8 builtins, libuv, system calls)';
  if (url.startsWith('node:')) return 'node internals';
  const file = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1]!;
  const workspace = /(?:^|\/)((?:engine|bench|control-plane|sip-gateway|mcp)\/(?:src|test)\/(?:[^/]+\/)?)/.exec(file);
  if (workspace) return workspace[1]!.replace(/\/$/, '');
  return path.basename(file);
}

/** The file, from its workspace (tsx compiles each module to one line, so line numbers say nothing). */
function whereOf(url: string): string {
  const file = url.replace(/^file:\/\//, '');
  const workspace = /(?:^|\/)((?:engine|bench|control-plane|sip-gateway|mcp)\/.*)$/.exec(file);
  if (workspace && !file.includes('node_modules')) return workspace[1]!;
  return areaOf(url);
}

/**
 * Self time per function and per area, `top` rows of each, heaviest first; only the samples taken within `range`
 * (monotonic µs) when given and inside the profile, so start-up and warm-up can be left out.
 */
export function summariseProfile(profile: CpuProfile, top = 15, range?: [number, number]): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const inside =
    range !== undefined && range[0] >= profile.startTime && range[1] <= profile.endTime && range[1] > range[0];
  const [from, to] = inside ? range : [profile.startTime, profile.endTime];
  const functions = new Map<string, { name: string; where: string; micros: number }>();
  const areas = new Map<string, number>();
  let idle = 0;
  let total = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) continue;
    // A sample stands for the time until the next one.
    const micros = profile.timeDeltas[i + 1] ?? 0;
    const frame = byId.get(profile.samples[i]!);
    if (!frame) continue;
    total += micros;
    if (frame.functionName === '(idle)') {
      idle += micros;
      continue;
    }
    const special = frame.functionName.startsWith('(') && frame.url === '';
    const name = frame.functionName || '(anonymous)';
    const where = special ? name : whereOf(frame.url);
    const key = `${name}@${where}`;
    const row = functions.get(key) ?? { name, where, micros: 0 };
    row.micros += micros;
    functions.set(key, row);
    const area = special ? name : areaOf(frame.url);
    areas.set(area, (areas.get(area) ?? 0) + micros);
  }
  const busyMs = (total - idle) / 1000;
  const share = (micros: number) => (busyMs > 0 ? micros / 1000 / busyMs : 0);
  return {
    wallMs: (to - from) / 1000,
    busyMs,
    functions: [...functions.values()]
      .sort((a, b) => b.micros - a.micros)
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, selfMs: f.micros / 1000, share: share(f.micros) })),
    areas: [...areas]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, micros]) => ({ name: area, where: area, selfMs: micros / 1000, share: share(micros) })),
  };
}

/**
 * The main thread's profile among those `--cpu-prof` wrote into `dir` (under tsx the module loader's thread writes
 * one too): the one with the most samples.
 */
export async function readMainProfile(dir: string): Promise<CpuProfile | undefined> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.cpuprofile'));
  let best: { file: string; size: number } | undefined;
  for (const file of files) {
    const { size } = await stat(path.join(dir, file));
    if (!best || size > best.size) best = { file, size };
  }
  return best ? (JSON.parse(await readFile(path.join(dir, best.file), 'utf8')) as CpuProfile) : undefined;
}
