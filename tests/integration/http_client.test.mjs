// The official MCP TypeScript SDK client over Streamable HTTP against groundplane-mcp --http.
//
//   node http_client.test.mjs <path to groundplane-mcp>
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {
  inlineSeedFacts,
  rankingFromResult,
  seedCheck,
  seedMessage,
  startHttpServer,
  warehouseCall,
  warehouseResult,
} from './common.mjs';

async function connect(url, headers = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'groundplane-http-integration', version: '0.2.0' });
  try {
    await client.connect(transport);
  } catch (e) {
    if (e.cause) e.message += ` (${e.cause.code ?? ''} ${e.cause.message ?? e.cause})`;
    throw e;
  }
  return { client, transport };
}

const seedRanking = () =>
  rankingFromResult('campaign_ctr', warehouseCall, warehouseResult, { key: 'ctr', entity: 'campaign' });

test('the SDK over Streamable HTTP: initialize at 2025-11-25, list, record, check, and a clean SIGTERM', { timeout: 60_000 }, async () => {
  const server = await startHttpServer();
  try {
    const { client, transport } = await connect(server.url);
    assert.equal(client.getServerVersion().name, 'groundplane-mcp');
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.match(transport.sessionId, /^[0-9a-f]{32}$/);

    const { tools } = await client.listTools();
    for (const tool of tools) {
      assert.ok(tool.title, `${tool.name} has a title`);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'])
        assert.equal(typeof tool.annotations?.[hint], 'boolean', `${tool.name} has ${hint}`);
    }
    assert.equal(tools.find((t) => t.name === 'check').annotations.readOnlyHint, true);
    assert.equal(tools.find((t) => t.name === 'record_ranking').annotations.readOnlyHint, false);

    const recorded = await client.callTool({ name: 'record_ranking', arguments: seedRanking() });
    assert.ok(!recorded.isError, JSON.stringify(recorded));
    const wrong = await client.callTool({
      name: 'check',
      arguments: { facts: ['campaign_ctr'], checks: [seedCheck], output: { winner: 'north' } },
    });
    assert.equal(wrong.isError, false);
    assert.equal(wrong.structuredContent.ok, false);
    assert.equal(wrong.structuredContent.findings[0].message, seedMessage);
    const right = await client.callTool({
      name: 'check',
      arguments: { facts: ['campaign_ctr'], checks: [seedCheck], output: { winner: 'harbour' } },
    });
    assert.equal(right.structuredContent.ok, true);

    await transport.terminateSession(); // DELETE /mcp
    await client.close();
  } finally {
    assert.equal(await server.stop(), 0, 'SIGTERM: exit code 0');
  }
});

test('two SDK clients are two sessions: facts recorded by one are not the other\'s', { timeout: 60_000 }, async () => {
  const server = await startHttpServer();
  try {
    const a = await connect(server.url);
    const b = await connect(server.url);
    assert.notEqual(a.transport.sessionId, b.transport.sessionId);
    await a.client.callTool({ name: 'record_ranking', arguments: seedRanking() });
    const inA = await a.client.callTool({ name: 'list_facts', arguments: {} });
    const inB = await b.client.callTool({ name: 'list_facts', arguments: {} });
    assert.ok(inA.structuredContent.facts.campaign_ctr);
    assert.deepEqual(inB.structuredContent.facts, {});
    const missing = await b.client.callTool({
      name: 'check',
      arguments: { facts: ['campaign_ctr'], checks: [seedCheck], output: { winner: 'harbour' } },
    });
    assert.equal(missing.isError, true, 'the other session never recorded campaign_ctr');
    await a.client.close();
    await b.client.close();
  } finally {
    await server.stop();
  }
});

test('inline facts: one call carries everything and leaves nothing behind', { timeout: 60_000 }, async () => {
  const server = await startHttpServer();
  try {
    const { client } = await connect(server.url);
    const wrong = await client.callTool({
      name: 'check',
      arguments: { facts: inlineSeedFacts, checks: [seedCheck], output: { winner: 'north' } },
    });
    assert.equal(wrong.structuredContent.ok, false);
    assert.equal(wrong.structuredContent.findings[0].message, seedMessage);
    const listed = await client.callTool({ name: 'list_facts', arguments: {} });
    assert.deepEqual(listed.structuredContent.facts, {});
    await client.close();
  } finally {
    await server.stop();
  }
});

test('a wrong or missing bearer token is refused 401 and the right one is served', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gp-token-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'correct-horse-battery \t\r\n'); // an editor's trailing blanks are not the token's
  const inner = join(dir, 'spaced');
  writeFileSync(inner, 'correct horse\n'); // no header could carry it: refused at start, not 401 forever
  await assert.rejects(startHttpServer(['--token-file', inner]), /exited \(2\).*a bearer token cannot hold/s);
  const server = await startHttpServer(['--token-file', tokenFile]);
  try {
    await assert.rejects(connect(server.url), /401|Unauthorized/);
    await assert.rejects(connect(server.url, { Authorization: 'Bearer wrong' }), /401|Unauthorized/);
    const { client } = await connect(server.url, { Authorization: 'Bearer correct-horse-battery' });
    assert.deepEqual(await client.ping(), {});
    await client.close();
  } finally {
    await server.stop();
  }
});

test('a foreign Origin is refused 403 (DNS rebinding) and the server keeps serving', { timeout: 60_000 }, async () => {
  const server = await startHttpServer();
  try {
    await assert.rejects(connect(server.url, { Origin: 'http://attacker.example' }), /403|Forbidden/);
    const raw = await fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Origin: 'http://127.0.0.1.attacker.example' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(raw.status, 403);
    const { client } = await connect(server.url, { Origin: new URL(server.url).origin });
    assert.deepEqual(await client.ping(), {});
    await client.close();
  } finally {
    await server.stop();
  }
});
