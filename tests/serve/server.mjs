import http from 'node:http';
// Starts `swe serve` on a free port of 127.0.0.1 (18000-18999) for the tests, and what they share:
// the model, `swe encode`'s vectors, raw HTTP requests.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const swe = process.env.SWE ?? path.join(root, 'build/native/bin/swe');
export const model = path.join(root, 'models/swe-en-use-lite-large-para.swe');

// A running server: { url, port, process, stderr(), stop(signal) → exit code }.
export async function startServer(args = [], { attempts = 10 } = {}) {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = 18000 + Math.floor(Math.random() * 1000);
    const child = spawn(swe, ['serve', model, '--port', String(port), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
    const started = await Promise.race([
      exited.then(() => false),
      (async () => {
        while (!stderr.includes('listening on')) await new Promise((r) => setTimeout(r, 20));
        return true;
      })(),
    ]);
    if (!started) {
      if (stderr.includes('cannot listen')) continue;  // the port was taken: another one
      throw new Error(`swe serve did not start: ${stderr}`);
    }
    return {
      url: `http://127.0.0.1:${port}`, port, process: child, stderr: () => stderr, exited,
      async stop(signal = 'SIGTERM') { child.kill(signal); return exited; },
    };
  }
  throw new Error('no free port in 18000-18999');
}

// `swe encode`'s vectors of `texts` as Float32Arrays (JSON lines hold each float's shortest text).
export function sweEncode(texts, dims) {
  const out = execFileSync(swe, ['encode', model, '--format', 'jsonl', ...(dims ? ['--dims', String(dims)] : [])],
                           { input: texts.join('\n') + '\n' });
  return out.toString().trim().split('\n').map((line) => Float32Array.from(JSON.parse(line)));
}

export async function postJson(server, route, body, headers = {}) {
  const res = await fetch(server.url + route, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  return answer(res.status, await res.text(), res.headers);
}

// An answer as the tests read it; json is null when the body is not JSON (the test decides whether
// that is wrong).
function answer(status, text, headers) {
  let json = null;
  try { json = JSON.parse(text); } catch { /* left null */ }
  return { status, json, text, headers };
}

// postJson on a connection of its own, closed after the answer: no keep-alive socket is reused, so
// only the server's own behaviour shows (the overload test's many concurrent requests).
export function postJsonOnce(server, route, body) {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(server.url + route, {
      method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': data.length, connection: 'close' },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(answer(res.statusCode, Buffer.concat(chunks).toString(), new Headers(res.headers))));
    });
    req.on('error', reject);
    req.end(data);
  });
}

// Writes `bytes` on a fresh connection and resolves with what came back before the server closed it
// (or with what came within `waitMs`).
export function rawRequest(server, bytes, { waitMs = 10000, keepOpen = false } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => { socket.destroy(); resolve({ received, closed: false }); }, waitMs);
    socket.on('data', (d) => { received += d; });
    socket.on('error', () => {});
    socket.on('close', () => { clearTimeout(timer); resolve({ received, closed: true }); });
    socket.write(bytes, () => { if (!keepOpen) socket.end(); });
  });
}

export function readIndexIds(indexPath) {
  return execFileSync(swe, ['index', 'ids', indexPath]).toString().split('\n').filter(Boolean);
}

export function sameBits(a, b) {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength),
                                                  Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

export { readFileSync };
