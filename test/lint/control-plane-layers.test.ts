/**
 * The control plane's layers (docs/architecture.md §1) and the no-cycle rule, enforced by eslint.config.js with
 * eslint-plugin-boundaries and import-x/no-cycle. Layer cases lint small virtual files at the paths where they would
 * live; the boundaries plugin resolves their imports on disk, so every import here names a file that exists. Cycle
 * cases need both files on disk: they are written into a scratch copy of the layout and linted with the real config.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = path.join(REPO_ROOT, 'eslint.config.js');
/** ESLint loads its config, parser and the import resolver on first use: seconds on a cold, busy machine. */
const LINT_TIMEOUT_MS = 60_000;
const LAYER_RULE = 'boundaries/dependencies';
const CYCLE_RULE = 'import-x/no-cycle';

const eslint = new ESLint({ cwd: REPO_ROOT });

interface LayerCase {
  /** Repository-relative path of the virtual file. */
  file: string;
  /** A relative import of a real file of the control plane. */
  source: string;
}

async function layerErrors(file: string, source: string): Promise<string[]> {
  const code = `import * as thing from '${source}';\n\nexport const used = thing;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  if (!result) throw new Error(`ESLint returned no result for ${file}`);
  return result.messages.filter((m) => m.ruleId === LAYER_RULE).map((m) => m.message);
}

beforeAll(async () => {
  await layerErrors('control-plane/src/agents/warm-up.ts', '../errors.ts');
}, LINT_TIMEOUT_MS);

describe('control-plane/src imports run downward: composition → routes → plugins → domain → infrastructure', () => {
  it.each<LayerCase>([
    // domain → routes, plugins or the composition root
    { file: 'control-plane/src/agents/service-x.ts', source: '../routes/v1/agents/schemas.ts' },
    { file: 'control-plane/src/calls/launch/x.ts', source: '../../routes/webhooks/carrier-voice.ts' },
    { file: 'control-plane/src/carriers/carrier-b/x.ts', source: '../../plugins/app/auth.ts' },
    { file: 'control-plane/src/telephony/x.ts', source: '../app.ts' },
    { file: 'control-plane/src/wallet/x.ts', source: '../config.ts' },
    // infrastructure → domain or above
    { file: 'control-plane/src/db/x.ts', source: '../agents/repository.ts' },
    { file: 'control-plane/src/http/x.ts', source: '../routes/v1/agents/schemas.ts' },
    { file: 'control-plane/src/secrets/x.ts', source: '../calls/launch/placement.ts' },
    // plugins → routes; routes → composition
    { file: 'control-plane/src/plugins/app/x.ts', source: '../../routes/health.ts' },
    { file: 'control-plane/src/routes/v1/agents/x.ts', source: '../../../server.ts' },
  ])(
    'rejects $file importing $source',
    async ({ file, source }) => {
      const errors = await layerErrors(file, source);
      expect(errors.length).toBeGreaterThan(0);
      for (const message of errors) expect(message).toContain('docs/architecture.md §1');
    },
    LINT_TIMEOUT_MS,
  );

  it.each<LayerCase>([
    { file: 'control-plane/src/routes/v1/agents/x.ts', source: '../../../agents/service.ts' },
    { file: 'control-plane/src/routes/v1/agents/x.ts', source: '../../../plugins/app/auth.ts' },
    { file: 'control-plane/src/calls/launch/x.ts', source: '../../agents/snapshot.ts' },
    { file: 'control-plane/src/calls/launch/x.ts', source: '../../db/database.ts' },
    { file: 'control-plane/src/agents/x.ts', source: '../errors.ts' },
    { file: 'control-plane/src/plugins/app/x.ts', source: '../../auth/key-store.ts' },
    { file: 'control-plane/src/server.ts', source: './routes/health.ts' },
    { file: 'control-plane/src/cli/commands/x.ts', source: '../../accounts/provisioning.ts' },
    { file: 'control-plane/src/db/x.ts', source: './ids.ts' },
  ])(
    'allows $file importing $source',
    async ({ file, source }) => {
      expect(await layerErrors(file, source)).toEqual([]);
    },
    LINT_TIMEOUT_MS,
  );
});

describe('SQL lives in repositories', () => {
  const query =
    "import type { Sql } from '../../db/database.ts';\n\nexport const read = (sql: Sql) => sql`select 1`;\n";
  const unsafe =
    "import type { Sql } from '../../db/database.ts';\n\nexport const read = (sql: Sql) => sql.unsafe('select 1');\n";

  async function sqlErrors(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
  }

  it.each([
    'control-plane/src/calls/launch/new-service.ts',
    'control-plane/src/agents/new-rules.ts',
    'control-plane/src/routes/v1/agents/new-route.ts',
  ])(
    'rejects a query in %s',
    async (file) => {
      for (const code of [query, unsafe])
        expect(await sqlErrors(file, code)).toEqual([expect.stringContaining('repository')]);
    },
    LINT_TIMEOUT_MS,
  );

  it.each(['control-plane/src/calls/repository/new-repository.ts', 'control-plane/src/agents/repository.ts'])(
    'allows a query in %s',
    async (file) => {
      expect(await sqlErrors(file, query)).toEqual([]);
    },
    LINT_TIMEOUT_MS,
  );
});

describe('every file of control-plane/src sits in a layer', () => {
  it(
    'rejects a file outside the layers (a new top-level folder must be given its layer first)',
    async () => {
      const [result] = await eslint.lintText('export const stray = 1;\n', {
        filePath: path.join(REPO_ROOT, 'control-plane/src/misc/stray.ts'),
      });
      expect(result?.messages.map((m) => m.ruleId)).toContain('boundaries/no-unknown-files');
    },
    LINT_TIMEOUT_MS,
  );
});

describe('no import cycles in any workspace source', () => {
  let scratch: string;

  beforeAll(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-lint-cycles-'));
  });
  afterAll(async () => {
    await fs.rm(scratch, { recursive: true, force: true });
  });

  /** Writes `files` under the scratch root and lints them with the repository's config, as if they were the tree. */
  async function lintTree(files: Record<string, string>): Promise<ESLint.LintResult[]> {
    for (const [file, code] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(scratch, file)), { recursive: true });
      await fs.writeFile(path.join(scratch, file), code);
    }
    const scratchLint = new ESLint({ cwd: scratch, overrideConfigFile: CONFIG });
    return scratchLint.lintFiles(Object.keys(files));
  }

  const cycleErrors = (results: ESLint.LintResult[]) =>
    results.flatMap((r) => r.messages.filter((m) => m.ruleId === CYCLE_RULE).map(() => path.basename(r.filePath)));

  it(
    'rejects two files of the control plane that import each other, directly or through a third',
    async () => {
      const results = await lintTree({
        'control-plane/src/calls/launch/a.ts': "import { b } from './b.ts';\n\nexport const a = () => b;\n",
        'control-plane/src/calls/launch/b.ts': "import { c } from '../events/c.ts';\n\nexport const b = () => c;\n",
        'control-plane/src/calls/events/c.ts': "import { a } from '../launch/a.ts';\n\nexport const c = () => a;\n",
      });
      expect(cycleErrors(results).sort()).toEqual(['a.ts', 'b.ts', 'c.ts']);
    },
    LINT_TIMEOUT_MS,
  );

  it(
    'rejects a cycle in the engine, and allows the same files once the loop is broken',
    async () => {
      const cyclic = await lintTree({
        'engine/src/session/x.ts': "import { y } from './y.ts';\n\nexport const x = () => y;\n",
        'engine/src/session/y.ts': "import { x } from './x.ts';\n\nexport const y = () => x;\n",
      });
      expect(cycleErrors(cyclic).sort()).toEqual(['x.ts', 'y.ts']);
      const broken = await lintTree({
        'engine/src/session/x.ts': "import { y } from './y.ts';\n\nexport const x = () => y;\n",
        'engine/src/session/y.ts': 'export const y = 1;\n',
      });
      expect(cycleErrors(broken)).toEqual([]);
    },
    LINT_TIMEOUT_MS,
  );
});
