// The binding (js/src/binding.js) against swe.h: every C function it calls has the signature swe.h
// declares, every struct it lays out has swe.h's layout in wasm32 and in LP64 (the native addon),
// every function of swe.h is bound or named below with the reason it is not, and
// wasm/exported_functions.json (the list both backends build from) exports exactly what the binding
// calls; the addon offers each function, and off the JS thread those of ASYNC_FUNCTIONS. A function
// or struct added to or changed in swe.h fails here until the JS follows.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ASYNC_FUNCTIONS, FUNCTIONS, LAYOUTS } from '../src/binding.js';
import { initialize } from '../src/backend.js';
import { jsRoot, nativeAddon, repoRoot } from './helpers.js';

// swe.h's functions the package does not call, and why.
const kNotBound = {
  swe_load_default_params: 'loads pass NULL: the default limits',
  swe_encode_default_params: 'the JS writes swe_encode_params itself',
  swe_search_default_params: 'the JS writes swe_search_params itself',
  swe_rank_default_params: 'the JS writes swe_rank_params itself',
  swe_kmeans_default_params: 'the JS writes swe_kmeans_params itself',
  swe_model_load_from_bytes: 'loadModel hands its bytes over with swe_model_load_from_buffer',
  swe_model_load_from_file: 'no file system in the wasm module (FILESYSTEM=0), and both backends make the same calls',
  swe_index_load_from_file: 'no file system in the wasm module',
  swe_index_save_to_file: 'no file system in the wasm module',
  swe_index_compact_to_file: 'no file system in the wasm module',
  swe_index_refresh_from_file: 'no file system in the wasm module',
  swe_index_reserve: 'adding refuses an entry past the file limit as it comes; the package reserves nothing',
  swe_model_get_word: 'not part of the package API',
  swe_model_get_rows: 'not part of the package API (the Python package\'s Model.embedding)',
  swe_model_count_known_words: 'encodeWithInfo reads the counts from swe_model_encode_batch',
  swe_encoder_new: 'one thread: the calling thread\'s kept encoder serves every call',
  swe_encoder_free: 'see swe_encoder_new',
  swe_encoder_encode_text: 'see swe_encoder_new',
  swe_encoder_encode_batch: 'see swe_encoder_new',
};
// swe.h's structs the package never reads or writes, and why.
const kNotLaidOut = { swe_load_params: 'loads pass NULL for the default limits' };

const header = readFileSync(join(repoRoot, 'libswe/include/swe.h'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');

// A C type as the binding's kinds name it in wasm32 (struct by value: "struct NAME", which no kind matches).
function kind(type) {
  const t = type.replace(/\bconst\b/g, '').trim();
  if (t.includes('*')) return 'ptr';
  const kinds = { swe_status: 'status', int32_t: 'i32', uint32_t: 'u32', uint64_t: 'u64', size_t: 'size',
                  float: 'f32', double: 'f64', void: 'void' };
  return kinds[t] ?? `struct ${t}`;
}

/** { name: "return(param, ...)" } of every SWE_API function of swe.h. */
function headerFunctions() {
  const out = {};
  for (const m of header.matchAll(/SWE_API\s+([^;(]*?)\b(swe_\w+)\s*\(([^)]*)\)\s*;/g)) {
    const params = m[3].trim() === 'void' ? [] : m[3].split(',').map((p) => kind(p.trim().replace(/\w+$/, '')));
    out[m[2]] = `${kind(m[1])}(${params.join(', ')})`;
  }
  return out;
}

const kScalar = { uint32_t: 4, int32_t: 4, float: 4, uint64_t: 8, double: 8 };

/** { name: { size, field: offset, ... } } of every struct of swe.h, laid out with `word`-byte pointers and size_t. */
function headerLayouts(word) {
  const out = {};
  const align = {};
  for (const m of header.matchAll(/typedef struct (\w+) \{([^}]*)\} \1;/g)) {
    const layout = {};
    let offset = 0;
    let maxAlign = 1;
    for (const field of m[2].split(';').map((f) => f.trim()).filter(Boolean)) {
      const [, type, name] = field.match(/^(.*?)\s*\b(\w+)$/);
      const t = type.replace(/\bconst\b/g, '').trim();
      const [size, a] = t.includes('*') || t === 'size_t' ? [word, word] : kScalar[t] ? [kScalar[t], kScalar[t]]
        : [out[t].size, align[t]];
      offset = Math.ceil(offset / a) * a;
      layout[name === 'size' ? 'size_' : name] = offset;
      offset += size;
      maxAlign = Math.max(maxAlign, a);
    }
    out[m[1]] = { size: Math.ceil(offset / maxAlign) * maxAlign, ...layout };
    align[m[1]] = maxAlign;
  }
  return out;
}

test('every bound function has the signature swe.h declares', () => {
  const declared = headerFunctions();
  assert.ok(Object.keys(declared).length > 40, 'the header parser found too few functions');
  for (const [name, signature] of Object.entries(FUNCTIONS)) {
    assert.ok(name in declared, `${name} is not in swe.h`);
    assert.equal(signature, declared[name], name);
  }
});

test('every function of swe.h is bound or named as not bound', () => {
  const declared = headerFunctions();
  for (const name of Object.keys(declared)) {
    assert.ok(name in FUNCTIONS || name in kNotBound, `${name} (swe.h) is neither bound in binding.js nor listed here`);
  }
  for (const name of Object.keys(kNotBound)) {
    assert.ok(name in declared, `${name} is listed as not bound but is not in swe.h`);
    assert.ok(!(name in FUNCTIONS), `${name} is bound and listed as not bound`);
  }
});

test('every struct layout is swe.h\'s in wasm32 and LP64, and every struct of swe.h is laid out or named', () => {
  for (const [model, word] of [['wasm32', 4], ['lp64', 8]]) {
    const declared = headerLayouts(word);
    assert.deepEqual(declared.swe_token, { size: 16, begin: 0, end: 4, row: 8, match: 12 });  // the parser itself
    assert.equal(declared.swe_doc.size, 6 * word);
    for (const [name, layout] of Object.entries(LAYOUTS[model])) assert.deepEqual(layout, declared[name], `${model} ${name}`);
    for (const name of Object.keys(declared)) {
      assert.ok(name in LAYOUTS[model] || name in kNotLaidOut, `struct ${name} (swe.h) is neither in LAYOUTS.${model} nor listed here`);
    }
  }
});

test('wasm/exported_functions.json exports what the binding calls, and the backend has each', async () => {
  const exported = JSON.parse(readFileSync(join(repoRoot, 'wasm/exported_functions.json'), 'utf8'));
  assert.deepEqual(exported, ['_malloc', '_free', ...Object.keys(FUNCTIONS).map((name) => `_${name}`)]);
  const binding = await initialize();
  for (const name of Object.keys(FUNCTIONS)) assert.equal(typeof binding.c[name], 'function', name);
});

test('the native addon offers exactly the binding\'s functions, and ASYNC_FUNCTIONS off the JS thread', () => {
  const addon = nativeAddon();
  assert.deepEqual(Object.keys(addon.functions).sort(), Object.keys(FUNCTIONS).sort());
  assert.deepEqual(Object.keys(addon.async).sort(), [...ASYNC_FUNCTIONS].sort());
  for (const name of ASYNC_FUNCTIONS) assert.ok(name in FUNCTIONS, name);
  // Strict arguments: a wrong kind or number is a TypeError, never a call with garbage.
  assert.throws(() => addon.functions.swe_dtype_name('0'), TypeError);
  assert.throws(() => addon.functions.swe_dtype_name(0.5), TypeError);
  assert.throws(() => addon.functions.swe_dtype_name(), TypeError);
  assert.throws(() => addon.functions.swe_index_contains(0, -1n), TypeError);
  assert.equal(addon.cstring(addon.functions.swe_dtype_name(0)), 'f32');
});

test('only the binding calls the C API, and it calls only what it lists, each at least once', () => {
  const src = join(jsRoot, 'src');
  for (const file of readdirSync(src).filter((f) => f !== 'binding.js')) {
    const source = readFileSync(join(src, file), 'utf8');
    assert.doesNotMatch(source, /\b_swe_\w+|\.(c|async|functions)\.swe_\w+|\.m\._/, `${file} calls the C API directly`);
  }
  const binding = readFileSync(join(src, 'binding.js'), 'utf8');
  const called = new Set([...binding.matchAll(/\bc\.(swe_\w+)/g)].map((m) => m[1]));
  assert.deepEqual([...called].sort(), Object.keys(FUNCTIONS).sort());
  const calledAsync = new Set([...binding.matchAll(/\basync\.(swe_\w+)/g)].map((m) => m[1]));
  assert.deepEqual([...calledAsync].sort(), [...ASYNC_FUNCTIONS].sort());
});

test('the modules of js/src import one another without a cycle', () => {
  const src = join(jsRoot, 'src');
  const imports = {};
  for (const file of readdirSync(src)) {
    const source = readFileSync(join(src, file), 'utf8');
    imports[file] = [...source.matchAll(/^(?:import|export) [^;]* from '\.\/([^']+)'/gm)].map((m) => m[1]);
    assert.doesNotMatch(source, /import\(['"]\.\//, `${file} imports a module of the package lazily`);
  }
  const done = new Set();
  const visit = (file, path) => {
    assert.ok(!path.includes(file), `import cycle: ${[...path, file].join(' -> ')}`);
    if (done.has(file)) return;
    for (const next of imports[file] ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of Object.keys(imports)) visit(file, []);
});
