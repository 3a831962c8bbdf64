// bench/run's MCP rows: `check` calls per second and p50/p99 latency over Streamable HTTP
// (16 clients, each its own MCP session) and over stdio (1 client), against
// groundplane-mcp and against a minimal server written with the official SDK
// (bench_sdk_server.mjs, the tool returning a fixed result), in the same run, with the
// same requests: a `check` carrying its facts inline, alternating a wrong and a right
// winner. Every groundplane verdict is verified; a wrong one fails the run.
//
//   node bench_check.mjs <path to a Release groundplane-mcp>
//
// GROUNDPLANE_BENCH_MCP_CALLS: measured calls per HTTP client (default 300; stdio makes
// 16 times as many through its one client). Prints one JSON line per measurement on
// stderr and the table on stdout.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { inlineSeedFacts, seedCheck } from './common.mjs';

const groundplane = process.argv[2];
if (!groundplane) throw new Error('usage: node bench_check.mjs <path to groundplane-mcp>');
const sdkServer = fileURLToPath(new URL('./bench_sdk_server.mjs', import.meta.url));
const callsPerClient = Number(process.env.GROUNDPLANE_BENCH_MCP_CALLS ?? 300);
const warmup = 50;
const httpClients = 16;

const servers = {
  groundplane: { command: groundplane, args: [] },
  sdk: { command: process.execPath, args: [sdkServer] },
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function startHttp({ command, args }) {
  const port = 20000 + Math.floor(Math.random() * 40000);
  const proc = spawn(command, [...args, '--http', `127.0.0.1:${port}`, ...(command === groundplane ? ['--max-sessions', '64'] : [])], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no URL from ${command}: ${seen}`)), 20_000);
    proc.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = seen.match(/serving MCP at (http:\/\/\S+)\n/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], stop: () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', r), proc.kill('SIGTERM')))) });
      }
    });
    proc.on('exit', (code) => reject(new Error(`${command} exited (${code}): ${seen}`)));
  });
}

// `calls` checks through one connected client; latencies (ms) appended to `into`.
async function drive(client, calls, into, verify, offset) {
  let wrong = 0;
  for (let i = 0; i < calls; i++) {
    const winner = (i + offset) % 2 === 0 ? 'north' : 'harbour';
    const start = performance.now();
    const r = await client.callTool({
      name: 'check',
      arguments: { facts: inlineSeedFacts, checks: [seedCheck], output: { winner } },
    });
    if (into) into.push(performance.now() - start);
    if (r.isError || (verify && r.structuredContent.ok !== (winner === 'harbour'))) wrong++;
  }
  return wrong;
}

function summary(name, transport, clients, latencies, seconds, wrong) {
  latencies.sort((a, b) => a - b);
  return {
    server: name,
    transport,
    clients,
    calls: latencies.length,
    calls_per_s: latencies.length / seconds,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    wrong,
  };
}

async function overHttp(name) {
  const server = await startHttp(servers[name]);
  try {
    const clients = await Promise.all(
      Array.from({ length: httpClients }, async (_, c) => {
        const transport = new StreamableHTTPClientTransport(new URL(server.url));
        const client = new Client({ name: `bench-${c}`, version: '1' });
        await client.connect(transport);
        await drive(client, warmup, null, false, c);
        return { client, transport };
      }),
    );
    const latencies = [];
    const t0 = performance.now();
    const wrong = await Promise.all(clients.map(({ client }, c) => drive(client, callsPerClient, latencies, name === 'groundplane', c)));
    const seconds = (performance.now() - t0) / 1000;
    for (const { client, transport } of clients) {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
    return summary(name, 'http', httpClients, latencies, seconds, wrong.reduce((a, b) => a + b, 0));
  } finally {
    await server.stop();
  }
}

async function overStdio(name) {
  const { command, args } = servers[name];
  const transport = new StdioClientTransport({ command, args: command === groundplane ? [] : [...args, '--stdio'], stderr: 'ignore' });
  const client = new Client({ name: 'bench-stdio', version: '1' });
  await client.connect(transport);
  try {
    await drive(client, warmup, null, false, 0);
    const latencies = [];
    const t0 = performance.now();
    const wrong = await drive(client, callsPerClient * httpClients, latencies, name === 'groundplane', 0);
    return summary(name, 'stdio', 1, latencies, (performance.now() - t0) / 1000, wrong);
  } finally {
    await client.close();
  }
}

const rows = {};
for (const measure of [overHttp, overStdio]) {
  for (const name of ['groundplane', 'sdk']) {
    const row = await measure(name);
    console.error(JSON.stringify(row));
    rows[`${name}/${row.transport}`] = row;
  }
}

// One table in bench/run's layout: groundplane beside the SDK baseline, their ratio, the goal.
const table = [['measurement', 'groundplane', 'baseline', 'ratio', 'goal', 'met']];
for (const [transport, label] of [['http', `over Streamable HTTP, ${httpClients} clients`], ['stdio', 'over stdio, 1 client']]) {
  const g = rows[`groundplane/${transport}`];
  const b = rows[`sdk/${transport}`];
  const ratio = g.calls_per_s / b.calls_per_s;
  table.push([`MCP check calls/s ${label} (${g.calls} calls)`, g.calls_per_s.toFixed(0), `${b.calls_per_s.toFixed(0)} (SDK McpServer, fixed result)`,
    `${ratio.toFixed(2)}×`, '≥ 3×', ratio >= 3 ? 'yes' : 'NO']);
  table.push([`MCP check p50 / p99 ${label}`, `${g.p50_ms.toFixed(2)} / ${g.p99_ms.toFixed(2)} ms`, `${b.p50_ms.toFixed(2)} / ${b.p99_ms.toFixed(2)} ms`,
    '', 'p99 < 20 ms', g.p99_ms < 20 ? 'yes' : 'NO']);
}
const wrong = rows['groundplane/http'].wrong + rows['groundplane/stdio'].wrong;
table.push(['MCP check wrong verdicts (groundplane, both transports)', String(wrong), '', '', '0', wrong === 0 ? 'yes' : 'NO']);
const width = (s) => [...s].length;
const w = table[0].map((_, i) => Math.max(...table.map((r) => width(r[i]))));
const line = (r) => '|' + r.map((c, i) => ` ${c}${' '.repeat(w[i] - width(c))} |`).join('');
console.log(line(table[0]));
console.log('|' + w.map((n) => '-'.repeat(n + 2) + '|').join(''));
for (const r of table.slice(1)) console.log(line(r));
process.exit(wrong > 0 ? 1 : 0);
