// Helpers over sentence vectors (Float32Arrays of rows × dims, row-major): cosine and similarity
// matrices in plain JS; near-duplicate groups and k-means by the library (the C API's swe_vectors_*,
// one implementation for every binding, on either backend). Model's dedupe and cluster (model.js)
// encode texts and call these.
import { describe } from './checks.js';
import { startedBinding } from './backend.js';

/** Cosine similarity of two vectors of equal length; 0 when either is the zero vector. */
export function cosine(a, b) {
  checkVectors(a, 'cosine: a');
  checkVectors(b, 'cosine: b');
  if (a.length !== b.length) throw new RangeError(`cosine: vectors of ${a.length} and ${b.length} floats`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return cosineOf(dot, na, nb);
}

/**
 * Cosine similarities of every row of `a` with every row of `b` (default: `a` itself): a Float32Array
 * of rows(a) × rows(b), row-major. Zero rows have similarity 0 with everything.
 */
export function similarityMatrix(a, b, dims) {
  if (typeof b === 'number' && dims === undefined) [b, dims] = [a, b];
  const n = rowCount(a, dims, 'similarityMatrix: a');
  const m = rowCount(b, dims, 'similarityMatrix: b');
  const inverseA = inverseNorms(a, n, dims);
  const inverseB = b === a ? inverseA : inverseNorms(b, m, dims);
  const out = new Float32Array(n * m);
  for (let i = 0; i < n; ++i) {
    for (let j = 0; j < m; ++j) out[i * m + j] = dot(a, i, b, j, dims) * inverseA[i] * inverseB[j];
  }
  return out;
}

/**
 * Near-duplicate groups of the rows: each row joins the first earlier group whose first row (its
 * representative) has cosine ≥ threshold with it, else starts a group. Every member is thus within
 * the threshold of its representative. Returns the groups as arrays of row numbers, in order of their
 * representatives. Zero rows (texts without a known word) are never duplicates of anything. Computed
 * by the library (swe_vectors_near_duplicates, as `swe dedupe`), on the rows as float32: the library
 * must have started (await initialize() or loadModel() first).
 */
export function nearDuplicateGroups(vectors, dims, threshold) {
  rowCount(vectors, dims, 'nearDuplicateGroups');
  if (typeof threshold !== 'number' || !(threshold >= -1 && threshold <= 1)) {
    throw new RangeError(`nearDuplicateGroups: threshold must be a number in [-1, 1], got ${threshold}`);
  }
  return started('nearDuplicateGroups').vectorsNearDuplicates(vectors, dims, threshold);
}

/**
 * k-means of the nonzero rows (Euclidean; on unit vectors this orders like cosine): `restarts` seeded
 * k-means++ starts (one random stream, drawn one start after another), each with Lloyd iterations
 * until no row changes cluster (or `iterations`); the start of lowest inertia wins (the earliest on
 * ties). One start can stop in a local optimum even on two clear topics, hence 4 by default. A zero
 * row (a text without a known word) is in no cluster: label -1. Computed by the library
 * (swe_vectors_kmeans), so a seed gives the clusters of `swe cluster` and of the Python package; the
 * library must have started (await initialize() or loadModel() first).
 * Returns { labels: Int32Array (cluster of each row), centroids: Float32Array (k × dims), inertia
 * (sum of squared distances to the centroids), iterations (of the winning start) }.
 */
export function kmeans(vectors, dims, k, { seed = 0, iterations = 100, restarts = 4 } = {}) {
  const n = rowCount(vectors, dims, 'kmeans');
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`kmeans: k must be an integer in [1, ${n}], got ${k}`);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 0xffffffff) {
    throw new RangeError('kmeans: iterations must be a positive integer');
  }
  if (!Number.isInteger(restarts) || restarts < 1 || restarts > 1000) {
    throw new RangeError(`kmeans: restarts must be an integer in [1, 1000], got ${restarts}`);
  }
  if (typeof seed !== 'number') throw new TypeError(`kmeans: seed must be a number, got ${describe(seed)}`);
  return started('kmeans').vectorsKMeans(vectors, dims, k, seed >>> 0, restarts, iterations);
}

// The binding of the started module; an Error saying what to do before it has started.
function started(what) {
  const binding = startedBinding();
  if (binding === null) {
    throw new Error(`${what}: the library has not started: await initialize() (or loadModel()) first`);
  }
  return binding;
}

function dot(a, i, b, j, dims) {
  let s = 0;
  for (let d = 0, x = i * dims, y = j * dims; d < dims; ++d) s += a[x + d] * b[y + d];
  return s;
}

// Cosine from a dot product and the two squared norms, as dot / sqrt(|a|² |b|²): exactly 1 for two
// identical vectors (dot = |a|² = |b|², and sqrt(x · x) = x); a product of inverse norms can round
// below 1. 0 when either is the zero vector.
function cosineOf(dot, squareA, squareB) {
  return squareA === 0 || squareB === 0 ? 0 : dot / Math.sqrt(squareA * squareB);
}

function inverseNorms(vectors, n, dims) {
  const out = new Float64Array(n);
  for (let i = 0; i < n; ++i) {
    const norm = Math.sqrt(dot(vectors, i, vectors, i, dims));
    out[i] = norm === 0 ? 0 : 1 / norm;
  }
  return out;
}

function checkVectors(value, what) {
  if (!(value instanceof Float32Array || value instanceof Float64Array || Array.isArray(value))) {
    throw new TypeError(`${what}: expected a Float32Array, Float64Array or array of numbers, got ${describe(value)}`);
  }
}

function rowCount(vectors, dims, what) {
  checkVectors(vectors, what);
  if (!Number.isInteger(dims) || dims < 1) throw new TypeError(`${what}: dims must be a positive integer, got ${dims}`);
  if (vectors.length % dims !== 0) {
    throw new RangeError(`${what}: ${vectors.length} floats are not a whole number of ${dims}-dimensional rows`);
  }
  return vectors.length / dims;
}
