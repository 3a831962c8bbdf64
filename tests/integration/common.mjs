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
