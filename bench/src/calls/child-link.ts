/**
 * A forked child process (engine-process.ts or caller-process.ts) and its conversation with the bench: each
 * request names the reply it waits for, and fails when the child answers `failed`, exits, or takes too long.
 * Children are forked with the bench's own Node flags (`--import tsx`), plus any asked for (`--cpu-prof`).
 */
import { fork, type ChildProcess } from 'node:child_process';

/** Closing waits this long for the child to exit by itself, ms; then it is killed. */
const EXIT_TIMEOUT_MS = 15_000;

export class ChildLink<To extends { type: string }, From extends { type: string }> {
  readonly name: string;
  readonly #child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(name: string, entry: string, nodeFlags: readonly string[] = []) {
    this.name = name;
    this.#child = fork(entry, [], {
      execArgv: [...process.execArgv, ...nodeFlags],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.exited = new Promise((resolve) => this.#child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** Sends `message` and resolves with the child's first reply of type `reply`. */
  request<T extends From['type']>(message: To, reply: T, timeoutMs: number): Promise<Extract<From, { type: T }>> {
    const child = this.#child;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`${this.name}: no ${reply} within ${timeoutMs} ms`)), timeoutMs);
      const onMessage = (answer: From) => {
        if (answer.type === reply) done(undefined, answer as Extract<From, { type: T }>);
        else if (answer.type === 'failed')
          done(new Error(`${this.name} failed: ${(answer as unknown as { message: string }).message}`));
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        done(new Error(`${this.name} exited (code ${code}, signal ${signal})`));
      function done(error: Error | undefined, value?: Extract<From, { type: T }>) {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(value!);
      }
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (!child.connected) return done(new Error(`${this.name} is not running`));
      child.send(message);
    });
  }

  /** Sends `message` (a stop or quit) and waits for the exit; kills the child if it does not go. */
  async close(message: To): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    if (this.#child.connected) this.#child.send(message);
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), EXIT_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (late) {
      this.#child.kill('SIGKILL');
      await this.exited;
    }
  }
}
