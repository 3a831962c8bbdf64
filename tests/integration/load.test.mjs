// Load: 16 concurrent SDK clients over Streamable HTTP, each its own session, each making
// CALLS check calls that alternate a wrong and a right winner. Every verdict must be the
// right one; prints p50/p99 latency and the server's resident memory before and after.
//
//   node load.test.mjs <path to groundplane-mcp> [calls per client, default 500]
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { rankingFromResult, seedCheck, startHttpServer, warehouseCall, warehouseResult } from './common.mjs';

const clients = 16;
const calls = Number(process.argv[3] ?? 500);

const rssKiB = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

test(`${clients} SDK clients x ${calls} check calls over HTTP: zero wrong verdicts`, { timeout: 600_000 }, async () => {
  // Sixteen clients from one address, and fetch pools more than one connection each: the
  // per-address connection limit (16 by default) is raised as for a host with many clients.
  const server = await startHttpServer(['--max-sessions', '64', '--max-connections-per-client', '64']);
  try {
    const before = rssKiB(server.proc.pid);
    const latencies = [];
    let wrong = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const transport = new StreamableHTTPClientTransport(new URL(server.url));
        const client = new Client({ name: `load-${c}`, version: '1' });
        await client.connect(transport);
        await client.callTool({
          name: 'record_ranking',
          arguments: rankingFromResult('campaign_ctr', warehouseCall, warehouseResult, { key: 'ctr', entity: 'campaign' }),
        });
        for (let i = 0; i < calls; i++) {
          const winner = (i + c) % 2 === 0 ? 'north' : 'harbour';
          const start = performance.now();
          const r = await client.callTool({
            name: 'check',
            arguments: { facts: ['campaign_ctr'], checks: [seedCheck], output: { winner } },
          });
          latencies.push(performance.now() - start);
          if (r.isError || r.structuredContent.ok !== (winner === 'harbour')) wrong++;
        }
        await transport.terminateSession();
        await client.close();
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const after = rssKiB(server.proc.pid);
    latencies.sort((a, b) => a - b);
    console.log(
      `load: ${clients} clients x ${calls} check calls over HTTP: ${latencies.length} calls in ${seconds.toFixed(2)} s ` +
        `(${(latencies.length / seconds).toFixed(0)}/s), p50 ${percentile(latencies, 50).toFixed(2)} ms, ` +
        `p99 ${percentile(latencies, 99).toFixed(2)} ms, wrong verdicts ${wrong}, ` +
        `server RSS ${(before / 1024).toFixed(1)} MiB before, ${(after / 1024).toFixed(1)} MiB after`,
    );
    assert.equal(latencies.length, clients * calls);
    assert.equal(wrong, 0);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});
