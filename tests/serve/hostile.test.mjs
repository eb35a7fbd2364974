// Bad requests and hostile clients: each gets a 4xx JSON error or a dropped connection, the server
// never crashes and keeps answering; a full work queue answers 429, not failures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer, postJson, postJsonOnce, rawRequest } from './server.mjs';

let server;
before(async () => { server = await startServer(['--timeout', '1', '--idle-timeout', '1']); });
after(async () => { assert.equal(await server.stop(), 0, server.stderr()); });

async function assertHealthy() {
  const res = await fetch(server.url + '/health');
  assert.equal(res.status, 200);
  assert.equal(server.process.exitCode, null);
}

test('bad bodies get 400 with a JSON error naming the problem', async () => {
  const cases = [
    ['not json', /invalid JSON/],
    ['{"input": "a"', /invalid JSON/],
    ['', /invalid JSON/],
    ['[1, 2]', /JSON object/],
    ['{"input": ' + '['.repeat(40) + '"a"' + ']'.repeat(40) + '}', /nested deeper/],
    ['['.repeat(1_000_000), /invalid JSON/],
    [{}, /'input' is required/],
    [{ input: 5 }, /string or an array of strings/],
    [{ input: [1, 2] }, /string or an array of strings/],
    [{ input: [] }, /must not be empty/],
    [{ input: 'a', dimensions: 'x' }, /dimensions/],
    [{ input: 'a', dimensions: -1 }, /dimensions/],
    [{ input: 'a', dimensions: 0 }, /dimensions/],
    [{ input: 'a', encoding_format: 'hex' }, /encoding_format/],
    [{ input: 'a', model: 7 }, /model/],
    [{ input: 'a'.repeat(70000) }, /bytes, more than/],
    [{ input: Array(100000).fill('a') }, /more than the 2048 allowed/],
    ['{"input": [' + Array(2_000_000).fill('"a"').join(',') + ']}', /more than 132096 JSON values/],  // 8 MB
  ];
  for (const [body, message] of cases) {
    const res = await postJson(server, '/v1/embeddings', body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(res.json.error.type, 'invalid_request_error');
    assert.match(res.json.error.message, message);
  }
  const utf8 = await postJson(server, '/v1/embeddings', Buffer.from('{"input": "ab\xff\xfe"}', 'latin1'));
  assert.equal(utf8.status, 400);
  assert.match(utf8.json.error.message, /UTF-8/);
  const tei = await postJson(server, '/embed', { inputs: 'a', normalize: 'yes' });
  assert.equal(tei.status, 400);
  assert.equal(tei.json.error_type, 'Validation');
  await assertHealthy();
});

test('unknown routes, methods and oversized bodies: JSON 404, 405 and 413', async () => {
  const missing = await postJson(server, '/v1/nothing', { input: 'a' });
  assert.equal(missing.status, 404);
  assert.ok(missing.json.error.message);
  const get = await fetch(server.url + '/v1/embeddings');  // a known route, the wrong method
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  const big = await postJson(server, '/v1/embeddings', { input: 'a '.repeat(4_500_000) });  // 9 MB > 8 MiB
  assert.equal(big.status, 413);
  assert.match(big.json.error.message, /too large/);
  await assertHealthy();
});

test('truncated bodies, huge headers, header floods: an error or a dropped connection', async () => {
  const started = Date.now();
  const truncated = await rawRequest(server, 'POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"in');
  assert.doesNotMatch(truncated.received, /^HTTP\/1.1 200/);
  assert.ok(truncated.closed);
  const held = await rawRequest(server, 'POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"in',
                                { keepOpen: true, waitMs: 8000 });
  assert.ok(held.closed, 'a client that stops sending is dropped after --timeout');
  const hugeHeader = await rawRequest(server, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100000)}\r\n\r\n`);
  // The server answers 400 and closes while the client still sends: the answer may be lost in the reset.
  assert.ok(hugeHeader.closed && (hugeHeader.received === '' || /^HTTP\/1.1 4\d\d/.test(hugeHeader.received)));
  const flood = Array.from({ length: 5000 }, (_, i) => `X-H${i}: v\r\n`).join('');
  const floodAnswer = await rawRequest(server, `GET /health HTTP/1.1\r\nHost: x\r\n${flood}\r\n`);
  assert.ok(floodAnswer.closed && (floodAnswer.received === '' || /^HTTP\/1.1 431/.test(floodAnswer.received)));
  assert.ok(Date.now() - started < 15000);
  await assertHealthy();
});

test('slowloris: slow senders are dropped, other clients are still served', async () => {
  const net = await import('node:net');
  const sockets = [];
  const closed = [];
  for (let i = 0; i < 70; i++) {  // more than the 64 connections served at once
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    closed.push(new Promise((resolve) => socket.on('close', resolve)));
    socket.write('POST /v1/embeddings HTTP/1.1\r\nHost: x\r\n');
    sockets.push(socket);
  }
  // One header byte every 2 s: slower than --timeout 1. Each timed-out read is answered 400 and the
  // connection kept for the next request (at most 5 a connection), so dropping takes up to ~10 s.
  const drip = setInterval(() => sockets.forEach((s) => s.writable && s.write('X')), 2000);
  try {
    const started = Date.now();
    const res = await postJson(server, '/v1/embeddings', { input: 'still served' });
    assert.equal(res.status, 200);
    // Served once a slot frees: every slow client is dropped within about 5 x (1 + 1) s of its turn.
    assert.ok(Date.now() - started < 30000, `served after ${Date.now() - started} ms`);
    await Promise.race([Promise.all(closed), new Promise((_, reject) => setTimeout(() => reject(new Error('slow clients not dropped')), 30000))]);
  } finally {
    clearInterval(drip);
    sockets.forEach((s) => s.destroy());
  }
  await assertHealthy();
});

test('overload: a full work queue answers 429 (OpenAI error shape), never fails', async () => {
  // Generous read/write timeouts: this tests the queue, and a loaded machine may be slow to send 24
  // bodies or read 24 answers (the timeouts have their own test above).
  const busy = await startServer(['--threads', '1', '--queue', '2', '--timeout', '60']);
  try {
    const input = Array.from({ length: 2048 }, (_, i) => `sentence number ${i} about cats, dogs and the weather today`);
    const results = await Promise.all(Array.from({ length: 24 }, () => postJsonOnce(busy, '/v1/embeddings', { input })));
    const statuses = results.map((r) => r.status);
    assert.ok(statuses.every((s) => s === 200 || s === 429), statuses.join());
    assert.ok(statuses.includes(200) && statuses.includes(429), statuses.join());
    const refused = results.find((r) => r.status === 429);
    assert.equal(refused.json.error.type, 'rate_limit_error');
    assert.equal(refused.headers.get('retry-after'), '1');
    const metrics = await (await fetch(busy.url + '/metrics')).text();
    assert.match(metrics, /swe_queue_rejected_total [1-9]/);
  } finally {
    assert.equal(await busy.stop(), 0);
  }
});

// A chunked body is counted as it arrives: 413 as soon as it passes --max-body-bytes (8 MiB), whatever
// the client goes on sending, and the server's memory does not follow the body (a 400 MB chunked body
// once took it to 1.9 GB and was answered 400 after 18 s).
test('chunked bodies are counted against the limit as they arrive: 413, memory bounded', async () => {
  const net = await import('node:net');
  const rssKb = () => Number(readFileSync(`/proc/${server.process.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);
  const before = rssKb();
  const socket = net.connect(server.port, '127.0.0.1');
  let received = '';
  let sent = 0;
  const answered = new Promise((resolve) => {
    socket.on('data', (d) => { received += d; if (received.includes('\r\n\r\n')) resolve(sent); });
    socket.on('close', () => resolve(sent));
  });
  socket.on('error', () => {});
  socket.write('POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
  const chunk = `${(1 << 20).toString(16)}\r\n${'a'.repeat(1 << 20)}\r\n`;
  let done = false;
  answered.then(() => { done = true; });
  while (!done && sent < 400 * (1 << 20)) {  // up to 400 MB, until the server answers
    if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r).once('close', r));
    sent += 1 << 20;
  }
  const sentWhenAnswered = await answered;
  socket.destroy();
  assert.match(received, /^HTTP\/1.1 413 /);
  assert.match(received, /too large/);
  assert.ok(sentWhenAnswered < 80 * (1 << 20), `answered after ${sentWhenAnswered} bytes`);
  assert.ok(rssKb() - before < 64 * 1024, `server RSS grew by ${rssKb() - before} kB`);
  // A chunked body just over the limit, from Node's http client: 413 too (it was 400), read by the client.
  const http = await import('node:http');
  const status = await new Promise((resolve, reject) => {
    const req = http.request(server.url + '/v1/embeddings', { method: 'POST', headers: { 'content-type': 'application/json' } },
                             (res) => { res.resume(); resolve(res.statusCode); });
    req.on('error', reject);
    req.write('{"input": "');  // no Content-Length: Node sends the body chunked
    for (let i = 0; i < 9; ++i) req.write('b'.repeat(1 << 20));
    req.end('"}');
  });
  assert.equal(status, 413);
  await assertHealthy();
});

// HTTP/1.1 pipelining: requests sent back to back on one connection are all answered, in order (only
// the first was, and the connection then idled until closed).
test('pipelined requests are all answered in order', async () => {
  const body = (text) => JSON.stringify({ input: text });
  const post = (text, extra = '') => `POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}` +
                                     `Content-Length: ${Buffer.byteLength(body(text))}\r\n\r\n${body(text)}`;
  const texts = ['a cat', 'a dog', 'the weather today', 'stock markets', 'a kitten'];
  const raw = await rawRequest(server, texts.map((t) => post(t)).join('') + 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.ok(raw.closed);
  const statuses = [...raw.received.matchAll(/^HTTP\/1.1 (\d+) /gm)].map((m) => Number(m[1]));
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
  const bodies = raw.received.split(/HTTP\/1.1 200 OK\r\n[\s\S]*?\r\n\r\n/).slice(1);
  const expected = await Promise.all(texts.map((t) => postJson(server, '/v1/embeddings', { input: t })));
  for (let i = 0; i < texts.length; ++i) assert.deepEqual(JSON.parse(bodies[i]).data, expected[i].json.data, texts[i]);
  assert.equal(JSON.parse(bodies[5]).status, 'ok');
  // A request that asks to close ends the connection: what follows it is not answered.
  const closing = await rawRequest(server, post('one') + post('two', 'Connection: close\r\n') + post('three'));
  assert.deepEqual([...closing.received.matchAll(/^HTTP\/1.1 (\d+) /gm)].map((m) => m[1]), ['200', '200']);
  assert.ok(closing.closed);
  await assertHealthy();
});
