// @ts-check
// Lint for the whole monorepo: typescript-eslint's recommended rules (syntax only, no type information, so
// `eslint .` stays fast) plus the import direction of docs/architecture.md §1, enforced with core `no-restricted-imports`.
//
// Flat config replaces a rule's options when two blocks match the same file, so the import rules are not
// spread over overlapping blocks: each file falls into exactly one "zone" (a folder minus its sub-zones), and
// each zone is emitted as one block per folder depth whose pattern list is built here, in JS, from every rule
// that applies to that zone. The depth matters because a relative import leaves a folder when it climbs more
// `../` than the file sits deep inside it; the per-depth `files` globs (`a/*.ts`, `a/*/*.ts`, …) are disjoint.
import boundaries from 'eslint-plugin-boundaries';
import { importX } from 'eslint-plugin-import-x';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const SOURCES = '{ts,mts,cts,js,mjs,cjs}';

/**
 * Files more than this many folders below a zone's folder reuse the patterns of this depth: that may flag a
 * legitimate very deep relative import (loudly, then raise the number), but never lets an escaping one through.
 */
const MAX_DEPTH = 12;

const WORKSPACES = ['engine', 'control-plane', 'sip-gateway', 'mcp', 'bench'];

/** engine/src folders that import nothing of Parley but each other. */
const ENGINE_CORE = ['protocol', 'bus', 'audio'];

/** What other workspaces may import of the engine, besides `@parley/engine` itself (the role start functions). */
const ENGINE_EXPORTS = [
  'protocol',
  'bus',
  'audio',
  'flow',
  'agent',
  'clients',
  'storage',
  'offline-voice',
  'metrics',
  'testing',
];

/** Vendor SDKs live only in the folders of VENDOR_HOMES. */
const VENDOR_SDKS = ['openai', '@deepgram/sdk', 'elevenlabs', 'twilio', 'plivo', 'stripe', 'razorpay'];
const VENDOR_HOMES = ['engine/src/providers', 'control-plane/src/carriers', 'control-plane/src/integrations'];

const SECTION = 'docs/architecture.md §1 "The house"';

/** `n` levels up as an import prefix: up(2) === '../../'. */
const up = (/** @type {number} */ n) => '../'.repeat(n);

/**
 * Package patterns: gitignore-style, matched against the import string. A leading `/` anchors a bare name
 * (`/openai` matches `openai` and `openai/x`, not `./providers/openai/x.ts`); a name matches its subpaths too.
 */
const parleyPackage = (/** @type {string} */ name) => `@parley/${name}`;

// Each builder returns `no-restricted-imports` pattern objects; a zone concatenates the ones that apply to it.

const vendorSdksStayHome = () => [
  {
    group: VENDOR_SDKS.map((sdk) => `/${sdk}`),
    message: `Vendor SDKs are imported only under ${VENDOR_HOMES.map((home) => `${home}/`).join(' and ')} (${SECTION}).`,
  },
];

/**
 * GPL-licensed programs Parley runs as child processes and never loads into its own (Apache-2.0) process: the WASM
 * espeak-ng fallback voice. Only the program file that is that child imports it (docs/architecture.md §6).
 */
const GPL_PROGRAMS = ['espeak-ng'];
const GPL_PROGRAM_FILES = ['engine/src/providers/espeak-wasm/espeak-wasm-program.mjs'];
const gplProgramsRunApart = () => [
  {
    group: GPL_PROGRAMS.map((name) => `/${name}`),
    message: `${GPL_PROGRAMS.join(', ')} is GPL: run it as a program of its own (${GPL_PROGRAM_FILES.join(', ')}), never import it (${SECTION}).`,
  },
];

const noDeepParleyImports = () => [
  {
    group: ['@parley/*/src', '@parley/*/src/**'],
    message: `Import a workspace through its package.json "exports", never its src/ (${SECTION}).`,
  },
];

const engineOnlyThroughExports = () => [
  {
    group: ['@parley/engine/**', ...ENGINE_EXPORTS.map((entry) => `!@parley/engine/${entry}`)],
    message:
      `Other workspaces import the engine only through its exports: ` +
      `${['@parley/engine', ...ENGINE_EXPORTS.map((entry) => `@parley/engine/${entry}`)].join(', ')} (${SECTION}).`,
  },
];

/**
 * The engine's vendor fakes and carrier simulator (`@parley/engine/testing`) and the SIP gateway's SIPp and pcap
 * helpers (`@parley/sip-gateway/testing`) are for tests: other workspaces' source folders may not import them
 * (bench, a harness itself, may).
 */
const TEST_ONLY_EXPORTS = ['@parley/engine/testing', '@parley/sip-gateway/testing'];
const testOnlyExportsStayInTests = () => [
  {
    group: TEST_ONLY_EXPORTS,
    message: `${TEST_ONLY_EXPORTS.join(', ')} is for tests: import it only under test/ (${SECTION}).`,
  },
];
/** Workspaces whose src/ must not import the test-only exports. */
const SOURCE_FOLDERS_WITHOUT_FAKES = ['control-plane/src', 'sip-gateway/src', 'mcp/src'];

/** @param {string[]} names @param {string} why */
const noParleyPackages = (names, why) => [{ group: names.map(parleyPackage), message: `${why} (${SECTION}).` }];

/**
 * Relative imports stay inside their workspace: another workspace is reached through its package name.
 * @param {string} workspace @param {number} depth folders between the workspace root and the file
 */
const relativeStaysInWorkspace = (workspace, depth) => [
  {
    group: [`${up(depth + 1)}*`],
    message:
      `A relative import must stay inside ${workspace}/: reach another workspace through its package name ` +
      `and its exports (${SECTION}).`,
  },
];

/** @param {number} depth folders between engine/src/<core folder> and the file */
const engineCoreImportsNothingOfParley = (depth) => [
  {
    group: [`${up(depth + 1)}*`, ...ENGINE_CORE.map((folder) => `!${up(depth + 1)}${folder}`)],
    message: `engine/src/{${ENGINE_CORE.join(',')}} import nothing of Parley outside those folders (${SECTION}).`,
  },
  {
    group: ['@parley/*'],
    message: `engine/src/{${ENGINE_CORE.join(',')}} import no @parley/* package (${SECTION}).`,
  },
];

/** Rules every file of a workspace gets, whatever its zone. */
const WORKSPACE_RULES = {
  engine: () =>
    noParleyPackages(
      ['control-plane', 'sip-gateway', 'mcp', 'bench'],
      'The engine imports no other workspace; it talks to control-plane and sip-gateway over the bus',
    ),
  'control-plane': () => [
    ...engineOnlyThroughExports(),
    ...noParleyPackages(['bench'], 'Nothing imports bench; bench imports the others'),
  ],
  'sip-gateway': () => [
    ...engineOnlyThroughExports(),
    ...noParleyPackages(
      ['control-plane', 'mcp', 'bench'],
      'sip-gateway imports neither control-plane nor mcp; it talks to them over the bus',
    ),
  ],
  mcp: () => [
    ...engineOnlyThroughExports(),
    {
      group: ['@parley/control-plane/**'],
      message: `mcp may import only the package root of @parley/control-plane; it is a client of the REST API (${SECTION}).`,
    },
    {
      group: ['/postgres', '@electric-sql/*'],
      message: `The MCP server never touches Postgres: it goes through the REST API (${SECTION}).`,
    },
    ...noParleyPackages(['bench'], 'Nothing imports bench; bench imports the others'),
  ],
  bench: () => engineOnlyThroughExports(),
};

/**
 * @typedef {object} Zone
 * @property {string} base folder of the zone (a glob; braces allowed)
 * @property {keyof typeof WORKSPACE_RULES} workspace
 * @property {number} baseDepth folders between the workspace root and `base`
 * @property {string[]} subZones folders below `base` that are zones of their own
 * @property {'engine-core' | 'vendor-home' | 'workspace' | 'source'} kind
 */

const ENGINE_CORE_FOLDERS = `engine/src/{${ENGINE_CORE.join(',')}}`;

/** @type {Zone[]} */
const ZONES = [
  { base: ENGINE_CORE_FOLDERS, workspace: 'engine', baseDepth: 2, subZones: [], kind: 'engine-core' },
  ...VENDOR_HOMES.map((home) => {
    const [workspace, ...folders] = home.split('/');
    return {
      base: home,
      workspace: /** @type {keyof typeof WORKSPACE_RULES} */ (workspace),
      baseDepth: folders.length,
      subZones: [],
      kind: /** @type {const} */ ('vendor-home'),
    };
  }),
  ...SOURCE_FOLDERS_WITHOUT_FAKES.map((folder) => ({
    base: folder,
    workspace: /** @type {keyof typeof WORKSPACE_RULES} */ (folder.split('/')[0]),
    baseDepth: 1,
    subZones: VENDOR_HOMES.filter((home) => home.startsWith(`${folder}/`)),
    kind: /** @type {const} */ ('source'),
  })),
  ...WORKSPACES.map((workspace) => ({
    base: workspace,
    workspace: /** @type {keyof typeof WORKSPACE_RULES} */ (workspace),
    baseDepth: 0,
    subZones: [
      ...(workspace === 'engine' ? [ENGINE_CORE_FOLDERS] : []),
      ...SOURCE_FOLDERS_WITHOUT_FAKES.filter((folder) => folder.startsWith(`${workspace}/`)),
      ...VENDOR_HOMES.filter((home) => home.startsWith(`${workspace}/`)),
    ],
    kind: /** @type {const} */ ('workspace'),
  })),
];

/** Every rule that applies to a file `depth` folders below `zone.base`, as one pattern list. */
const patternsFor = (/** @type {Zone} */ zone, /** @type {number} */ depth) =>
  zone.kind === 'engine-core'
    ? [...engineCoreImportsNothingOfParley(depth), ...vendorSdksStayHome(), ...gplProgramsRunApart()]
    : [
        ...gplProgramsRunApart(),
        ...WORKSPACE_RULES[zone.workspace](),
        ...relativeStaysInWorkspace(zone.workspace, zone.baseDepth + depth),
        ...noDeepParleyImports(),
        ...(zone.kind === 'vendor-home' ? [] : vendorSdksStayHome()),
        ...(zone.kind === 'source' || zone.kind === 'vendor-home' ? testOnlyExportsStayInTests() : []),
      ];

/**
 * One block per zone and depth: the only blocks that set `no-restricted-imports` for files inside workspaces.
 * @type {import('eslint').Linter.Config[]}
 */
const importDirection = ZONES.flatMap((zone) =>
  Array.from(
    { length: MAX_DEPTH + 1 },
    (_, depth) =>
      /** @type {import('eslint').Linter.Config} */ ({
        name: `parley/import-direction/${zone.base}/depth-${depth}`,
        files: [
          depth < MAX_DEPTH
            ? `${zone.base}/${'*/'.repeat(depth)}*.${SOURCES}`
            : `${zone.base}/${'*/'.repeat(depth)}**/*.${SOURCES}`,
        ],
        ignores: [...zone.subZones.map((subZone) => `${subZone}/**`), ...GPL_PROGRAM_FILES],
        rules: { 'no-restricted-imports': ['error', { patterns: patternsFor(zone, depth) }] },
      }),
  ),
);

/**
 * The control plane's layers (docs/architecture.md §1): composition (app, server, config, CLI) → routes → plugins →
 * domain → infrastructure, never back. Domain folders may use each other (calls uses agents); cycles are caught by
 * import-x/no-cycle below. Tested in test/lint/control-plane-layers.test.ts.
 */
const CP = 'control-plane/src';
const CONTROL_PLANE_DOMAINS = [
  'accounts',
  'agents',
  'auth',
  'oauth',
  'billing',
  'calls',
  'campaigns',
  'carriers',
  'chat',
  'enhancement',
  'greetings',
  'integrations',
  'knowledge',
  'language-model',
  'observability',
  'payments',
  'sip',
  'telephony',
  'voices',
  'wallet',
];
/** Folders are matched whole; the composition root and infrastructure also hold single files (mode 'file'). */
const CONTROL_PLANE_LAYERS = [
  {
    type: 'cp-composition',
    pattern: `${CP}/{app,server,index,bootstrap,bootstrap-file,config,data-dir}.ts`,
    mode: 'file',
  },
  { type: 'cp-composition', pattern: `${CP}/cli/**`, mode: 'file' },
  { type: 'cp-routes', pattern: `${CP}/routes/**`, mode: 'file' },
  { type: 'cp-plugins', pattern: `${CP}/plugins/**`, mode: 'file' },
  { type: 'cp-domain', pattern: `${CP}/{${CONTROL_PLANE_DOMAINS.join(',')}}/**`, mode: 'file' },
  { type: 'cp-infrastructure', pattern: `${CP}/{background,bus,db,http,secrets}/**`, mode: 'file' },
  { type: 'cp-infrastructure', pattern: `${CP}/{errors,rate-limits,config-error}.ts`, mode: 'file' },
];
const LAYER_MESSAGE =
  'control-plane/src layers import downward only: composition → routes → plugins → domain → infrastructure ' +
  '(docs/architecture.md §1)';
/** What each layer may import (besides packages, which the import-direction rules above govern). */
const LAYER_ALLOWS = {
  'cp-composition': ['cp-composition', 'cp-routes', 'cp-plugins', 'cp-domain', 'cp-infrastructure'],
  'cp-routes': ['cp-routes', 'cp-plugins', 'cp-domain', 'cp-infrastructure'],
  'cp-plugins': ['cp-plugins', 'cp-domain', 'cp-infrastructure'],
  'cp-domain': ['cp-domain', 'cp-infrastructure'],
  'cp-infrastructure': ['cp-infrastructure'],
};

/** @type {import('eslint').Linter.Config[]} */
const controlPlaneLayers = [
  {
    name: 'parley/control-plane-layers',
    files: [`${CP}/**/*.ts`],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': CONTROL_PLANE_LAYERS,
      'boundaries/include': [`${CP}/**/*.ts`],
      'boundaries/ignore': ['**/*.test.ts'],
      // `mode` is the one way v7 classifies single files as elements; its deprecation notice would print on every run.
      'boundaries/legacy-warnings': false,
      'import/resolver': { node: { extensions: ['.ts', '.js'] } },
    },
    rules: {
      // A file in no layer would be free of the rule: a new folder gets its layer in CONTROL_PLANE_LAYERS first.
      'boundaries/no-unknown-files': 'error',
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          message: LAYER_MESSAGE,
          policies: Object.entries(LAYER_ALLOWS).map(([from, allowed]) => ({
            from: { element: { type: from } },
            disallow: {
              to: {
                element: {
                  types: { anyOf: CONTROL_PLANE_LAYERS.map((layer) => layer.type).filter((t) => !allowed.includes(t)) },
                },
              },
            },
          })),
        },
      ],
    },
  },
];

/**
 * SQL lives in repositories (docs/architecture.md §1): a domain's `repository/` folder or `*repository.ts` files, and
 * db/ itself. Services, routes and jobs call repository functions; nothing else may hold SQL.
 */
const SQL_MESSAGE = 'SQL belongs in a repository (<domain>/repository/ or *repository.ts): docs/architecture.md §1';

/** @type {import('eslint').Linter.Config[]} */
const sqlInRepositories = [
  {
    name: 'parley/sql-in-repositories',
    files: [`${CP}/**/*.ts`],
    ignores: ['**/*.test.ts', `${CP}/db/**`, `${CP}/**/repository/**`, `${CP}/**/*repository.ts`],
    rules: {
      'no-restricted-syntax': [
        'error',
        // Every tagged template here is the `postgres` client's (sql`…`, tx`…`): there are no others in this workspace.
        { selector: 'TaggedTemplateExpression', message: SQL_MESSAGE },
        { selector: "CallExpression[callee.property.name='unsafe']", message: SQL_MESSAGE },
      ],
    },
  },
];

/**
 * No import cycles in any workspace's source: a cycle means two files are one concern, or a type sits in the wrong
 * room. Tests are left out (they import freely and are never imported).
 * @type {import('eslint').Linter.Config[]}
 */
const noCycles = [
  {
    name: 'parley/no-cycles',
    files: WORKSPACES.map((workspace) => `${workspace}/src/**/*.ts`),
    ignores: ['**/*.test.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js'] })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
];

export default defineConfig(
  globalIgnores(['**/node_modules/', '**/.build/', '**/.parley/', '**/coverage/', '**/dist/']),
  {
    name: 'parley/typescript',
    files: [`**/*.${SOURCES}`],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // Two objects that refer to each other (a subscription whose callbacks remove the route that holds it) need
      // `let x; … () => use(x) …; x = …`; that is not a missed `const`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The `postgres` client spells "no custom column types" as `{}` (`Sql<{}>`); naming its types needs the same.
    name: 'parley/typescript/postgres-types',
    files: ['control-plane/src/db/**/*.ts'],
    rules: { '@typescript-eslint/no-empty-object-type': ['error', { allowObjectTypes: 'always' }] },
  },
  {
    // Files outside the workspaces (root tests, bin/) only have to keep vendor SDKs where they belong.
    name: 'parley/import-direction/root',
    files: [`**/*.${SOURCES}`],
    ignores: WORKSPACES.map((workspace) => `${workspace}/**`),
    rules: { 'no-restricted-imports': ['error', { patterns: [...vendorSdksStayHome(), ...gplProgramsRunApart()] }] },
  },
  importDirection,
  controlPlaneLayers,
  sqlInRepositories,
  noCycles,
);
