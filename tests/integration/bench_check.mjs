// bench/run's MCP rows: `check` calls per second and p50/p99 latency over Streamable HTTP
// (16 clients, each its own MCP session) and over stdio (1 client), against
// groundplane-mcp and against a minimal server written with the official SDK
// (bench_sdk_server.mjs, the tool returning a fixed result), in the same run, with the
// same requests: a `check` carrying its facts inline, alternating a wrong and a right
// winner. Every groundplane verdict is verified; a wrong one fails the run.
//
// Over stdio two rows: throughput with 16 requests in flight on the one session
// (JSON-RPC lets a client have many ids outstanding; answers are matched by id), so the
// server is kept busy rather than waiting on the client's round trip; and one request in
// flight for latency, so p50/p99 are a call's own and not time spent queued behind 15
// others. Over HTTP the 16 clients already keep 16 requests in flight, one per
// connection, as HTTP/1.1 clients do.
//
// The calls are made by groundplane_bench_mcp_client (bench/bench_mcp_client.cpp, on
// cpp-httplib), which costs a small fraction of either server's CPU per call: on a
// 2-core machine a client in Node spent more per call than groundplane-mcp did, and the
// rows then measured the client. This script starts the servers, hands the client the
// two requests and prints the table.
//
//   node bench_check.mjs <path to a Release groundplane-mcp> <path to groundplane_bench_mcp_client>
//
// GROUNDPLANE_BENCH_MCP_CALLS: measured calls per HTTP client (default 1000); each stdio
// row makes 16 times as many through its one client. GROUNDPLANE_BENCH_MCP_ROUNDS: how
// many times each row is measured (default 5; the median round is shown). Prints one JSON
// line per measurement on stderr and the table on stdout.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { inlineSeedFacts, seedCheck } from './common.mjs';

const [groundplane, loadClient] = process.argv.slice(2);
if (!groundplane || !loadClient)
  throw new Error('usage: node bench_check.mjs <path to groundplane-mcp> <path to groundplane_bench_mcp_client>');
const sdkServer = fileURLToPath(new URL('./bench_sdk_server.mjs', import.meta.url));
const callsPerClient = Number(process.env.GROUNDPLANE_BENCH_MCP_CALLS ?? 1000);
const warmup = 50;
const httpClients = 16;
const stdioWindow = 16; // requests in flight on the stdio throughput row

const servers = {
  groundplane: { command: groundplane, args: [] },
  sdk: { command: process.execPath, args: [sdkServer] },
};

function startHttp({ command, args }) {
  // Port 0: each server binds a free port and prints it. A port picked at random here
  // can be one the previous round's client connections still hold.
  const proc = spawn(command, [...args, '--http', '127.0.0.1:0', ...(command === groundplane ? ['--max-sessions', '64', '--max-connections-per-client', '64'] : [])], {
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
        resolve({ url: m[1], pid: proc.pid, stop: () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', r), proc.kill('SIGTERM')))) });
      }
    });
    proc.on('exit', (code) => reject(new Error(`${command} exited (${code}): ${seen}`)));
  });
}

// The params of the two `check` calls, for the client to serialize once.
const scratch = mkdtempSync(join(tmpdir(), 'groundplane-bench-mcp-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const requests = join(scratch, 'requests.json');
writeFileSync(
  requests,
  JSON.stringify(
    Object.fromEntries(['north', 'harbour'].map((winner) => [winner, { name: 'check', arguments: { facts: inlineSeedFacts, checks: [seedCheck], output: { winner } } }])),
  ),
);

// One measurement by the load client: its JSON line (calls, seconds, calls_per_s, p50_ms,
// p99_ms, wrong, client_cpu_us_per_call, server_cpu_us_per_call).
async function measure(args, verify) {
  const common = ['--requests', requests, '--warmup', String(warmup), ...(verify ? ['--verify'] : [])];
  const [head, rest] = args;
  const { stdout } = await promisify(execFile)(loadClient, [...head, ...common, ...rest], { maxBuffer: 1 << 20, timeout: 600_000 });
  return JSON.parse(stdout);
}

async function overHttp(name) {
  const server = await startHttp(servers[name]);
  try {
    const row = await measure(
      [['http', server.url, '--clients', String(httpClients), '--server-pid', String(server.pid), '--calls', String(callsPerClient)], []],
      name === 'groundplane',
    );
    return { server: name, transport: 'http', clients: httpClients, in_flight: httpClients, ...row };
  } finally {
    await server.stop();
  }
}

// One stdio session: `window` requests in flight (the throughput row) or one (latency).
async function overStdio(name, window) {
  const { command, args } = servers[name];
  const row = await measure(
    [['stdio', '--window', String(window), '--calls', String(callsPerClient * httpClients)], ['--', command, ...(command === groundplane ? [] : [...args, '--stdio'])]],
    name === 'groundplane',
  );
  return { server: name, transport: window > 1 ? 'stdio-window' : 'stdio', clients: 1, in_flight: window, ...row };
}

// Each measurement is made `rounds` times, the two servers taking turns (the first to run
// alternates), and a row shows the round with the median calls/s of each server. On a
// shared 2-core machine a stall of a few hundred ms lands on whichever run is going, and
// groundplane's run of 16,000 calls is over in a quarter of the SDK server's time, so one
// stall weighs up to four times as much on its side: a single round measured the
// neighbours as much as the servers. Every round's line is printed on stderr.
const rounds = Number(process.env.GROUNDPLANE_BENCH_MCP_ROUNDS ?? 5);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('GROUNDPLANE_BENCH_MCP_ROUNDS takes a whole number of at least 1');
const runs = {};
for (const measure of [overHttp, (name) => overStdio(name, stdioWindow), (name) => overStdio(name, 1)]) {
  for (let round = 0; round < rounds; ++round) {
    for (const name of round % 2 === 0 ? ['groundplane', 'sdk'] : ['sdk', 'groundplane']) {
      const row = await measure(name);
      console.error(JSON.stringify({ round: round + 1, ...row }));
      (runs[`${name}/${row.transport}`] ??= []).push(row);
    }
  }
}
const median = (list) => [...list].sort((a, b) => a.calls_per_s - b.calls_per_s)[Math.floor((list.length - 1) / 2)];
const rows = Object.fromEntries(Object.entries(runs).map(([key, list]) => [key, median(list)]));

// One table in bench/run's layout: groundplane beside the SDK baseline, their ratio, the
// goal. Throughput is judged where the server is kept busy (HTTP x16, stdio with 16 in
// flight); latency where a call is not queued behind others (HTTP x16, stdio one at a time).
const table = [['measurement', 'groundplane', 'baseline', 'ratio', 'goal', 'met']];
const throughputRow = (g, b, label, goal, transport) => {
  const ratio = g.calls_per_s / b.calls_per_s;
  const median = rounds > 1 ? `, median of ${rounds}` : '';
  table.push([`MCP check calls/s ${label} (${g.calls} calls${median})`, g.calls_per_s.toFixed(0), `${b.calls_per_s.toFixed(0)} (SDK McpServer, fixed result)`,
    `${ratio.toFixed(2)}×`, goal ? '≥ 3×' : '', goal ? (ratio >= 3 ? 'yes' : 'NO') : '']);
  if (rounds > 1) {
    const each = runs[`groundplane/${transport}`].map((r, i) => `${(r.calls_per_s / runs[`sdk/${transport}`][i].calls_per_s).toFixed(2)}×`);
    table.push([`  each round's ratio ${label}`, '', '', each.join(' '), '', '']);
  }
};
const latencyRow = (g, b, label) =>
  table.push([`MCP check p50 / p99 ${label}`, `${g.p50_ms.toFixed(2)} / ${g.p99_ms.toFixed(2)} ms`, `${b.p50_ms.toFixed(2)} / ${b.p99_ms.toFixed(2)} ms`,
    '', 'p99 < 20 ms', g.p99_ms < 20 ? 'yes' : 'NO']);
const cpuRow = (g, b, label) =>
  table.push([`MCP check server CPU per call ${label}`, `${g.server_cpu_us_per_call.toFixed(0)} µs`, `${b.server_cpu_us_per_call.toFixed(0)} µs`,
    `${(b.server_cpu_us_per_call / g.server_cpu_us_per_call).toFixed(2)}× less`, '', '']);
const pair = (transport) => [rows[`groundplane/${transport}`], rows[`sdk/${transport}`]];

const httpLabel = `over Streamable HTTP, ${httpClients} clients`;
throughputRow(...pair('http'), httpLabel, true, 'http');
latencyRow(...pair('http'), httpLabel);
cpuRow(...pair('http'), httpLabel);
const windowLabel = `over stdio, 1 client, ${stdioWindow} in flight`;
throughputRow(...pair('stdio-window'), windowLabel, true, 'stdio-window');
cpuRow(...pair('stdio-window'), windowLabel);
const sequentialLabel = 'over stdio, 1 client, 1 in flight';
throughputRow(...pair('stdio'), sequentialLabel, false, 'stdio');
latencyRow(...pair('stdio'), sequentialLabel);
cpuRow(...pair('stdio'), sequentialLabel);
const wrong = Object.entries(runs)
  .filter(([key]) => key.startsWith('groundplane/'))
  .reduce((sum, [, list]) => sum + list.reduce((n, r) => n + r.wrong, 0), 0);
table.push(['MCP check wrong verdicts (groundplane, every round of every row)', String(wrong), '', '', '0', wrong === 0 ? 'yes' : 'NO']);
const width = (s) => [...s].length;
const w = table[0].map((_, i) => Math.max(...table.map((r) => width(r[i]))));
const line = (r) => '|' + r.map((c, i) => ` ${c}${' '.repeat(w[i] - width(c))} |`).join('');
console.log(line(table[0]));
console.log('|' + w.map((n) => '-'.repeat(n + 2) + '|').join(''));
for (const r of table.slice(1)) console.log(line(r));
process.exit(wrong > 0 ? 1 : 0);
