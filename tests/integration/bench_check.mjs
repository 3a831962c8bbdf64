// bench/run's MCP rows: `check` calls per second and p50/p99 latency over Streamable HTTP
// (16 clients, each its own MCP session) and over stdio (1 client), against
// groundplane-mcp and against a minimal server written with the official SDK
// (bench_sdk_server.mjs, the tool returning a fixed result), in the same run, with the
// same requests: a `check` carrying its facts inline, alternating a wrong and a right
// winner. Every groundplane verdict is verified; a wrong one fails the run.
//
// Over stdio two rows: throughput with 16 requests in flight on the one session
// (JSON-RPC lets a client have many ids outstanding; answers are matched by id, in
// whatever order they come), so the server is kept busy rather than waiting on the
// client's round trip; and one request in flight for latency, so p50/p99 are a call's
// own and not time spent queued behind 15 others. Over HTTP the 16 clients already keep
// 16 requests in flight, one per connection, as HTTP/1.1 clients do.
//
// The clients speak the wire protocol themselves (node:http with kept-alive connections;
// newline-delimited JSON on the child's pipes) rather than through the SDK's Client,
// whose own per-call work (schema validation of every result, a promise chain per
// message) would otherwise be most of what is measured, for both servers alike, on a
// 2-core machine where client and server share the cores. Each client still initializes
// its own MCP session as the SDK's Client does.
//
//   node bench_check.mjs <path to a Release groundplane-mcp>
//
// GROUNDPLANE_BENCH_MCP_CALLS: measured calls per HTTP client (default 300); each stdio
// row makes 16 times as many through its one client. Prints one JSON line per
// measurement on stderr and the table on stdout.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';

import { inlineSeedFacts, seedCheck } from './common.mjs';

const groundplane = process.argv[2];
if (!groundplane) throw new Error('usage: node bench_check.mjs <path to groundplane-mcp>');
const sdkServer = fileURLToPath(new URL('./bench_sdk_server.mjs', import.meta.url));
const callsPerClient = Number(process.env.GROUNDPLANE_BENCH_MCP_CALLS ?? 300);
const warmup = 50;
const httpClients = 16;
const stdioWindow = 16; // requests in flight on the stdio throughput row

const servers = {
  groundplane: { command: groundplane, args: [] },
  sdk: { command: process.execPath, args: [sdkServer] },
};

// CPU seconds (user + system) a process has used: what serving cost, whatever the client
// and the rest of the machine did meanwhile.
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
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
        resolve({ url: m[1], pid: proc.pid, stop: () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', r), proc.kill('SIGTERM')))) });
      }
    });
    proc.on('exit', (code) => reject(new Error(`${command} exited (${code}): ${seen}`)));
  });
}

// The params of the two `check` calls, serialized once: the clients' per-call work is
// kept small and the same for both servers (a message is these bytes and its id).
const checkParams = Object.fromEntries(
  ['north', 'harbour'].map((winner) => [
    winner,
    JSON.stringify({ name: 'check', arguments: { facts: inlineSeedFacts, checks: [seedCheck], output: { winner } } }),
  ]),
);
// A JSON-RPC request's text; `params` is an object or JSON text already serialized.
const requestText = (id, method, params) =>
  `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${typeof params === 'string' ? params : JSON.stringify(params)}}`;
const initializeParams = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };

// One MCP session over Streamable HTTP: send(method, params) resolves with the JSON-RPC
// response (null for a notification).
async function httpSession(url, agent) {
  const target = new URL(url);
  let session = null;
  let id = 0;
  const post = (body) =>
    new Promise((resolve, reject) => {
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
      };
      if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
      const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          session ??= res.headers['mcp-session-id'] ?? null;
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 202) return resolve(null);
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text}`));
          resolve(JSON.parse(text));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const send = (method, params) => post(requestText(++id, method, params));
  await send('initialize', initializeParams);
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const close = () =>
    new Promise((resolve) => {
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'DELETE', agent, headers: { 'mcp-session-id': session } },
        (res) => res.resume().on('end', resolve),
      );
      req.on('error', resolve);
      req.end();
    });
  return { send, close };
}

// One MCP session over a child's stdio. Any number of requests may be outstanding: each
// answer is matched to its request by id (a server may answer out of order).
async function stdioSession(command, args) {
  const proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map();
  const failed = (error) => {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  // Lines split by hand (readline costs the client more per line than either server's
  // reading does); requests sent in one turn of the event loop go out in one write.
  let partial = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) if (line) answered(line);
  });
  const answered = (line) => {
    const message = JSON.parse(line);
    const waiter = pending.get(message.id);
    if (!waiter) return failed(new Error(`an answer to no outstanding request: ${line.slice(0, 200)}`));
    pending.delete(message.id);
    waiter.resolve(message);
  };
  proc.on('exit', (code) => failed(new Error(`${command} exited (${code}) with ${pending.size} requests unanswered`)));
  let id = 0;
  const send = (method, params) =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      pending.set(mine, { resolve, reject });
      if (!proc.stdin.writableCorked) {
        proc.stdin.cork();
        process.nextTick(() => proc.stdin.uncork());
      }
      proc.stdin.write(requestText(mine, method, params) + '\n');
    });
  await send('initialize', initializeParams);
  proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const close = () =>
    new Promise((resolve) => {
      proc.removeAllListeners('exit');
      proc.once('exit', resolve);
      proc.stdin.end();
    });
  return { send, close, pid: proc.pid };
}

// Whether one `check` answer is right: a result, no tool error and, where verified, ok
// exactly when the winner named is the seed's (harbour).
const wrongAnswer = (r, winner, verify) => {
  const result = r.result;
  return !result || result.isError || (verify && result.structuredContent.ok !== (winner === 'harbour'));
};
const winnerOf = (i) => (i % 2 === 0 ? 'north' : 'harbour');

// `calls` checks through one session, `window` of them in flight at a time (each new one
// sent as soon as one is answered); latencies (ms, send to answer) appended to `into`.
// Resolves with the number of wrong answers.
async function drive(session, calls, into, verify, offset, window = 1) {
  let wrong = 0;
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      const winner = winnerOf(next++ + offset);
      const start = performance.now();
      const r = await session.send('tools/call', checkParams[winner]);
      if (into) into.push(performance.now() - start);
      if (wrongAnswer(r, winner, verify)) wrong++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, calls) }, lane));
  return wrong;
}

function summary(name, transport, clients, inFlight, latencies, seconds, wrong, cpu) {
  latencies.sort((a, b) => a - b);
  return {
    server_cpu_us_per_call: (cpu * 1e6) / latencies.length,
    server: name,
    transport,
    clients,
    in_flight: inFlight,
    calls: latencies.length,
    calls_per_s: latencies.length / seconds,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    wrong,
  };
}

async function overHttp(name) {
  const server = await startHttp(servers[name]);
  const agent = new Agent({ keepAlive: true, maxSockets: httpClients });
  try {
    const sessions = await Promise.all(
      Array.from({ length: httpClients }, async (_, c) => {
        const session = await httpSession(server.url, agent);
        await drive(session, warmup, null, false, c);
        return session;
      }),
    );
    const latencies = [];
    const cpu0 = cpuSeconds(server.pid);
    const client0 = process.cpuUsage();
    const t0 = performance.now();
    const wrong = await Promise.all(sessions.map((session, c) => drive(session, callsPerClient, latencies, name === 'groundplane', c)));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.pid) - cpu0;
    const client = process.cpuUsage(client0);
    for (const session of sessions) await session.close();
    return {
      ...summary(name, 'http', httpClients, httpClients, latencies, seconds, wrong.reduce((a, b) => a + b, 0), cpu),
      client_cpu_us_per_call: (client.user + client.system) / latencies.length,
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

// One stdio session: `window` requests in flight (the throughput row) or one (latency).
async function overStdio(name, window) {
  const { command, args } = servers[name];
  const session = await stdioSession(command, command === groundplane ? [] : [...args, '--stdio']);
  try {
    await drive(session, warmup, null, false, 0, window);
    const latencies = [];
    const cpu0 = cpuSeconds(session.pid);
    const client0 = process.cpuUsage();
    const t0 = performance.now();
    const wrong = await drive(session, callsPerClient * httpClients, latencies, name === 'groundplane', 0, window);
    const seconds = (performance.now() - t0) / 1000;
    const client = process.cpuUsage(client0);
    return {
      ...summary(name, window > 1 ? 'stdio-window' : 'stdio', 1, window, latencies, seconds, wrong, cpuSeconds(session.pid) - cpu0),
      client_cpu_us_per_call: (client.user + client.system) / latencies.length,
    };
  } finally {
    await session.close();
  }
}

const rows = {};
for (const measure of [overHttp, (name) => overStdio(name, stdioWindow), (name) => overStdio(name, 1)]) {
  for (const name of ['groundplane', 'sdk']) {
    const row = await measure(name);
    console.error(JSON.stringify(row));
    rows[`${name}/${row.transport}`] = row;
  }
}

// One table in bench/run's layout: groundplane beside the SDK baseline, their ratio, the
// goal. Throughput is judged where the server is kept busy (HTTP x16, stdio with 16 in
// flight); latency where a call is not queued behind others (HTTP x16, stdio one at a time).
const table = [['measurement', 'groundplane', 'baseline', 'ratio', 'goal', 'met']];
const throughputRow = (g, b, label, goal) => {
  const ratio = g.calls_per_s / b.calls_per_s;
  table.push([`MCP check calls/s ${label} (${g.calls} calls)`, g.calls_per_s.toFixed(0), `${b.calls_per_s.toFixed(0)} (SDK McpServer, fixed result)`,
    `${ratio.toFixed(2)}×`, goal ? '≥ 3×' : '', goal ? (ratio >= 3 ? 'yes' : 'NO') : '']);
};
const latencyRow = (g, b, label) =>
  table.push([`MCP check p50 / p99 ${label}`, `${g.p50_ms.toFixed(2)} / ${g.p99_ms.toFixed(2)} ms`, `${b.p50_ms.toFixed(2)} / ${b.p99_ms.toFixed(2)} ms`,
    '', 'p99 < 20 ms', g.p99_ms < 20 ? 'yes' : 'NO']);
const cpuRow = (g, b, label) =>
  table.push([`MCP check server CPU per call ${label}`, `${g.server_cpu_us_per_call.toFixed(0)} µs`, `${b.server_cpu_us_per_call.toFixed(0)} µs`,
    `${(b.server_cpu_us_per_call / g.server_cpu_us_per_call).toFixed(2)}× less`, '', '']);
const pair = (transport) => [rows[`groundplane/${transport}`], rows[`sdk/${transport}`]];

const httpLabel = `over Streamable HTTP, ${httpClients} clients`;
throughputRow(...pair('http'), httpLabel, true);
latencyRow(...pair('http'), httpLabel);
cpuRow(...pair('http'), httpLabel);
const windowLabel = `over stdio, 1 client, ${stdioWindow} in flight`;
throughputRow(...pair('stdio-window'), windowLabel, true);
cpuRow(...pair('stdio-window'), windowLabel);
const sequentialLabel = 'over stdio, 1 client, 1 in flight';
throughputRow(...pair('stdio'), sequentialLabel, false);
latencyRow(...pair('stdio'), sequentialLabel);
cpuRow(...pair('stdio'), sequentialLabel);
const wrong = rows['groundplane/http'].wrong + rows['groundplane/stdio-window'].wrong + rows['groundplane/stdio'].wrong;
table.push(['MCP check wrong verdicts (groundplane, every row)', String(wrong), '', '', '0', wrong === 0 ? 'yes' : 'NO']);
const width = (s) => [...s].length;
const w = table[0].map((_, i) => Math.max(...table.map((r) => width(r[i]))));
const line = (r) => '|' + r.map((c, i) => ` ${c}${' '.repeat(w[i] - width(c))} |`).join('');
console.log(line(table[0]));
console.log('|' + w.map((n) => '-'.repeat(n + 2) + '|').join(''));
for (const r of table.slice(1)) console.log(line(r));
process.exit(wrong > 0 ? 1 : 0);
