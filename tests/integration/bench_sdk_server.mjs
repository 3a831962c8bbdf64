// The baseline for bench/run's MCP rows: a minimal server written with the official
// TypeScript SDK (McpServer), whose `check` tool takes the same arguments as
// groundplane-mcp's and returns a fixed result without checking anything.
//
//   node bench_sdk_server.mjs --stdio
//   node bench_sdk_server.mjs --http 127.0.0.1:PORT     # prints "serving MCP at URL" on stderr (PORT 0: any free one)
//
// Over HTTP it follows the SDK's own stateful pattern: one McpServer and one
// StreamableHTTPServerTransport per MCP session, answering with JSON (as groundplane-mcp
// does), so both servers do the same work per request.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const fixed = { ok: true, findings: [], correction: '' };

function makeServer() {
  const server = new McpServer({ name: 'sdk-baseline', version: '1' });
  server.registerTool(
    'check',
    {
      title: 'Check a structured answer against the facts',
      description: 'Returns a fixed result (the baseline does no checking).',
      inputSchema: { facts: z.any(), checks: z.array(z.object({ check: z.string() }).passthrough()), output: z.object({}).passthrough() },
      outputSchema: { ok: z.boolean(), findings: z.array(z.any()), correction: z.string() },
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [{ type: 'text', text: 'accepted' }], structuredContent: fixed }),
  );
  return server;
}

const mode = process.argv[2];
if (mode === '--stdio') {
  await makeServer().connect(new StdioServerTransport());
} else if (mode === '--http') {
  const [host, port] = process.argv[3].split(':');
  const transports = new Map();
  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
  const http = createServer(async (req, res) => {
    try {
      const sid = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
      let transport = sid ? transports.get(sid) : undefined;
      if (!transport && !sid && req.method === 'POST' && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
        await makeServer().connect(transport);
      }
      if (!transport) {
        res.writeHead(sid ? 404 : 400).end();
        return;
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  http.listen(Number(port), host, () => process.stderr.write(`serving MCP at http://${host}:${http.address().port}/mcp\n`));
  process.on('SIGTERM', () => http.close(() => process.exit(0)));
} else {
  process.stderr.write('usage: node bench_sdk_server.mjs --stdio | --http HOST:PORT\n');
  process.exit(2);
}
