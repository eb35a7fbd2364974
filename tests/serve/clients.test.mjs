// Real clients against `swe serve`: the official openai package and LangChain's OpenAIEmbeddings get
// the vectors `swe encode` writes, bit for bit; TEI-style /embed, /search and the index routes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { OpenAIEmbeddings } from '@langchain/openai';
import { startServer, sweEncode, postJson, sameBits } from './server.mjs';

const texts = ['A cat sits on the mat', 'Stock markets fell sharply today', 'Ünïcödé wörds and 漢字', '', 'the'];
// Little-endian float32 bytes, as OpenAI's base64 encoding_format carries them.
function fromBase64(text) {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.equal(await server.stop(), 0); });

test('openai client: float and base64 vectors are swe encode\'s', async () => {
  const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused' });
  const expected = sweEncode(texts);
  for (const encoding_format of ['float', 'base64', undefined]) {  // undefined: the client asks for base64
    const res = await client.embeddings.create({ model: 'any', input: texts, encoding_format });
    assert.equal(res.data.length, texts.length);
    res.data.forEach((item, i) => {
      assert.equal(item.index, i);
      const got = typeof item.embedding === 'string'
        ? fromBase64(item.embedding)
        : Float32Array.from(item.embedding);
      assert.ok(sameBits(got, expected[i]), `${encoding_format} text ${i}`);
    });
    assert.ok(res.usage.prompt_tokens > 0 && res.usage.total_tokens === res.usage.prompt_tokens);
  }
  const single = await client.embeddings.create({ model: 'any', input: texts[0], encoding_format: 'float' });
  assert.ok(sameBits(Float32Array.from(single.data[0].embedding), expected[0]));
});

test('openai client: dimensions truncates and renormalises as swe encode --dims', async () => {
  const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused' });
  const res = await client.embeddings.create({ model: 'any', input: texts, dimensions: 64, encoding_format: 'float' });
  const expected = sweEncode(texts, 64);
  res.data.forEach((item, i) => assert.ok(sameBits(Float32Array.from(item.embedding), expected[i])));
});

test('openai client: a bad request is an APIError with the status', async () => {
  const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  await assert.rejects(client.embeddings.create({ model: 'any', input: texts, dimensions: 100000 }),
                       (e) => e.status === 400 && /dimensions/.test(e.message));
});

test('LangChain OpenAIEmbeddings: documents and queries', async () => {
  const embeddings = new OpenAIEmbeddings({
    model: 'any', apiKey: 'unused', configuration: { baseURL: server.url + '/v1' }, batchSize: 2,
  });
  const expected = sweEncode(texts);
  const docs = await embeddings.embedDocuments(texts);
  docs.forEach((v, i) => assert.ok(sameBits(Float32Array.from(v), expected[i]), `document ${i}`));
  const query = await embeddings.embedQuery(texts[1]);
  assert.ok(sameBits(Float32Array.from(query), expected[1]));
});

test('TEI /embed: a string or a list, normalize, truncate', async () => {
  const expected = sweEncode(texts);
  const list = await postJson(server, '/embed', { inputs: texts, normalize: true });
  assert.equal(list.status, 200);
  list.json.forEach((v, i) => assert.ok(sameBits(Float32Array.from(v), expected[i])));
  const one = await postJson(server, '/embed', { inputs: texts[0] });
  assert.equal(one.json.length, 1);
  assert.ok(sameBits(Float32Array.from(one.json[0]), expected[0]));
  const long = 'word '.repeat(20000);  // 100,000 bytes: over the 65,536 allowed
  const refused = await postJson(server, '/embed', { inputs: long });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.error_type, 'Validation');
  const cut = await postJson(server, '/embed', { inputs: long, truncate: true });
  assert.equal(cut.status, 200);
  assert.ok(sameBits(Float32Array.from(cut.json[0]), sweEncode([long.slice(0, 65536)])[0]));
});

test('/search, /index/add, /index/remove without --index: 404 with a message', async () => {
  const res = await postJson(server, '/search', { query: 'cat' });
  assert.equal(res.status, 404);
  assert.match(res.json.error.message, /--index/);
});

test('/health and /metrics', async () => {
  const health = await (await fetch(server.url + '/health')).json();
  assert.equal(health.status, 'ok');
  assert.equal(health.dims, 256);
  const metrics = await (await fetch(server.url + '/metrics')).text();
  assert.match(metrics, /swe_requests_total\{route="\/v1\/embeddings",code="200"\} [1-9]/);
  assert.match(metrics, /swe_request_duration_seconds_bucket\{route="\/embed",le="\+Inf"\} [1-9]/);
  assert.match(metrics, /swe_queue_depth 0/);
  // Texts encoded are counted (the counter stayed 0): a request of three texts adds three.
  const texts = () => Number((/^swe_texts_embedded_total (\d+)$/m).exec(metrics)?.[1]);
  const before = texts();
  assert.ok(before > 0, 'the requests above encoded texts');
  await postJson(server, '/v1/embeddings', { input: ['a', 'b', 'c'] });
  const after = await (await fetch(server.url + '/metrics')).text();
  assert.equal(Number((/^swe_texts_embedded_total (\d+)$/m).exec(after)[1]), before + 3);
});
