import { describe, expect, it } from 'vitest';
import { isProviderError } from '../provider-error.ts';
import { LocalProcess, processStdout, resolveExecutable, runForOutput } from './local-process.ts';

/** The provider these runs are for, as ProviderError names it. */
const PROVIDER = 'test-provider';

describe('resolveExecutable', () => {
  it('finds a bare name on the search path and refuses a missing program as provider_unavailable', () => {
    expect(resolveExecutable(PROVIDER, 'sh', 'hint', '/nonexistent:/bin:/usr/bin')).toMatch(/\/sh$/);
    expect(() => resolveExecutable(PROVIDER, 'no-such-program', 'install it', '/bin:/usr/bin')).toThrow(
      expect.objectContaining({
        code: 'provider_unavailable',
        provider: PROVIDER,
        message: expect.stringContaining('install it'),
      }),
    );
  });
});

describe('LocalProcess', () => {
  it('passes arguments without a shell: quotes, $ and ; are just bytes', async () => {
    const text = `"a" 'b' $HOME; echo pwned \`id\``;
    expect(await runForOutput(PROVIDER, 'printf', ['%s', text], 5_000, 1024)).toBe(text);
  });

  it('fails with provider_failed and the end of stderr when the program exits non-zero', async () => {
    const run = new LocalProcess(PROVIDER, 'sh', ['-c', 'echo "model not found" >&2; exit 3']);
    await expect(run.finished).rejects.toThrow(
      expect.objectContaining({ code: 'provider_failed', message: expect.stringMatching(/exit 3.*model not found/) }),
    );
  });

  it('kills the program on abort, and that is not a failure', async () => {
    const abort = new AbortController();
    const run = new LocalProcess(PROVIDER, 'sleep', ['10'], { signal: abort.signal });
    const started = performance.now();
    abort.abort();
    await run.finished;
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('kills the program at its deadline and fails with upstream_timeout', async () => {
    const error = await new LocalProcess(PROVIDER, 'sleep', ['10'], { timeoutMs: 50 }).finished.catch(
      (e: unknown) => e,
    );
    expect(isProviderError(error, 'upstream_timeout')).toBe(true);
  });
});

describe('processStdout', () => {
  it('streams stdout, feeding stdin', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of processStdout(PROVIDER, 'cat', [], {
      signal: new AbortController().signal,
      timeoutMs: 5_000,
      input: 'héllo\nworld',
    }))
      chunks.push(chunk);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('héllo\nworld');
  });

  it('ends quietly and promptly when aborted while the program is silent', async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const started = performance.now();
    for await (const _ of processStdout(PROVIDER, 'sleep', ['10'], { signal: abort.signal, timeoutMs: 5_000 })) void _;
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
