/**
 * The import direction of docs/architecture.md §1 is enforced by eslint.config.js. These tests lint small virtual files at
 * the paths where they would live, against the repository's real config, so a config change that stops
 * catching a forbidden import (or starts flagging an allowed one) fails here, not in review.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** ESLint loads its config and the TypeScript parser on first use; that can take seconds on a cold machine. */
const LINT_TIMEOUT_MS = 60_000;

const RULE = 'no-restricted-imports';

const eslint = new ESLint({ cwd: REPO_ROOT });

interface ImportCase {
  /** Repository-relative path of the virtual file. */
  file: string;
  /** The import specifier under test. */
  source: string;
}

/** A module that imports `source` and uses the binding, so nothing but the import itself can be reported. */
function moduleImporting(source: string): string {
  return `import { thing } from '${source}';\n\nexport const used = thing;\n`;
}

async function lint(file: string, code: string): Promise<ESLint.LintResult> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}${file}` });
  if (!result) throw new Error(`ESLint returned no result for ${file}`);
  return result;
}

function importErrors(result: ESLint.LintResult): string[] {
  return result.messages.filter((message) => message.ruleId === RULE).map((message) => message.message);
}

async function expectForbidden(file: string, code: string): Promise<void> {
  const result = await lint(file, code);
  expect(result.errorCount).toBeGreaterThan(0);
  const errors = importErrors(result);
  expect(errors.length).toBeGreaterThan(0);
  for (const message of errors) expect(message).toContain('docs/architecture.md §1');
}

async function expectAllowed(file: string, code: string): Promise<void> {
  const result = await lint(file, code);
  expect(importErrors(result)).toEqual([]);
  expect(result.messages).toEqual([]);
}

const VENDOR_SDKS = ['openai', '@deepgram/sdk', 'elevenlabs', 'twilio', 'plivo', 'stripe', 'razorpay'];

beforeAll(async () => {
  // Warm ESLint up once so that no single case pays for loading the config and parser.
  await lint('engine/src/protocol/warm-up.ts', 'export const ready = true;\n');
}, LINT_TIMEOUT_MS);

describe('engine/src/{protocol,bus,audio} import nothing of Parley outside those folders', () => {
  it.each<ImportCase>([
    { file: 'engine/src/bus/x.ts', source: '../session/y.ts' },
    { file: 'engine/src/bus/x.ts', source: '../../test/z.ts' },
    { file: 'engine/src/bus/x.ts', source: '../transports/memory/index.ts' },
    { file: 'engine/src/protocol/x.ts', source: '../agent/prompt.ts' },
    { file: 'engine/src/audio/x.ts', source: '../workers/tts/worker.ts' },
    { file: 'engine/src/audio/codecs/g711.ts', source: '../../session/call-session.ts' },
    { file: 'engine/src/audio/codecs/g711.ts', source: '../../../package.json' },
    { file: 'engine/src/bus/x.ts', source: '@parley/engine/protocol' },
    { file: 'engine/src/bus/x.ts', source: '@parley/engine' },
    { file: 'engine/src/protocol/x.ts', source: '@parley/control-plane' },
    { file: 'engine/src/audio/x.ts', source: '@parley/sip-gateway' },
  ])(
    'rejects $file importing $source',
    ({ file, source }) => expectForbidden(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );

  it(
    'rejects re-exports and type-only imports that leave the core folders',
    async () => {
      await expectForbidden('engine/src/bus/index.ts', "export { CallSession } from '../session/call-session.ts';\n");
      await expectForbidden('engine/src/bus/index.ts', "export * from '../session/call-session.ts';\n");
      await expectForbidden(
        'engine/src/protocol/x.ts',
        "import type { Sql } from '@parley/control-plane';\n\nexport type Db = Sql;\n",
      );
    },
    LINT_TIMEOUT_MS,
  );

  it.each<ImportCase>([
    { file: 'engine/src/bus/x.ts', source: '../protocol/subjects.ts' },
    { file: 'engine/src/bus/x.ts', source: '../audio/frame.ts' },
    { file: 'engine/src/bus/x.ts', source: './ring-buffer.ts' },
    { file: 'engine/src/protocol/x.ts', source: '../bus/index.ts' },
    { file: 'engine/src/audio/codecs/g711.ts', source: '../../protocol/subjects.ts' },
    { file: 'engine/src/audio/codecs/g711.ts', source: '../resampler.ts' },
    { file: 'engine/src/bus/nats-bus.ts', source: '@nats-io/transport-node' },
    { file: 'engine/src/bus/x.ts', source: 'node:events' },
  ])(
    'allows $file importing $source',
    ({ file, source }) => expectAllowed(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );
});

describe('other workspaces import the engine only through its package exports', () => {
  it.each<ImportCase>([
    { file: 'control-plane/src/app.ts', source: '@parley/engine/src/bus/index.ts' },
    { file: 'control-plane/src/app.ts', source: '@parley/engine/session' },
    {
      file: 'control-plane/src/routes/v1/voice-sessions/recording.ts',
      source: '@parley/engine/storage/s3-object-store.ts',
    },
    { file: 'control-plane/src/app.ts', source: '@parley/engine/clients/llm-client.ts' },
    { file: 'control-plane/src/calls/launch/placement.ts', source: '@parley/engine/testing' },
    { file: 'control-plane/src/carriers/carrier-b/api.ts', source: '@parley/engine/testing' },
    { file: 'sip-gateway/src/bridge.ts', source: '@parley/engine/testing' },
    { file: 'mcp/src/server.ts', source: '@parley/engine/testing' },
    { file: 'control-plane/src/app.ts', source: '@parley/engine/protocol/subjects.ts' },
    { file: 'control-plane/src/routes/v1/calls/service.ts', source: '../../../../../engine/src/bus/index.ts' },
    { file: 'control-plane/test/calls.test.ts', source: '../../engine/src/protocol/index.ts' },
    { file: 'sip-gateway/src/rtp.ts', source: '../../engine/src/audio/g711.ts' },
    { file: 'sip-gateway/src/rtp.ts', source: '@parley/engine/src/audio/g711.ts' },
    { file: 'mcp/src/tools/calls.ts', source: '@parley/engine/src/protocol/index.ts' },
    { file: 'mcp/src/server.ts', source: '../../engine/src/bus/index.ts' },
    { file: 'bench/src/run.ts', source: '@parley/engine/src/session/call-session.ts' },
    { file: 'bench/src/carrier/simulator.ts', source: '../../../engine/src/audio/index.ts' },
  ])(
    'rejects $file importing $source',
    ({ file, source }) => expectForbidden(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );

  it.each<ImportCase>([
    { file: 'control-plane/src/app.ts', source: '@parley/engine/bus' },
    { file: 'control-plane/src/routes/v1/calls/service.ts', source: '@parley/engine/protocol' },
    { file: 'control-plane/src/calls/jobs/recordings.ts', source: '@parley/engine/audio' },
    { file: 'control-plane/src/agents/greeting-synthesis.ts', source: '@parley/engine/clients' },
    { file: 'control-plane/src/routes/v1/voice-sessions/recording.ts', source: '@parley/engine/storage' },
    { file: 'control-plane/test/support/workers.ts', source: '@parley/engine/testing' },
    { file: 'bench/src/carrier-sim/index.ts', source: '@parley/engine/testing' },
    { file: 'control-plane/src/cli/commands/start.ts', source: '@parley/engine' },
    { file: 'sip-gateway/src/bridge.ts', source: '@parley/engine/bus' },
    { file: 'mcp/src/tools/calls.ts', source: '@parley/engine/protocol' },
    { file: 'bench/src/run.ts', source: '@parley/engine/audio' },
  ])(
    'allows $file importing $source',
    ({ file, source }) => expectAllowed(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );
});

describe('control-plane, sip-gateway, engine and mcp keep out of each other', () => {
  it.each<ImportCase>([
    { file: 'engine/src/session/call-session.ts', source: '@parley/control-plane' },
    { file: 'engine/src/session/call-session.ts', source: '@parley/sip-gateway' },
    { file: 'engine/src/agent/tools.ts', source: '@parley/mcp' },
    { file: 'engine/src/workers/llm/worker.ts', source: '@parley/control-plane/cli' },
    { file: 'engine/test/dispatch.test.ts', source: '@parley/control-plane' },
    { file: 'engine/src/session/call-session.ts', source: '../../../control-plane/src/db/database.ts' },
    { file: 'sip-gateway/src/bridge.ts', source: '@parley/control-plane' },
    { file: 'sip-gateway/src/bridge.ts', source: '@parley/mcp' },
    { file: 'sip-gateway/src/sip/dialog.ts', source: '../../../control-plane/src/config.ts' },
    { file: 'control-plane/src/app.ts', source: '@parley/sip-gateway/src/server.ts' },
    { file: 'control-plane/src/app.ts', source: '../../sip-gateway/src/server.ts' },
    { file: 'control-plane/src/app.ts', source: '../../mcp/src/server.ts' },
    { file: 'control-plane/src/routes/v1/members/index.ts', source: '../../../../../bench/src/run.ts' },
    { file: 'mcp/src/tools/agents.ts', source: 'postgres' },
    { file: 'mcp/src/tools/agents.ts', source: '@electric-sql/pglite' },
    { file: 'mcp/src/tools/agents.ts', source: '@electric-sql/pglite-socket' },
    { file: 'mcp/src/tools/agents.ts', source: '@parley/control-plane/cli' },
    { file: 'mcp/src/tools/agents.ts', source: '@parley/control-plane/src/db/database.ts' },
    { file: 'mcp/src/auth/tokens.ts', source: '../../../control-plane/src/auth/api-key.ts' },
    { file: 'bench/src/sip/load.ts', source: '../../../sip-gateway/src/server.ts' },
    { file: 'bench/src/rest/fixture.ts', source: '@parley/control-plane/src/db/database.ts' },
  ])(
    'rejects $file importing $source',
    ({ file, source }) => expectForbidden(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );

  it.each<ImportCase>([
    { file: 'engine/src/session/call-session.ts', source: '../bus/index.ts' },
    { file: 'engine/src/session/call-session.ts', source: '../protocol/subjects.ts' },
    { file: 'engine/src/workers/llm/worker.ts', source: '../../providers/openai-compat/client.ts' },
    { file: 'engine/test/bus-contract.test.ts', source: '../src/bus/index.ts' },
    { file: 'control-plane/src/routes/v1/members/index.ts', source: '../../../auth/scopes.ts' },
    { file: 'control-plane/test/auth.test.ts', source: '../src/app.ts' },
    { file: 'control-plane/test/isolation/members.test.ts', source: '../../src/db/database.ts' },
    { file: 'control-plane/src/cli/commands/start.ts', source: '@parley/sip-gateway' },
    { file: 'control-plane/src/app.ts', source: '@parley/mcp' },
    { file: 'control-plane/src/db/database.ts', source: 'postgres' },
    { file: 'control-plane/src/db/embedded-postgres.ts', source: '@electric-sql/pglite-socket' },
    { file: 'mcp/src/server.ts', source: '@parley/control-plane' },
    { file: 'mcp/src/tools/agents.ts', source: '../rest-client.ts' },
    { file: 'bench/src/run.ts', source: '@parley/control-plane' },
  ])(
    'allows $file importing $source',
    ({ file, source }) => expectAllowed(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );
});

describe('vendor SDKs are imported only under engine/src/providers/, control-plane/src/carriers/ and control-plane/src/integrations/', () => {
  it.each(VENDOR_SDKS)(
    'rejects %s in engine/src/session',
    (sdk) => expectForbidden('engine/src/session/call-session.ts', moduleImporting(sdk)),
    LINT_TIMEOUT_MS,
  );

  it.each<ImportCase>([
    { file: 'engine/src/bus/x.ts', source: 'openai' },
    { file: 'engine/src/workers/llm/worker.ts', source: 'openai/resources/chat' },
    { file: 'engine/test/providers.test.ts', source: '@deepgram/sdk' },
    { file: 'control-plane/src/routes/v1/calls/service.ts', source: 'twilio' },
    { file: 'control-plane/src/jobs/billing.ts', source: 'stripe' },
    { file: 'sip-gateway/src/bridge.ts', source: 'plivo' },
    { file: 'mcp/src/tools/calls.ts', source: 'elevenlabs' },
    { file: 'bench/src/run.ts', source: 'razorpay' },
    { file: 'test/e2e/calls.test.ts', source: 'twilio' },
  ])(
    'rejects $file importing $source',
    ({ file, source }) => expectForbidden(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );

  it.each<ImportCase>([
    { file: 'engine/src/providers/openai/x.ts', source: 'openai' },
    { file: 'engine/src/providers/deepgram/stt.ts', source: '@deepgram/sdk' },
    { file: 'engine/src/providers/elevenlabs/tts/stream.ts', source: 'elevenlabs' },
    { file: 'control-plane/src/carriers/carrier-b/api.ts', source: 'twilio' },
    { file: 'control-plane/src/carriers/carrier-a/voice.ts', source: 'plivo' },
    { file: 'control-plane/src/integrations/payments/processor.ts', source: 'stripe' },
    { file: 'control-plane/src/integrations/payments/india.ts', source: 'razorpay' },
  ])(
    'allows $file importing $source',
    ({ file, source }) => expectAllowed(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );

  it.each<ImportCase>([
    { file: 'engine/src/providers/openai/x.ts', source: '@parley/control-plane' },
    { file: 'engine/src/providers/deepgram/stt.ts', source: '../../../../control-plane/src/config.ts' },
    { file: 'engine/src/providers/openai/x.ts', source: '@parley/engine/src/session/call-session.ts' },
    { file: 'control-plane/src/carriers/carrier-b/api.ts', source: '@parley/engine/src/bus/index.ts' },
    { file: 'control-plane/src/carriers/carrier-b/api.ts', source: '../../../../sip-gateway/src/server.ts' },
  ])(
    'still applies the workspace rules to a vendor folder: rejects $file importing $source',
    ({ file, source }) => expectForbidden(file, moduleImporting(source)),
    LINT_TIMEOUT_MS,
  );
});

describe('GPL programs run apart', () => {
  it.each([
    'engine/src/providers/espeak-wasm/espeak-wasm-tts.ts',
    'engine/src/session/x.ts',
    'control-plane/src/voices/x.ts',
    'test/scripts/x.test.ts',
  ])(
    '%s may not import espeak-ng',
    async (file) => {
      await expectForbidden(file, moduleImporting('espeak-ng'));
    },
    LINT_TIMEOUT_MS,
  );

  it(
    'the program that is the child process may',
    async () => {
      const result = await lint(
        'engine/src/providers/espeak-wasm/espeak-wasm-program.mjs',
        moduleImporting('espeak-ng'),
      );
      expect(importErrors(result)).toEqual([]);
    },
    LINT_TIMEOUT_MS,
  );
});
