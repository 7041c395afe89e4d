/** The facts about the machine a figure was measured on, printed beside every report. */
import os from 'node:os';

export interface MachineFacts {
  cpuModel: string;
  cores: number;
  node: string;
  platform: string;
  memoryGiB: number;
  /** 1-minute load average when the run started: a busy machine explains a bad figure. */
  loadAverage1m: number;
  date: string;
}

export function machineFacts(now: Date = new Date()): MachineFacts {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism?.() ?? cpus.length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    date: now.toISOString(),
  };
}

export function describeMachine(facts: MachineFacts): string {
  return (
    `${facts.cpuModel}, ${facts.cores} cores, ${facts.memoryGiB} GiB, ${facts.platform}, Node ${facts.node}, ` +
    `load ${facts.loadAverage1m}, ${facts.date}`
  );
}
