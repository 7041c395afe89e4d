/**
 * `npm run bench -- <suite> [options]`: runs one registered suite and exits with its code. An unknown or missing
 * suite prints the list and exits 2. Ctrl-C stops the load, lets the suite clean up (schemas, processes), exits 130;
 * a second Ctrl-C exits at once.
 */
import { parseCommand, usage } from './options.ts';
import { engineSuite } from './engine/index.ts';
import { engineAudioSuite } from './engine-audio/index.ts';
import { restSuite } from './rest/index.ts';
import { callsSuite } from './calls/index.ts';
import { mcpSuite } from './mcp/index.ts';
import { walletSuite } from './wallet/index.ts';
import { chatSuite } from './chat/index.ts';
import { knowledgeSuite } from './knowledge/index.ts';
import { diallerSuite } from './dialler/index.ts';
import { webrtcSuite } from './webrtc/index.ts';
import { sipSuite } from './sip/index.ts';
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, type Suite } from './suite.ts';

/** Every suite, by name. */
const SUITES: readonly Suite[] = [
  restSuite,
  mcpSuite,
  engineAudioSuite,
  engineSuite,
  callsSuite,
  walletSuite,
  chatSuite,
  knowledgeSuite,
  diallerSuite,
  webrtcSuite,
  sipSuite,
];

async function main(argv: readonly string[]): Promise<number> {
  const command = parseCommand(argv, SUITES);
  if (command.kind === 'help') {
    process.stdout.write(`${usage(SUITES)}\n`);
    return EXIT_OK;
  }
  if (command.kind === 'usage-error') {
    process.stderr.write(`${command.message}\n\n${usage(SUITES)}\n`);
    return EXIT_USAGE;
  }
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    process.stderr.write('\nstopping: cleaning up (Ctrl-C again to quit at once)…\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const code = await command.suite.run({
      options: command.options,
      extra: command.extra,
      signal: controller.signal,
      out: (text) => process.stdout.write(`${text}\n`),
      log: (text) => process.stderr.write(`${text}\n`),
    });
    return controller.signal.aborted ? EXIT_INTERRUPTED : code;
  } catch (error) {
    process.stderr.write(
      `bench ${command.suite.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return controller.signal.aborted ? EXIT_INTERRUPTED : EXIT_FAILED;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

process.exitCode = await main(process.argv.slice(2));
