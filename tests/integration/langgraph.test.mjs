// A LangGraph.js graph whose check node calls groundplane-mcp's `check` tool (loaded
// through @langchain/mcp-adapters). A rejection routes back to the model with the
// correction as a message; a misconfigured check ends the run with an error, never a
// retry.
//
//   node langgraph.test.mjs <path to groundplane-mcp>
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';

import {
  rankingFromResult,
  seedCheck,
  seedMessage,
  serverPath,
  startHttpServer,
  warehouseCall,
  warehouseResult,
} from './common.mjs';

const command = serverPath();
// "http" as the second argument: the same graph reaches groundplane-mcp over Streamable HTTP.
const overHttp = process.argv[3] === 'http';

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  answer: Annotation(),
  verdict: Annotation(),
  attempts: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
});

// A stand-in for a model: it answers from a script, one answer per call, and reads the
// conversation only to show what a real model would be given.
function scriptedModel(answers, transcript) {
  let turn = 0;
  return async (state) => {
    const last = state.messages.at(-1);
    if (last instanceof HumanMessage && turn > 0) transcript.push(`model <- correction: ${last.content}`);
    const answer = { winner: answers[turn++] };
    transcript.push(`model: ${JSON.stringify(answer)}`);
    return { answer, attempts: 1, messages: [new AIMessage(JSON.stringify(answer))] };
  };
}

// The check node: the model's structured answer, checked by groundplane against the
// recorded facts. A rejected claim is a state update carrying the correction; a tool
// error (a misconfigured check) throws out of the graph.
function checkNode(checkTool, facts, checks, transcript) {
  return async (state) => {
    const result = await checkTool.invoke({ facts, checks, output: state.answer });
    const verdict = result.structuredContent;
    assert.ok(verdict, 'the check tool returns structuredContent');
    if (verdict.ok) {
      transcript.push(`check: ${result.text}`);
      return { verdict };
    }
    transcript.push(`check: rejected\n${verdict.findings.map((f) => f.message).join('\n\n')}`);
    return { verdict, messages: [new HumanMessage(verdict.correction)] };
  };
}

function buildGraph(model, check, maxAttempts = 3) {
  return new StateGraph(State)
    .addNode('model', model)
    .addNode('check', check)
    .addEdge(START, 'model')
    .addEdge('model', 'check')
    .addConditionalEdges('check', (state) =>
      state.verdict.ok || state.attempts >= maxAttempts ? END : 'model',
    )
    .compile();
}

async function withServer(fn) {
  const http = overHttp ? await startHttpServer() : null;
  const client = new MultiServerMCPClient({
    mcpServers: {
      groundplane: http
        ? { transport: 'http', url: http.url }
        : { transport: 'stdio', command, args: [], stderr: 'pipe' },
    },
    throwOnLoadError: true,
  });
  try {
    const tools = Object.fromEntries((await client.getTools()).map((t) => [t.name, t]));
    // The warehouse's tool result becomes a fact before the model runs.
    await tools.record_ranking.invoke(
      rankingFromResult('campaign_ctr', warehouseCall, warehouseResult, { key: 'ctr', entity: 'campaign' }),
    );
    await tools.record_fact.invoke({ name: 'row_count', value: 3, tool: 'warehouse.count' });
    await fn(tools);
  } finally {
    await client.close();
    if (http) assert.equal(await http.stop(), 0, 'SIGTERM stops the HTTP server cleanly');
  }
}

test('a rejected winner routes back to the model with the correction and the run ends accepted', { timeout: 60_000 }, async () => {
  await withServer(async (tools) => {
    const transcript = [];
    const graph = buildGraph(scriptedModel(['north', 'harbour'], transcript), checkNode(tools.check, ['campaign_ctr'], [seedCheck], transcript));
    const final = await graph.invoke({ messages: [new HumanMessage('Which campaign performed best?')] });

    console.log(`--- LangGraph transcript ---\n${transcript.join('\n')}\n---`);
    assert.equal(final.attempts, 2);
    assert.equal(final.verdict.ok, true);
    assert.deepEqual(final.answer, { winner: 'harbour' });
    assert.equal(transcript[0], 'model: {"winner":"north"}');
    assert.equal(transcript[1], `check: rejected\n${seedMessage}`);
    assert.match(transcript[2], /^model <- correction: Your previous answer was rejected/);
    assert.match(transcript[2], /you said 'north'; the facts support 'harbour'/);
    assert.equal(transcript[3], 'model: {"winner":"harbour"}');
    assert.equal(transcript[4], 'check: accepted');
    // The correction reached the model as a message in the conversation.
    const corrections = final.messages.filter((m) => m instanceof HumanMessage && /rejected/.test(m.content));
    assert.equal(corrections.length, 1);
  });
});

test('a misconfigured check ends the run with an error instead of a retry', { timeout: 60_000 }, async () => {
  await withServer(async (tools) => {
    const transcript = [];
    let modelCalls = 0;
    const script = scriptedModel(['north', 'harbour'], transcript);
    const model = async (state) => {
      modelCalls += 1;
      return script(state);
    };
    // A developer's bug: a ranking check over a scalar fact.
    const broken = checkNode(tools.check, ['row_count'], [{ check: 'superlative', fact: 'row_count' }], transcript);
    await assert.rejects(
      buildGraph(model, broken).invoke({ messages: [new HumanMessage('Which campaign performed best?')] }),
      /superlative: fact 'row_count' is a single value \(a Fact\); this check needs a Ranking \(from record_ranking\), or a Table \(from record_table\) with \.column set to the column to rank it by/,
    );
    assert.equal(modelCalls, 1, 'the model was not re-asked about a configuration error');
    console.log(`--- misconfigured run ---\n${transcript.join('\n')}\n(ended with the tool error; no retry)\n---`);
  });
});
