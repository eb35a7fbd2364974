// The index routes: durable changes (the file holds each answered change), concurrent writers lose
// nothing (three servers, the CLI and JS on one file), kill -9 during writes leaves a loadable index,
// SIGTERM finishes the requests in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, postJson, readIndexIds, swe, model } from './server.mjs';

const run = (program, args) => new Promise((resolve) => {
  execFile(program, args, (error, stdout, stderr) => resolve({ code: error ? error.code ?? 1 : 0, stdout, stderr }));
});

function tempIndex() {
  const dir = mkdtempSync(path.join(tmpdir(), 'swe-serve-'));
  return { file: path.join(dir, 'docs.swei'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const docs = (prefix, n) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, text: `${prefix} document ${i} about cats and weather` }));

test('add, search, remove: each answered change is in the file', async () => {
  const index = tempIndex();
  const server = await startServer(['--index', index.file]);
  try {
    const added = await postJson(server, '/index/add', { documents: [
      { id: 'cat', text: 'A cat sits on the mat', metadata: { lang: 'en', tags: ['pet'] } },
      { id: 'stocks', text: 'Stock markets fell sharply today' }, { id: 7, text: 'Rain is expected tomorrow' }] });
    assert.deepEqual(added.json, { added: 3, replaced: 0, size: 3 });
    assert.deepEqual(readIndexIds(index.file).sort(), ['7', 'cat', 'stocks']);
    const hits = await postJson(server, '/search', { query: 'a kitten on a rug', k: 2 });
    assert.equal(hits.json.hits[0].id, 'cat');
    assert.deepEqual(hits.json.hits[0].metadata, { lang: 'en', tags: ['pet'] });
    assert.equal(hits.json.hits.length, 2);
    const high = await postJson(server, '/search', { query: 'a kitten on a rug', k: 3, min_score: 0.99 });
    assert.equal(high.json.hits.length, 0);
    const approx = await postJson(server, '/search', { query: 'cat', k: 2, candidates: 1 });
    assert.equal(approx.status, 400);  // candidates must be 0 or at least k
    const replaced = await postJson(server, '/index/add', { documents: [{ id: 'cat', text: 'A dog' }] });
    assert.deepEqual(replaced.json, { added: 0, replaced: 1, size: 3 });
    const removed = await postJson(server, '/index/remove', { ids: ['stocks', 'nope'] });
    assert.deepEqual(removed.json, { removed: 1, not_found: ['nope'], size: 2 });
    assert.deepEqual(readIndexIds(index.file).sort(), ['7', 'cat']);
    const bad = await postJson(server, '/index/add', { documents: [{ text: 'no id' }] });
    assert.equal(bad.status, 400);
    assert.equal(await server.stop(), 0);
    const again = await startServer(['--index', index.file]);  // a restart serves what the file holds
    const after = await postJson(again, '/search', { query: 'rain tomorrow', k: 1 });
    assert.equal(after.json.hits[0].id, '7');
    assert.equal(await again.stop(), 0);
  } finally {
    if (server.process.exitCode === null) await server.stop();
    index.cleanup();
  }
});

test('two writers at once lose nothing', async () => {
  const index = tempIndex();
  const server = await startServer(['--index', index.file, '--threads', '2']);
  try {
    const writer = async (prefix) => {
      for (let batch = 0; batch < 20; batch++) {
        const res = await postJson(server, '/index/add', { documents: docs(`${prefix}${batch}-`, 5) });
        assert.equal(res.status, 200);
      }
    };
    await Promise.all([writer('a'), writer('b'), writer('c')]);
    assert.equal(readIndexIds(index.file).length, 300);
  } finally {
    assert.equal(await server.stop(), 0);
    index.cleanup();
  }
});

test('the server and `swe index add` writing one index at once lose nothing', async () => {
  const index = tempIndex();
  const server = await startServer(['--index', index.file, '--threads', '2']);
  try {
    await postJson(server, '/index/add', { documents: docs('first-', 1) });  // the file exists
    const dir = path.dirname(index.file);
    const cli = async (batch) => {
      const file = path.join(dir, `cli${batch}.jsonl`);
      writeFileSync(file, docs(`cli${batch}-`, 5).map((d) => JSON.stringify(d)).join('\n') + '\n');
      const { code, stderr } = await run(swe, ['index', 'add', model, index.file, '--docs', file]);
      assert.equal(code, 0, stderr);
    };
    const http = async () => {
      for (let batch = 0; batch < 10; batch++) {
        assert.equal((await postJson(server, '/index/add', { documents: docs(`http${batch}-`, 5) })).status, 200);
      }
    };
    const cliWriter = async () => { for (let batch = 0; batch < 10; batch++) await cli(batch); };
    await Promise.all([http(), cliWriter()]);
    assert.equal(readIndexIds(index.file).length, 101);
  } finally {
    assert.equal(await server.stop(), 0);
    index.cleanup();
  }
});

test('kill -9 during index writes leaves a loadable index with every answered document', async () => {
  const index = tempIndex();
  try {
    for (let round = 0; round < 3; round++) {
      const server = await startServer(['--index', index.file, '--threads', '2']);
      const answered = [];
      let stop = false;
      const writer = async (prefix) => {
        for (let batch = 0; !stop; batch++) {
          const documents = docs(`r${round}${prefix}${batch}-`, 20);
          try {
            const res = await postJson(server, '/index/add', { documents });
            if (res.status === 200) answered.push(...documents.map((d) => d.id));
          } catch { return; }  // the server is gone
        }
      };
      const writers = [writer('a'), writer('b')];
      await new Promise((r) => setTimeout(r, 300 + 200 * round));
      server.process.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      await server.exited;
      const ids = new Set(readIndexIds(index.file));  // throws when the file does not load
      assert.ok(answered.length > 0);
      for (const id of answered) assert.ok(ids.has(id), `${id} was answered 200 but is not in the file`);
    }
  } finally {
    index.cleanup();
  }
});

test('SIGTERM finishes the request in flight and exits 0', async () => {
  const server = await startServer(['--max-body-bytes', '67108864', '--max-inputs', '100000']);
  const input = Array.from({ length: 60000 }, (_, i) => `sentence ${i} about cats, dogs, markets and the weather of tomorrow`);
  const pending = postJson(server, '/v1/embeddings', { input, dimensions: 8 });
  for (;;) {  // wait until it is being computed
    const metrics = await (await fetch(server.url + '/metrics')).text();
    if (/swe_requests_in_flight 1/.test(metrics)) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  server.process.kill('SIGTERM');
  const res = await pending;
  assert.equal(res.status, 200);
  assert.equal(res.json.data.length, input.length);
  assert.equal(await server.exited, 0);
  assert.match(server.stderr(), /stopping/);
});

// A stop signal goes to the thread that waits for it (sigwait): every other thread blocks SIGTERM and
// SIGINT (one that did not, the thread running index changes, once took SIGTERM and the process died).
test('every thread of a server with an index blocks the stop signals', async () => {
  const index = tempIndex();
  const server = await startServer(['--index', index.file, '--threads', '2']);
  try {
    const dir = `/proc/${server.process.pid}/task`;
    const tasks = readdirSync(dir);
    assert.ok(tasks.length >= 4, `${tasks.length} threads`);
    const stops = (1n << 14n) | (1n << 1n);  // SIGTERM (15) and SIGINT (2): bit signal - 1
    const taking = tasks.filter((task) => {
      const blocked = BigInt('0x' + /SigBlk:\s*([0-9a-f]+)/.exec(readFileSync(`${dir}/${task}/status`, 'utf8'))[1]);
      return (blocked & stops) !== stops;
    });
    assert.equal(taking.length, 1, `threads taking a stop signal: ${taking}`);  // the one in sigwait (unblocked meanwhile)
    assert.equal(await server.stop(), 0);
  } finally {
    if (server.process.exitCode === null) server.process.kill('SIGKILL');
    index.cleanup();
  }
});

// Stored metadata is shown as the CLI shows it: within 128 levels as JSON (deeper than a request's 32
// levels once vanished from hits), and what cannot be shown says so (swe serve and the CLI alike).
test('stored metadata deeper than a request may be is shown', async () => {
  const index = tempIndex();
  try {
    const deep = (n) => (n === 0 ? 'x' : { d: deep(n - 1) });
    const file = path.join(path.dirname(index.file), 'deep.jsonl');
    writeFileSync(file, JSON.stringify({ id: 'deep', text: 'a cat on a mat', metadata: deep(100) }) + '\n');
    const built = await run(swe, ['index', 'build', model, '--docs', file, '-o', index.file]);
    assert.equal(built.code, 0, built.stderr);
    const server = await startServer(['--index', index.file]);
    try {
      const hits = await postJson(server, '/search', { query: 'cat', k: 1 });
      assert.equal(hits.status, 200);
      assert.deepEqual(hits.json.hits[0].metadata, deep(100));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  } finally {
    index.cleanup();
  }
});

// The file replaced by an index of the same model with other dims (swe index build --dims 64): the next
// change encodes with the new dims, and searches go on (every search was 400 until a restart).
test('a file replaced by an index of other dims is written and searched with its dims', async () => {
  const index = tempIndex();
  const server = await startServer(['--index', index.file]);
  try {
    assert.equal((await postJson(server, '/index/add', { documents: docs('first', 3) })).status, 200);
    const file = path.join(path.dirname(index.file), 'small.jsonl');
    writeFileSync(file, docs('small', 3).map((d) => JSON.stringify(d)).join('\n') + '\n');
    const built = await run(swe, ['index', 'build', model, '--docs', file, '--dims', '64', '-o', index.file]);
    assert.equal(built.code, 0, built.stderr);
    const added = await postJson(server, '/index/add', { documents: [{ id: 'new', text: 'a cat sat on the mat' }] });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.json.size, 4);
    const hits = await postJson(server, '/search', { query: 'a cat sat on a mat', k: 2 });
    assert.equal(hits.status, 200, hits.text);
    assert.equal(hits.json.hits[0].id, 'new');
    assert.deepEqual(readIndexIds(index.file).sort(), ['new', 'small0', 'small1', 'small2']);
  } finally {
    assert.equal(await server.stop(), 0);
    index.cleanup();
  }
});

// Three servers on one file, `swe index add` and a Node program saving index.saveChanges() under
// `swe index lock`, all at once: nothing is lost, and each server's search sees every writer's
// documents (it applies what the others appended before it searches).
test('three servers, the CLI and a JS saveChanges() writing one file lose nothing', async () => {
  const index = tempIndex();
  const dir = path.dirname(index.file);
  const build = path.join(dir, 'base.jsonl');
  writeFileSync(build, docs('base', 20).map((d) => JSON.stringify(d)).join('\n') + '\n');
  assert.equal((await run(swe, ['index', 'build', model, '--docs', build, '-o', index.file])).code, 0);
  const servers = await Promise.all([0, 1, 2].map(() => startServer(['--index', index.file, '--threads', '2'])));
  const js = path.join(dir, 'js-writer.mjs');
  const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../js/src/index.js');
  writeFileSync(js, `
    import { closeSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
    import { loadModel } from ${JSON.stringify(pkg)};
    const [file, prefix] = process.argv.slice(2);
    const model = await loadModel(${JSON.stringify(model)});
    const index = model.loadIndex(readFileSync(file));
    index.addDocs([0, 1, 2].map((i) => ({ id: prefix + i, text: prefix + ' document ' + i + ' about cats' })));
    const { offset, bytes } = index.saveChanges();
    const target = offset === 0 ? file + '.new' : file;
    const fd = openSync(target, offset === 0 ? 'w' : 'r+');
    ftruncateSync(fd, offset);
    writeSync(fd, bytes, 0, bytes.length, offset);
    fsyncSync(fd);
    closeSync(fd);
    if (offset === 0) renameSync(target, file);
  `);
  try {
    const expected = new Set(docs('base', 20).map((d) => d.id));
    const viaServer = async (s, i) => {
      for (let batch = 0; batch < 6; batch++) {
        const documents = docs(`s${i}b${batch}-`, 3);
        assert.equal((await postJson(s, '/index/add', { documents })).status, 200);
        documents.forEach((d) => expected.add(d.id));
      }
    };
    const viaCli = async () => {
      for (let batch = 0; batch < 4; batch++) {
        const file = path.join(dir, `cli${batch}.jsonl`);
        const documents = docs(`cli${batch}-`, 3);
        writeFileSync(file, documents.map((d) => JSON.stringify(d)).join('\n') + '\n');
        const { code, stderr } = await run(swe, ['index', 'add', model, index.file, '--docs', file]);
        assert.equal(code, 0, stderr);
        documents.forEach((d) => expected.add(d.id));
      }
    };
    const viaJs = async () => {
      for (let batch = 0; batch < 3; batch++) {
        const { code, stderr } = await run(swe, ['index', 'lock', index.file, '--', process.execPath, js, index.file, `js${batch}-`]);
        assert.equal(code, 0, stderr);
        [0, 1, 2].forEach((i) => expected.add(`js${batch}-${i}`));
      }
    };
    await Promise.all([...servers.map(viaServer), viaCli(), viaJs()]);
    assert.deepEqual(new Set(readIndexIds(index.file)), expected);
    for (const s of servers) {
      const hits = await postJson(s, '/search', { query: 'cats', k: 1000 });
      assert.deepEqual(new Set(hits.json.hits.map((h) => h.id)), expected);
    }
  } finally {
    for (const s of servers) assert.equal(await s.stop(), 0);
    index.cleanup();
  }
});
