// The official MCP TypeScript SDK client, spawning groundplane-mcp over stdio.
//
//   node sdk_client.test.mjs <path to groundplane-mcp>
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

import { rankingFromResult, seedCheck, seedMessage, serverPath, warehouseCall, warehouseResult } from './common.mjs';

const command = serverPath();

async function connect(args = []) {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  const client = new Client({ name: 'groundplane-integration', version: '0.1.0' });
  await client.connect(transport);
  return client;
}

test('the MCP SDK client records the seed ranking and gets the seed message back', { timeout: 60_000 }, async () => {
  const client = await connect();
  try {
    assert.equal(client.getServerVersion().name, 'groundplane-mcp');
    assert.ok(client.getServerCapabilities().tools, 'the server declares the tools capability');

    // listTools also primes the SDK's validators for every outputSchema: each
    // structuredContent below is checked against its tool's schema by the client.
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['record_fact', 'record_ranking', 'record_table', 'record_domain', 'list_facts', 'check']) {
      assert.ok(names.includes(name), `tools/list has ${name}`);
    }
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} has an inputSchema`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an outputSchema`);
    }

    // A warehouse tool's result becomes a fact, with the call as its provenance.
    const recorded = await client.callTool({
      name: 'record_ranking',
      arguments: rankingFromResult('campaign_ctr', warehouseCall, warehouseResult, { key: 'ctr', entity: 'campaign' }),
    });
    assert.ok(!recorded.isError, JSON.stringify(recorded));
    assert.deepEqual(recorded.structuredContent, {
      recorded: 'campaign_ctr',
      kind: 'ranking',
      provenance: { tool: 'warehouse.query', args: { table: 'campaign_daily', window: '7d' } },
      size: 3,
    });

    const listed = await client.callTool({ name: 'list_facts', arguments: {} });
    assert.deepEqual(
      listed.structuredContent.facts.campaign_ctr.order.map((o) => o.entity),
      ['harbour', 'north', 'delta'],
    );

    // The wrong winner: a normal result, ok false, the seed's four lines.
    const wrong = await client.callTool({
      name: 'check',
      arguments: { facts: ['campaign_ctr'], checks: [seedCheck], output: { winner: 'north' } },
    });
    assert.ok(!wrong.isError, 'a rejected claim is not a tool error');
    assert.equal(wrong.structuredContent.ok, false);
    assert.equal(wrong.structuredContent.findings.length, 1);
    assert.equal(wrong.structuredContent.findings[0].message, seedMessage);
    assert.equal(wrong.content[0].type, 'text');
    assert.equal(wrong.content[0].text, wrong.structuredContent.correction);
    assert.match(wrong.content[0].text, /you said 'north'; the facts support 'harbour'/);

    // The right one.
    const right = await client.callTool({
      name: 'check',
      arguments: { facts: ['campaign_ctr'], checks: [seedCheck], output: { winner: 'harbour', score: 0.0455 } },
    });
    assert.ok(!right.isError);
    assert.equal(right.structuredContent.ok, true);
    assert.deepEqual(right.structuredContent.findings, []);
    assert.equal(right.content[0].text, 'accepted');

    // A misconfigured check (a ranking check over a scalar fact) is a tool error.
    await client.callTool({ name: 'record_fact', arguments: { name: 'row_count', value: 3, tool: 'warehouse.count' } });
    const misconfigured = await client.callTool({
      name: 'check',
      arguments: {
        facts: ['row_count'],
        checks: [{ check: 'superlative', fact: 'row_count' }],
        output: { winner: 'north' },
      },
    });
    assert.equal(misconfigured.isError, true);
    assert.equal(misconfigured.content[0].text, "superlative: fact 'row_count' is a single value (a Fact); this check needs a Ranking (from record_ranking), or a Table (from record_table) with .column set to the column to rank it by");

    // A tool the server does not have is a protocol error, not a result.
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => {
      assert.ok(e instanceof McpError);
      assert.equal(e.code, -32602);
      return true;
    });

    // And a ping still answers after all of it.
    assert.deepEqual(await client.ping(), {});
  } finally {
    await client.close();
  }
});

test('with --session the demo app is served and a gated order is refused as a normal result', { timeout: 60_000 }, async () => {
  const client = await connect(['--session']);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'whats_here') && tools.some((t) => t.name === 'do_action'));

    const here = await client.callTool({ name: 'whats_here', arguments: {} });
    assert.ok(!here.isError);
    assert.equal(Object.keys(here.structuredContent)[0], 'facts');
    assert.deepEqual(
      here.structuredContent.actions.map((a) => a.id),
      ['cart.add', 'checkout.place-order', 'delivery.choose-slot'],
    );
    // A choice that is the shopper's, over the slots on offer: marked, and said in the facts.
    const slot = here.structuredContent.actions[2];
    assert.equal(slot.human_decides, true);
    assert.deepEqual(slot.instances, ['tue-09', 'wed-14']);
    assert.equal(slot.instances_total, 2);
    assert.match(here.structuredContent.facts, /A decision is with the human: delivery\.choose-slot/);
    const noSuchSlot = await client.callTool({ name: 'do_action', arguments: { action: 'delivery.choose-slot', instance: 'thu-10' } });
    assert.ok(!noSuchSlot.isError);
    assert.equal(noSuchSlot.structuredContent.reason, 'INSTANCE_UNKNOWN');
    assert.equal(noSuchSlot.structuredContent.verdict, 'never-existed');
    const since = await client.callTool({ name: 'whats_here', arguments: { since_version: here.structuredContent.version } });
    assert.ok(!since.isError);
    const badCursor = await client.callTool({ name: 'whats_here', arguments: { since_version: -1 } });
    assert.equal(badCursor.isError, true);

    assert.equal(here.structuredContent.actions[0].expects.required[0], 'sku');
    assert.ok(tools.some((t) => t.name === 'did_it_work'));

    // Typed input: a wrong type is refused before anything runs, naming the key, never the value.
    const wrong = await client.callTool({ name: 'do_action', arguments: { action: 'cart.add', input: { sku: 'TEA-01', qty: 'two' } } });
    assert.ok(!wrong.isError);
    assert.equal(wrong.structuredContent.reason, 'PAYLOAD_INVALID');
    assert.deepEqual(wrong.structuredContent.issues, ["'qty' should be integer, not string"]);

    // Data back, and "did it work?" for the same fire.
    const added = await client.callTool({ name: 'do_action', arguments: { action: 'cart.add', input: { sku: 'TEA-01', qty: 2 } } });
    assert.equal(added.structuredContent.ok, true);
    assert.deepEqual(added.structuredContent.data, { lines: 1 });
    const asked = await client.callTool({ name: 'did_it_work', arguments: { transition_id: added.structuredContent.transition_id } });
    assert.ok(!asked.isError);
    assert.equal(asked.structuredContent.did, 'yes');
    assert.equal(Object.keys(asked.structuredContent)[0], 'facts');
    // A retried request is answered once: the same request_key runs nothing again and
    // answers with the fire the first call made; another request under it is refused.
    const jam = { action: 'cart.add', input: { sku: 'JAM-02' }, request_key: 'add-jam-1' };
    const jamFirst = await client.callTool({ name: 'do_action', arguments: jam });
    assert.equal(jamFirst.structuredContent.ok, true);
    const jamRetry = await client.callTool({ name: 'do_action', arguments: jam });
    assert.ok(!jamRetry.isError);
    assert.equal(jamRetry.structuredContent.replayed, true);
    assert.equal(jamRetry.structuredContent.transition_id, jamFirst.structuredContent.transition_id);
    assert.equal(jamRetry.structuredContent.did, 'yes');
    assert.equal(Object.keys(jamRetry.structuredContent)[0], 'facts');
    assert.equal((jamRetry.structuredContent.facts.match(/agent fired cart\.add/g) || []).length, 2);
    const jamOther = await client.callTool({
      name: 'do_action', arguments: { ...jam, input: { sku: 'JAM-03' } },
    });
    assert.equal(jamOther.structuredContent.reason, 'REQUEST_KEY_REUSED');
    const tooLong = await client.callTool({ name: 'do_action', arguments: { ...jam, request_key: 'k'.repeat(1280) } });
    assert.equal(tooLong.structuredContent.reason, 'INVALID_ARGUMENTS');

    const order = await client.callTool({ name: 'do_action', arguments: { action: 'checkout.place-order' } });
    assert.ok(!order.isError, 'a refusal is the app speaking, not a tool error');
    assert.equal(order.structuredContent.ok, false);
    assert.equal(order.structuredContent.reason, 'APPROVAL_REQUIRED');
    assert.ok(order.structuredContent.ask_id);
    assert.match(
      order.structuredContent.facts,
      /did NOT happen — agent's fire of checkout\.place-order was refused: APPROVAL_REQUIRED/,
    );
    assert.match(order.structuredContent.facts, /DID happen — agent fired cart\.add/);
  } finally {
    await client.close();
  }
});
