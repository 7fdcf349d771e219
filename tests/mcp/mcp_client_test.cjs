// `opmfu mcp` driven by the official MCP TypeScript SDK's stdio client (pinned as a test-only
// dependency in grammars/package-lock.json): initialize, list the tools, call each on a demo and
// validate every result against its schema, then the errors a client gets for bad calls.
// Usage: node mcp_client_test.cjs OPMFU_BINARY SOURCE_DIR. Exit 0 passed, 1 failed, 77 skipped.
'use strict';

const assert = require('node:assert/strict');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');
const { pathToFileURL } = require('node:url');

const [opmfu, sourceDir] = process.argv.slice(2);
const fromGrammars = createRequire(path.join(sourceDir, 'grammars', 'package.json'));
let sdk;
try {
  sdk = {
    ...fromGrammars('@modelcontextprotocol/sdk/client/index.js'),
    ...fromGrammars('@modelcontextprotocol/sdk/client/stdio.js'),
    ...fromGrammars('@modelcontextprotocol/sdk/types.js'),
  };
} catch (error) {
  console.log(`skipped: the MCP SDK is not installed (run scripts/setup): ${error.message}`);
  process.exit(77);
}
const Ajv2020 = fromGrammars('ajv/dist/2020').default;
const addFormats = fromGrammars('ajv-formats').default;

const expectedTools = [
  'lint', 'registry_list', 'registry_check', 'check_db', 'analyze', 'report', 'flops', 'audit', 'gate', 'demo',
];
const schemaOf = {
  lint: 'lint', registry_list: 'registry-list', registry_check: 'registry-check', check_db: 'check-db',
  analyze: 'analyze', report: 'report', flops: 'flops', audit: 'audit', gate: 'gate', demo: 'demo',
};
// Tools whose JSON is not an object come under this key in structuredContent.
const wrappedUnder = { lint: 'findings', registry_check: 'findings' };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = {};
for (const [tool, file] of Object.entries(schemaOf)) {
  const schema = JSON.parse(fs.readFileSync(path.join(sourceDir, 'docs', 'schema', `${file}.schema.json`), 'utf8'));
  validators[tool] = ajv.compile(schema);
}

// A tool's result: not an error, its JSON valid against docs/schema/, a short text first.
function checkResult(tool, result) {
  assert.equal(result.isError, false, `${tool}: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, `${tool}: no structuredContent`);
  // An array (lint's findings) comes under its key; an object (lint with run: {findings, run}) as it is.
  const printed = JSON.parse(result.content[1].text);
  const document = Array.isArray(printed) ? result.structuredContent[wrappedUnder[tool]] : result.structuredContent;
  const valid = validators[tool](document);
  assert.ok(valid, `${tool}: ${JSON.stringify(validators[tool].errors)}`);
  assert.equal(result.content[0].type, 'text');
  assert.ok(result.content[0].text.length < 2000, `${tool}: the summary is not short`);
  assert.deepEqual(JSON.parse(result.content[1].text), document, `${tool}: the JSON text differs from structuredContent`);
  return document;
}

function errorText(result) {
  assert.equal(result.isError, true, `expected an error result, got ${JSON.stringify(result).slice(0, 400)}`);
  return result.content.map((item) => item.text).join('\n');
}

async function withClient(root, body) {
  const client = new sdk.Client({ name: 'opmfu-test', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(sdk.ListRootsRequestSchema, async () => ({
    roots: [{ uri: pathToFileURL(root).href, name: 'work' }],
  }));
  // The server starts in / so that only the client's root can make relative paths work.
  const transport = new sdk.StdioClientTransport({ command: opmfu, args: ['mcp'], cwd: '/', stderr: 'pipe' });
  await client.connect(transport);
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

async function workflow(root) {
  await withClient(root, async (client) => {
    assert.equal(client.getServerVersion().name, 'opmfu');
    assert.ok(client.getServerCapabilities().tools);
    assert.deepEqual(await client.ping(), {});

    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [...expectedTools].sort());
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema.type, 'object', tool.name);
      assert.ok(tool.description.length > 20, tool.name);
    }

    // The SDK itself validates each structuredContent against the tool's outputSchema.
    const demo = checkResult('demo', await client.callTool({ name: 'demo', arguments: { directory: 'prof', ranks: 2 } }));
    assert.equal(demo.ranks, 2);
    assert.ok(fs.existsSync(path.join(root, 'prof', 'example', 'train.sh')), 'demo did not write under the root');

    const clean = checkResult('lint', await client.callTool({ name: 'lint', arguments: { paths: ['prof/example/train.sh'] } }));
    assert.deepEqual(clean, [], 'the demo train.sh is set up for MFU');
    fs.copyFileSync(path.join(sourceDir, 'examples', 'broken_train.py'), path.join(root, 'broken_train.py'));
    const findings = checkResult('lint', await client.callTool({ name: 'lint', arguments: { paths: ['broken_train.py'] } }));
    assert.ok(findings.length > 1, 'examples/broken_train.py has findings');
    assert.ok(findings.every((finding) => /^OPM\d+$/.test(finding.code)));
    const selected = checkResult('lint', await client.callTool({
      name: 'lint', arguments: { paths: ['broken_train.py'], select: [findings[0].code] },
    }));
    assert.ok(selected.length > 0 && selected.length < findings.length, 'select was not passed on');
    assert.ok(selected.every((finding) => finding.code === findings[0].code));
    // With run, structuredContent.run is the comparison (what the skill tells agents to read).
    const compared = await client.callTool({ name: 'lint', arguments: { paths: ['prof/example'], run: 'prof' } });
    checkResult('lint', compared);
    assert.ok(Array.isArray(compared.structuredContent.findings), JSON.stringify(compared.structuredContent).slice(0, 300));
    assert.ok(compared.structuredContent.run && typeof compared.structuredContent.run === 'object',
      JSON.stringify(compared.structuredContent).slice(0, 300));
    assert.match(compared.content[0].text, /structuredContent\.run/);

    const formulas = 'prof/example/_flops_formulas.py';
    const listing = checkResult('registry_list', await client.callTool({ name: 'registry_list', arguments: { formulas } }));
    assert.ok(listing.count > 0);
    checkResult('registry_check', await client.callTool({ name: 'registry_check', arguments: { files: [formulas] } }));

    const checked = checkResult('check_db', await client.callTool({ name: 'check_db', arguments: { profiling_path: 'prof' } }));
    assert.equal(checked.all_can_produce_mfu, true);

    const progress = [];
    const analysisResult = await client.callTool(
      { name: 'analyze', arguments: { profiling_path: 'prof' } }, undefined,
      { onprogress: (note) => progress.push(note) },
    );
    const analysis = checkResult('analyze', analysisResult);
    assert.equal(analysis.failed_ranks, 0);
    assert.ok(analysis.operator_mfu_rows > 0);
    assert.ok(fs.existsSync(path.join(root, 'prof', 'cluster_analysis_output', 'cluster_analysis.db')));
    // The SDK runs notification handlers a microtask after reading them, and a response read in
    // the same chunk drops the request's progress handler first: under load the last notes can be
    // lost here. That every note is sent, and before the response, is checked in rawProtocol.
    assert.ok(progress.length >= 1 && progress[0].progress === 0, `progress: ${JSON.stringify(progress)}`);
    for (let i = 1; i < progress.length; ++i) assert.ok(progress[i].progress > progress[i - 1].progress, 'progress must grow');

    const reportResult = await client.callTool({ name: 'report', arguments: { profiling_path: 'prof', top: 3 } });
    const report = checkResult('report', reportResult);
    assert.equal(report.lowest.length, 3, 'top was not passed on');
    // One headline basis: analyze's summary leads with the compute kernels' MFU, report's headline,
    // and names the every-row figure as such.
    const headline = `compute-kernel MFU ${(report.summary.weighted_mfu * 100).toFixed(2)}%`;
    assert.ok(reportResult.content[0].text.startsWith(headline), reportResult.content[0].text);
    assert.equal(analysis.compute_time_weighted_mfu, report.summary.weighted_mfu);
    assert.ok(analysisResult.content[0].text.includes(`, ${headline} (every row, as msprof-analyze weighs them: `),
      analysisResult.content[0].text);
    checkResult('report', await client.callTool({
      name: 'report', arguments: { db: 'prof/cluster_analysis_output/cluster_analysis.db' },
    }));

    const flops = checkResult('flops', await client.callTool({
      name: 'flops', arguments: { target: 'mm', inputs: ['[4096,4096]', '[4096,4096]'] },
    }));
    assert.equal(flops.flops, 137438953472);
    const attention = checkResult('flops', await client.callTool({
      name: 'flops',
      arguments: {
        target: 'npu_fusion_attention',
        arguments: { query: '[2,8,1024,128]', key: '[2,8,1024,128]', value: '[2,8,1024,128]', head_num: '8', input_layout: 'BNSD' },
      },
    }));
    assert.ok(attention.flops > 0);
    assert.ok(checkResult('flops', await client.callTool({ name: 'flops', arguments: { list: true } })).targets.length > 10);

    checkResult('audit', await client.callTool({ name: 'audit', arguments: { profiling_path: 'prof' } }));
    const passed = checkResult('gate', await client.callTool({ name: 'gate', arguments: { profiling_path: 'prof', min_mfu: '10%' } }));
    assert.equal(passed.passed, true);
    // A failed gate (exit 1) is a result, not an error.
    const failed = checkResult('gate', await client.callTool({ name: 'gate', arguments: { profiling_path: 'prof', min_mfu: 0.99 } }));
    assert.equal(failed.passed, false);

    // registry_list names the interpreter it was asked for, not the one a link leads to.
    fs.mkdirSync(path.join(root, 'env', 'bin'), { recursive: true });
    fs.symlinkSync('/usr/bin/python3', path.join(root, 'env', 'bin', 'python'));
    const notFound = errorText(await client.callTool({ name: 'registry_list', arguments: { python: 'env/bin/python' } }));
    assert.ok(notFound.includes(`sys.path of ${path.join(root, 'env', 'bin', 'python')} `), notFound);
  });
}

// A result too large for one answer: one error naming the bound and how to narrow the call.
async function boundedResults(root) {
  // 14 scripts of 1,050 profiler calls without FLOPs: about 10 MB of findings (lint reports 1,000 per file).
  const many = path.join(root, 'many');
  fs.mkdirSync(many);
  const calls = Array.from({ length: 1050 }, (_, i) => `p${i} = torch_npu.profiler.profile(with_flops=False)`);
  for (let i = 0; i < 14; ++i) fs.writeFileSync(path.join(many, `train${i}.py`), ['import torch_npu', ...calls, ''].join('\n'));
  await withClient(root, async (client) => {
    const text = errorText(await client.callTool({ name: 'lint', arguments: { paths: ['many'] } }));
    assert.match(text, /^lint: the result passed 8 MB of JSON.*lint fewer paths per call, or pass select$/, text);
    // The server goes on.
    checkResult('flops', await client.callTool({ name: 'flops', arguments: { target: 'mm', inputs: ['[2,2]', '[2,2]'] } }));
  });
  fs.rmSync(many, { recursive: true, force: true });
}

async function badCalls(root) {
  await withClient(root, async (client) => {
    // Protocol errors: JSON-RPC error responses.
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }),
      (error) => error instanceof sdk.McpError && error.code === sdk.ErrorCode.InvalidParams && /no_such_tool/.test(error.message));
    await assert.rejects(client.request({ method: 'resources/list', params: {} }, sdk.ListResourcesResultSchema),
      (error) => error instanceof sdk.McpError && error.code === sdk.ErrorCode.MethodNotFound);

    // Arguments a model can correct: tool errors naming what is wrong.
    assert.match(errorText(await client.callTool({ name: 'check_db', arguments: {} })), /missing required argument 'profiling_path'/);
    assert.match(errorText(await client.callTool({ name: 'check_db', arguments: { profiling_path: 3 } })), /profiling_path: expected a string/);
    assert.match(errorText(await client.callTool({ name: 'lint', arguments: { paths: ['x.py'], fix: true } })), /unknown argument 'fix'/);
    assert.match(errorText(await client.callTool({ name: 'analyze', arguments: { profiling_path: 'prof', export_type: 'notebook' } })),
      /export_type: 'notebook' is not one of/);
    // A missing input: opmfu's own one-line error, naming the file.
    assert.match(errorText(await client.callTool({ name: 'check_db', arguments: { profiling_path: 'missing' } })),
      new RegExp(`${path.join(root, 'missing')}.*No such file or directory`));

    // Nothing outside the root is written, whichever way the path is spelled.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'opmfu-mcp-outside-'));
    fs.symlinkSync(outside, path.join(root, 'link-out'));
    for (const spelling of [outside, '../' + path.basename(outside), 'link-out', 'link-out/sub']) {
      assert.match(errorText(await client.callTool({ name: 'analyze', arguments: { profiling_path: 'prof', output_path: spelling } })),
        /outside the roots/, spelling);
      assert.match(errorText(await client.callTool({ name: 'demo', arguments: { directory: spelling } })), /outside the roots/, spelling);
    }
    // analyze writes into its input when given no output path: that input must be inside too.
    fs.cpSync(path.join(root, 'prof'), path.join(outside, 'prof'), { recursive: true });
    fs.rmSync(path.join(outside, 'prof', 'cluster_analysis_output'), { recursive: true, force: true });
    assert.match(errorText(await client.callTool({ name: 'analyze', arguments: { profiling_path: path.join(outside, 'prof') } })),
      /outside the roots/);
    // ... while reading from there is fine.
    checkResult('check_db', await client.callTool({ name: 'check_db', arguments: { profiling_path: path.join(outside, 'prof') } }));
    // A file or folder inside the allowed output directory that links outside: the check is on the
    // file the child finally opens, so neither is written through (issue 47).
    const outputs = path.join(root, 'prof', 'cluster_analysis_output');
    fs.mkdirSync(path.join(outside, 'xlsx'));
    fs.symlinkSync(path.join(outside, 'stolen.csv'), path.join(outputs, 'operator_mfu.csv'));
    fs.symlinkSync(path.join(outside, 'xlsx'), path.join(outputs, 'OperatorMfu'));
    for (const exportType of ['csv', 'text']) {
      assert.match(errorText(await client.callTool({ name: 'analyze', arguments: { profiling_path: 'prof', export_type: exportType } })),
        /is a symbolic link/, exportType);
    }
    fs.rmSync(path.join(outputs, 'operator_mfu.csv'));
    fs.rmSync(path.join(outputs, 'OperatorMfu'));
    const written = fs.readdirSync(outside, { recursive: true })
      .filter((name) => name.includes('cluster_analysis_output') || name === 'sub' || name.startsWith('stolen') || name.includes('.xlsx'));
    assert.deepEqual(written, [], 'something was written outside the root');
    fs.rmSync(outside, { recursive: true, force: true });
  });
}

// What a raw client sending broken JSON-RPC gets back, line by line.
async function rawProtocol(root) {
  const server = childProcess.spawn(opmfu, ['mcp', '--root', root], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let buffered = '';
  const waiters = [];
  server.stdout.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffered.slice(0, newline)));
      buffered = buffered.slice(newline + 1);
      while (waiters.length && waiters[0].count <= lines.length) waiters.shift().resolve();
    }
  });
  const until = (count) => new Promise((resolve) => (count <= lines.length ? resolve() : waiters.push({ count, resolve })));
  const send = (text) => server.stdin.write(text + '\n');
  send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}');
  send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  send('{not json');
  send('{"jsonrpc":"2.0","id":2,"method":"no/such/method"}');
  send('{"jsonrpc":"1.0","id":3,"method":"ping"}');
  send('[{"jsonrpc":"2.0","id":4,"method":"ping"}]');
  send('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"not an object"}');
  send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":7}}');
  send('{"jsonrpc":"2.0","id":7,"method":"ping"}');
  await until(8);
  // Progress on the wire: a note per rank, growing, each before the answer.
  send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"analyze","arguments":{"profiling_path":"prof"},"_meta":{"progressToken":"p8"}}}');
  while (!lines.some((message) => message.id === 8)) await until(lines.length + 1);
  server.stdin.end();
  const code = await new Promise((resolve) => server.on('close', resolve));
  assert.equal(code, 0, 'the server exits 0 when its client closes stdin');
  const answer = lines.findIndex((message) => message.id === 8);
  assert.ok(lines[answer].result && !lines[answer].result.isError, JSON.stringify(lines[answer]));
  const notes = lines.filter((message) => message.method === 'notifications/progress').map((message) => message.params);
  // Growing from 0 to 2 of 2; two ranks that finish in one moment (seen under ASan on a loaded
  // machine) may reach the client as one note, so the 1 of 2 between is not required.
  assert.deepEqual([notes[0].progressToken, notes[0].progress, notes[0].total], ['p8', 0, undefined], JSON.stringify(notes));
  assert.deepEqual([notes.at(-1).progressToken, notes.at(-1).progress, notes.at(-1).total], ['p8', 2, 2], JSON.stringify(notes));
  assert.ok(notes.every((note, i) => note.progressToken === 'p8' && (i === 0 || note.progress > notes[i - 1].progress)),
    JSON.stringify(notes));
  assert.ok(notes.length <= 3, JSON.stringify(notes));
  assert.equal(answer, lines.length - 1, 'a progress note came after the answer');
  lines.splice(8);
  assert.equal(lines.length, 8, JSON.stringify(lines));
  assert.equal(lines[0].result.protocolVersion, '2024-11-05', 'an older protocol the server speaks is kept');
  assert.deepEqual([lines[1].id, lines[1].error.code], [null, -32700]);
  assert.deepEqual([lines[2].id, lines[2].error.code], [2, -32601]);
  assert.deepEqual([lines[3].id, lines[3].error.code], [3, -32600]);
  assert.deepEqual([lines[4].id, lines[4].error.code], [null, -32600]);
  assert.deepEqual([lines[5].id, lines[5].error.code], [5, -32602]);
  assert.deepEqual([lines[6].id, lines[6].error.code], [6, -32602]);
  assert.deepEqual(lines[7], { jsonrpc: '2.0', id: 7, result: {} });

}

// A raw client: lines written as they come, every answer collected by id.
function rawClient(root) {
  const server = childProcess.spawn(opmfu, ['mcp', '--root', root], { stdio: ['pipe', 'pipe', 'inherit'] });
  const client = { server, lines: [], order: [] };
  let buffered = '';
  const waiters = [];
  server.stdout.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      client.lines.push(message);
      if (message.id !== undefined) client.order.push(message.id);
      for (let i = waiters.length - 1; i >= 0; --i) {
        if (client.lines.some((line) => line.id === waiters[i].id)) waiters.splice(i, 1)[0].resolve();
      }
    }
  });
  client.send = (message) => server.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
  client.answer = (id) => new Promise((resolve) => {
    if (client.lines.some((line) => line.id === id)) resolve(); else waiters.push({ id, resolve });
  }).then(() => client.lines.find((line) => line.id === id));
  client.closed = new Promise((resolve) => server.on('close', resolve));
  client.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return client;
}

// Independent calls run at once: a quick call is answered while a slow one still runs, and every
// call read before stdin closed is answered before the server exits.
async function concurrentCalls(root) {
  // An "interpreter" that takes 1 s per question (registry_list asks it twice before it fails).
  const slow = path.join(root, 'slow-python');
  fs.writeFileSync(slow, '#!/bin/sh\nsleep 1\nexit 1\n', { mode: 0o755 });
  const slowish = path.join(root, 'slowish-python');
  fs.writeFileSync(slowish, '#!/bin/sh\nsleep 0.2\nexit 1\n', { mode: 0o755 });
  const client = rawClient(root);
  await client.answer('init');
  const call = (id, name, args) => client.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const started = Date.now();
  call('slow', 'registry_list', { python: slow });
  call('quick', 'flops', { target: 'mm', inputs: ['[4096,4096]', '[4096,4096]'] });
  const quick = await client.answer('quick');
  assert.equal(quick.result.isError, false, JSON.stringify(quick));
  // Answered while the slow call still runs (a serial server answers it after the slow one).
  assert.deepEqual(client.order, ['init', 'quick'], `after ${Date.now() - started} ms`);
  // Two more, then the client closes its end: all three are still answered.
  call('slow2', 'registry_list', { python: slowish });
  call('slow3', 'registry_list', { python: slowish });
  client.server.stdin.end();
  assert.equal(await client.closed, 0);
  for (const id of ['slow', 'slow2', 'slow3']) {
    const answer = client.lines.find((line) => line.id === id);
    assert.ok(answer && answer.result && answer.result.isError === true, `${id}: ${JSON.stringify(answer)}`);
  }
}

function peakRssKb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
}

// What a hostile client sends: a message nested 100,000 deep, lines past the bound: each refused
// in one error, the server alive and small.
async function hostileLines(root) {
  const client = rawClient(root);
  await client.answer('init');
  client.send('{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":' + '['.repeat(100000) + ']'.repeat(100000) + '}}');
  client.send({ jsonrpc: '2.0', id: 'after-deep', method: 'ping' });
  await client.answer('after-deep');
  const deep = client.lines.find((line) => line.error && /nested deeper than 64/.test(line.error.message));
  assert.ok(deep, JSON.stringify(client.lines.slice(-3)));
  const big = `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${'x'.repeat(16 << 20)}"}}`;
  for (let i = 0; i < 6; ++i) client.send(big);
  client.send({ jsonrpc: '2.0', id: 'after-big', method: 'ping' });
  await client.answer('after-big');
  assert.equal(client.lines.filter((line) => line.error && /longer than 4 MB/.test(line.error.message)).length, 6);
  const rss = peakRssKb(client.server.pid);
  // Queued whole, the six lines took 2.5 GB; bounded, 17 MB in the release build and about 150 MB under
  // ASan+UBSan (its shadow memory and quarantine), so 400 MB holds both and still fails the old server.
  assert.ok(rss < 400 * 1024, `peak RSS ${rss} KB after six 16 MB lines`);
  client.server.stdin.end();
  assert.equal(await client.closed, 0);
}

(async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'opmfu-mcp-'));
  try {
    await workflow(root);
    await badCalls(root);
    await boundedResults(root);
    await rawProtocol(root);
    await concurrentCalls(root);
    await hostileLines(root);
    console.log('mcp client test passed');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
