// Shared by the integration tests: where the server is, and the seed's data.
import { webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';

// Node 18 (Debian 12's nodejs) has no global `crypto`; @langchain/core reads it when a
// graph runs. Node 20 has it, and then this does nothing.
globalThis.crypto ??= webcrypto;

// The groundplane-mcp executable: CTest passes it as the first argument; by hand, set
// GROUNDPLANE_MCP (e.g. GROUNDPLANE_MCP=build/dev/tools/groundplane-mcp/groundplane-mcp).
export function serverPath() {
  const path = process.argv[2] ?? process.env.GROUNDPLANE_MCP;
  if (!path || !existsSync(path)) {
    throw new Error(
      `groundplane-mcp not found (${path ?? 'no path given'}): pass its path as the first argument or set GROUNDPLANE_MCP`,
    );
  }
  return path;
}

// What a warehouse MCP tool returned for the seed's query: the call, and its result.
// The rows are data in structuredContent; the text block is only a rendering of them.
export const warehouseCall = {
  name: 'warehouse.query',
  arguments: { table: 'campaign_daily', window: '7d' },
};
export const warehouseResult = {
  content: [{ type: 'text', text: 'north 4.12%, harbour 4.55%, delta 3.01%' }],
  structuredContent: {
    rows: [
      { campaign: 'north', ctr: 0.0412 },
      { campaign: 'harbour', ctr: 0.0455 },
      { campaign: 'delta', ctr: 0.0301 },
    ],
  },
};

// The record_ranking arguments for a tool result: the call becomes the provenance, the
// structured rows become the scores (text is never parsed as data).
export function rankingFromResult(name, call, result, { key, entity }) {
  if (result.isError) throw new Error(`${call.name} returned an error; an error result is not a fact`);
  if (!result.structuredContent) throw new Error(`${call.name} returned no structuredContent`);
  const scores = {};
  for (const row of result.structuredContent.rows) scores[row[entity]] = row[key];
  return { name, scores, key, tool: call.name, args: call.arguments };
}

export const seedCheck = { check: 'superlative', fact: 'campaign_ctr' };

// The seed's message, byte for byte.
export const seedMessage = [
  "unsupported claim in field 'winner': model said 'north', registered facts support 'harbour'",
  "| fact='campaign_ctr'",
  "| provenance=warehouse.query(table='campaign_daily', window='7d')",
  "| computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412",
].join('\n');

// groundplane-mcp --http on a free loopback port: resolves once it prints its URL.
// stop() sends SIGTERM and resolves with the exit code (a clean shutdown is 0).
export async function startHttpServer(extraArgs = []) {
  const { spawn } = await import('node:child_process');
  // Port 0: the server binds a free port and prints it (a port picked at random here can
  // be one an earlier test's connections still hold).
  const proc = spawn(serverPath(), ['--http', '127.0.0.1:0', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no URL from groundplane-mcp --http: ${seen}`)), 20_000);
    proc.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = seen.match(/serving MCP at (http:\/\/\S+)\n/); // the whole line: a chunk may end mid-URL
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`groundplane-mcp --http exited (${code}): ${seen}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve(proc.exitCode);
      proc.once('exit', (code, signal) => resolve(code ?? signal));
      proc.kill('SIGTERM');
    });
  return { url, proc, stop };
}

// The seed ranking as check's inline "facts": one call carries everything.
export const inlineSeedFacts = {
  campaign_ctr: {
    kind: 'ranking',
    scores: { north: 0.0412, harbour: 0.0455, delta: 0.0301 },
    key: 'ctr',
    tool: 'warehouse.query',
    args: { table: 'campaign_daily', window: '7d' },
  },
};
