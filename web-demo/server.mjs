// A tiny static file server for the demo (Node only, no framework): serves a directory on 127.0.0.1
// with the right MIME types (.mjs and .js as JavaScript, .wasm as application/wasm, which
// WebAssembly.instantiateStreaming requires), no directory listings and nothing outside the directory.
//
// usage: node web-demo/server.mjs [--port N] [--root DIR]   (defaults: 8080, web-demo/build/site;
//        port 0 picks a free one). Prints the URL; stops on Ctrl-C.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.swe': 'application/octet-stream',
  '.gz': 'application/gzip',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

const defaultRoot = join(dirname(fileURLToPath(import.meta.url)), 'build/site');

/** The file a URL path names under root (index.html for a directory), or null when it is outside. */
function filePath(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  const full = resolve(root, `.${path}`);
  if (full !== root && !full.startsWith(root + sep)) return null;
  return path.endsWith('/') ? join(full, 'index.html') : full;
}

async function handle(root, request, response) {
  const send = (status, text) => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
    response.end(request.method === 'HEAD' ? undefined : `${text}\n`);
  };
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'method not allowed');
  const path = filePath(root, new URL(request.url, 'http://127.0.0.1').pathname);
  if (path === null) return send(403, 'forbidden');
  let info;
  try {
    info = await stat(path);
  } catch {
    return send(404, 'not found');
  }
  if (info.isDirectory()) {
    response.writeHead(301, { Location: `${new URL(request.url, 'http://127.0.0.1').pathname}/` });
    return response.end();
  }
  response.writeHead(200, {
    'Content-Type': MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    // Cross-origin isolation: the page loads nothing from elsewhere, and it gives performance.now()
    // microsecond resolution (100 µs otherwise), which the demo's timings need.
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
  });
  if (request.method === 'HEAD') return response.end();
  createReadStream(path).on('error', () => response.destroy()).pipe(response);
}

/** Starts serving root on 127.0.0.1:port; resolves to { server, url } once it listens. */
export function startServer({ root = defaultRoot, port = 8080, host = '127.0.0.1' } = {}) {
  const dir = resolve(root);
  const server = createServer((request, response) => {
    handle(dir, request, response).catch(() => response.destroy());
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolvePromise({ server, url: `http://${host}:${server.address().port}/` });
    });
  });
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const port = Number(option('--port', process.env.PORT ?? 8080));
  const root = option('--root', defaultRoot);
  try {
    await stat(join(root, 'index.html'));
  } catch {
    console.error(`server: ${root}/index.html is missing (build the site: bash scripts/web-demo.sh)`);
    process.exit(1);
  }
  const { url } = await startServer({ root, port }).catch((error) => {
    console.error(`server: cannot listen on 127.0.0.1:${port}: ${error.message}`);
    process.exit(1);
  });
  console.log(`swe web demo: ${url}  (serving ${resolve(root)}; Ctrl-C stops)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
