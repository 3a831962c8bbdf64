// The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli 1.0.3: the newest Inspector
// CLI whose package runs on Node 20; the 2.x Inspector needs Node 22) starts a fresh
// groundplane-mcp over stdio for its one call, so the call must carry its facts inline.
//
//   node inspector_cli.test.mjs <path to groundplane-mcp>
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import { inlineSeedFacts, seedCheck, seedMessage, serverPath } from './common.mjs';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const cliDir = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build');

// The CLI looks for its own package.json relative to the working directory: run it from
// its build directory.
async function inspect(...args) {
  const { stdout } = await run(process.execPath, [join(cliDir, 'index.js'), serverPath(), ...args], {
    cwd: cliDir,
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

const checkArgs = (winner) => [
  '--method', 'tools/call', '--tool-name', 'check',
  '--tool-arg', `facts=${JSON.stringify(inlineSeedFacts)}`,
  `checks=${JSON.stringify([seedCheck])}`,
  `output=${JSON.stringify({ winner })}`,
];

test('the Inspector CLI runs a one-shot check with inline facts and gets the seed message', { timeout: 90_000 }, async () => {
  const wrong = await inspect(...checkArgs('north'));
  assert.equal(wrong.isError, false);
  assert.equal(wrong.structuredContent.ok, false);
  assert.equal(wrong.structuredContent.findings[0].message, seedMessage);
  const right = await inspect(...checkArgs('harbour'));
  assert.equal(right.structuredContent.ok, true);
  assert.equal(right.content[0].text, 'accepted');
});

test('the Inspector CLI lists every tool with a title and annotations', { timeout: 90_000 }, async () => {
  const { tools } = await inspect('--method', 'tools/list');
  assert.ok(tools.length >= 6);
  for (const tool of tools) assert.equal(typeof tool.annotations.readOnlyHint, 'boolean', tool.name);
});
