/**
 * What a user of the OpenAPI document runs on it, for the tests: openapi-typescript with a program type-checked
 * against its output (TypeScript's compiler API, files kept in memory), and `redocly lint`. Both work offline.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';

/** Where the in-memory files pretend to sit: module resolution then finds openapi-fetch in this package. */
const VIRTUAL_DIR = join(dirname(fileURLToPath(import.meta.url)), '.generated');
/** The generated types, as a program imports them. */
export const GENERATED_TYPES_MODULE = './parley-api.js';
// A declaration file, so skipLibCheck spares checking all of it: only what the program uses is checked.
const TYPES_FILE = join(VIRTUAL_DIR, 'parley-api.d.ts');
const PROGRAM_FILE = join(VIRTUAL_DIR, 'program.ts');

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  // The DOM library types fetch, Request and Response, which openapi-fetch's types use.
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  allowImportingTsExtensions: true,
};

/** Library files parsed once and shared by every check: parsing lib.dom.d.ts is most of a check's time. */
const parsedLibraries = new Map<string, ts.SourceFile | undefined>();

/** The TypeScript types openapi-typescript generates from a document (`paths`, `components`, `operations`). */
export async function generateTypes(document: object): Promise<string> {
  return astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}

/** The type errors of a program that imports the generated types from GENERATED_TYPES_MODULE; [] when it compiles. */
export function typeErrors(types: string, program: string): string[] {
  const files = new Map([
    [TYPES_FILE, types],
    [PROGRAM_FILE, program],
  ]);
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const { readFile, fileExists, getSourceFile } = host;
  const directoryExists = host.directoryExists;
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.directoryExists = (name) => name === VIRTUAL_DIR || (directoryExists?.call(host, name) ?? true);
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, language);
    if (!parsedLibraries.has(name)) parsedLibraries.set(name, getSourceFile.call(host, name, language, ...rest));
    return parsedLibraries.get(name);
  };
  const compiled = ts.createProgram([PROGRAM_FILE], COMPILER_OPTIONS, host);
  return ts.getPreEmitDiagnostics(compiled).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  /** JSON pointer into the document. */
  pointer: string;
}

/** Longest a lint may take: it answers in about a second, several on a loaded machine. */
const LINT_TIMEOUT_MS = 30_000;
/** Room for the JSON report: a few hundred problems of a large document, far below this. */
const LINT_OUTPUT_LIMIT_BYTES = 16 * 1024 * 1024;
const runFile = promisify(execFile);

/**
 * `redocly lint` (its recommended rules) on a document. Telemetry and the update check (both network calls) are
 * switched off, so it runs offline.
 */
export async function redoclyLint(document: object): Promise<LintProblem[]> {
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
  const dir = await mkdtemp(join(tmpdir(), 'parley-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const { stdout } = await runFile(process.execPath, [cli, 'lint', file, '--format=json'], {
      timeout: LINT_TIMEOUT_MS,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: LINT_OUTPUT_LIMIT_BYTES,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as {
      problems: {
        ruleId: string;
        severity: LintProblem['severity'];
        message: string;
        location: { pointer: string }[];
      }[];
    };
    return report.problems.map((p) => ({
      ruleId: p.ruleId,
      severity: p.severity,
      message: p.message,
      pointer: p.location[0]?.pointer ?? '',
    }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
