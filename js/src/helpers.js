// Helpers over sentence vectors (Float32Arrays of rows × dims, row-major), in plain JS: cosine,
// similarity matrices, near-duplicate groups and k-means. Model's rank/topk/filter/dedupe/cluster
// (model.js) encode texts and call these.
import { describe } from './checks.js';

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
 * representatives. Zero rows (texts without a known word) are never duplicates of anything.
 */
export function nearDuplicateGroups(vectors, dims, threshold) {
  const n = rowCount(vectors, dims, 'nearDuplicateGroups');
  if (typeof threshold !== 'number' || !(threshold >= -1 && threshold <= 1)) {
    throw new RangeError(`nearDuplicateGroups: threshold must be a number in [-1, 1], got ${threshold}`);
  }
  const squares = new Float64Array(n);
  for (let i = 0; i < n; ++i) squares[i] = dot(vectors, i, vectors, i, dims);
  const groups = [];
  for (let i = 0; i < n; ++i) {
    // A zero row joins no group, and no row joins a zero row's group (at a threshold <= 0 their
    // cosine, 0, would pass).
    const group = squares[i] === 0 ? undefined :
      groups.find((g) => squares[g[0]] !== 0 &&
                         cosineOf(dot(vectors, g[0], vectors, i, dims), squares[g[0]], squares[i]) >= threshold);
    if (group) group.push(i);
    else groups.push([i]);
  }
  return groups;
}

/**
 * k-means of the rows (Euclidean; on unit vectors this orders like cosine): `restarts` seeded
 * k-means++ starts (one random stream, drawn one start after another), each with Lloyd iterations
 * until no row changes cluster (or `iterations`); the start of lowest inertia wins (the earliest on
 * ties). One start can stop in a local optimum even on two clear topics, hence 4 by default.
 * Deterministic for a seed and restarts, and the same as the CLI's `swe cluster`.
 * Returns { labels: Int32Array (cluster of each row), centroids: Float32Array (k × dims), inertia
 * (sum of squared distances to the centroids), iterations (of the winning start) }.
 */
export function kmeans(vectors, dims, k, { seed = 0, iterations = 100, restarts = 4 } = {}) {
  const n = rowCount(vectors, dims, 'kmeans');
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`kmeans: k must be an integer in [1, ${n}], got ${k}`);
  if (!Number.isInteger(iterations) || iterations < 1) throw new RangeError('kmeans: iterations must be a positive integer');
  if (!Number.isInteger(restarts) || restarts < 1 || restarts > 1000) {
    throw new RangeError(`kmeans: restarts must be an integer in [1, 1000], got ${restarts}`);
  }
  const random = mulberry32(seed);
  let best = kmeansOnce(vectors, n, dims, k, random, iterations);
  for (let r = 1; r < restarts; ++r) {
    const result = kmeansOnce(vectors, n, dims, k, random, iterations);
    if (result.inertia < best.inertia) best = result;
  }
  return best;
}

// One k-means++ start drawn from `random`, then Lloyd rounds.
function kmeansOnce(vectors, n, dims, k, random, iterations) {
  const centroids = new Float32Array(k * dims);
  const nearest = new Float64Array(n).fill(Infinity);  // squared distance to the nearest chosen centre
  let pick = Math.floor(random() * n);
  for (let c = 0; c < k; ++c) {
    for (let d = 0; d < dims; ++d) centroids[c * dims + d] = vectors[pick * dims + d];
    let sum = 0;
    for (let i = 0; i < n; ++i) {
      nearest[i] = Math.min(nearest[i], distance2(vectors, i, centroids, c, dims));
      sum += nearest[i];
    }
    // k-means++: the next centre is a row drawn with probability ∝ its squared distance (the last
    // row off the centres if rounding leaves none); when every row sits on a centre (duplicates), any.
    let target = random() * sum;
    pick = 0;
    for (let i = 0; i < n; ++i) {
      if (nearest[i] === 0) continue;
      pick = i;
      target -= nearest[i];
      if (target < 0) break;
    }
  }
  const labels = new Int32Array(n).fill(-1);
  let rounds = 0;
  for (let changed = true; changed && rounds < iterations; ++rounds) {
    changed = assign(vectors, centroids, labels, n, k, dims);
    if (changed) updateCentroids(vectors, centroids, labels, n, k, dims);
  }
  let inertia = 0;
  for (let i = 0; i < n; ++i) inertia += distance2(vectors, i, centroids, labels[i], dims);
  return { labels, centroids, inertia, iterations: rounds };
}

// Each row to its nearest centroid (the lower number on ties); true when a label changed.
function assign(vectors, centroids, labels, n, k, dims) {
  let changed = false;
  for (let i = 0; i < n; ++i) {
    let best = 0;
    let bestDistance = Infinity;
    for (let c = 0; c < k; ++c) {
      const d = distance2(vectors, i, centroids, c, dims);
      if (d < bestDistance) { best = c; bestDistance = d; }
    }
    if (labels[i] !== best) { labels[i] = best; changed = true; }
  }
  return changed;
}

// Centroids as the means of their rows; an emptied cluster keeps its centroid.
function updateCentroids(vectors, centroids, labels, n, k, dims) {
  const sums = new Float64Array(k * dims);
  const counts = new Uint32Array(k);
  for (let i = 0; i < n; ++i) {
    const c = labels[i];
    ++counts[c];
    for (let d = 0; d < dims; ++d) sums[c * dims + d] += vectors[i * dims + d];
  }
  for (let c = 0; c < k; ++c) {
    if (counts[c] === 0) continue;
    for (let d = 0; d < dims; ++d) centroids[c * dims + d] = sums[c * dims + d] / counts[c];
  }
}

function dot(a, i, b, j, dims) {
  let s = 0;
  for (let d = 0, x = i * dims, y = j * dims; d < dims; ++d) s += a[x + d] * b[y + d];
  return s;
}

function distance2(a, i, b, j, dims) {
  let s = 0;
  for (let d = 0, x = i * dims, y = j * dims; d < dims; ++d) {
    const t = a[x + d] - b[y + d];
    s += t * t;
  }
  return s;
}

// Cosine from a dot product and the two squared norms, as dot / sqrt(|a|² |b|²): exactly 1 for two
// identical vectors (dot = |a|² = |b|², and sqrt(x · x) = x), which dedupe's threshold 1 must merge;
// a product of inverse norms can round below 1. 0 when either is the zero vector.
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

/** A small deterministic PRNG (mulberry32): a function giving uniform floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
