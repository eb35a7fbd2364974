// Compiled (never run) by types.test.js: the declarations in index.d.ts describe the API as used here;
// the @ts-expect-error lines must stay errors.
import { SweEmbeddings, backend, cosine, createWorkerPool, kmeans, loadIndex, loadModel, nearDuplicateGroups,
         similarityMatrix } from 'swe-embeddings';
import type { Doc, Index, KMeansResult, LoadProgress, Model, RankedText, SearchHit, WorkerPool } from 'swe-embeddings';

async function use(): Promise<void> {
  const controller = new AbortController();
  const model: Model = await loadModel();
  await loadModel({ cache: true, onProgress: (p: LoadProgress) => console.log(p.loaded, p.total ?? 0) });
  await loadModel('model.swe', { cache: 'my-models', signal: controller.signal, wasmUrl: '/swe.wasm' });
  // @ts-expect-error: cache is a boolean or a name
  await loadModel('model.swe', { cache: 1 });
  const { vectors, knownWords }: { vectors: Float32Array; knownWords: Uint32Array } = model.encodeWithInfo(['a', 'b']);
  const ranked: RankedText[] = model.rank('q', ['a', 'b'], { minScore: 0.2, dims: 64 });
  const top: RankedText[] = model.topk('q', ['a'], 1);
  const kept: string[] = model.filter('q', ['a'], 0.5);
  const { texts, groups }: { texts: string[]; groups: number[][] } = model.dedupe(['a', 'b'], 0.9);
  const clusters: KMeansResult = model.cluster(['a', 'b'], 2, { seed: 1, iterations: 10 });
  const matrix: Float32Array = model.similarityMatrix(['a'], ['b', 'c']);
  const index = model.createIndex();
  const hits: SearchHit[] = index.search('q', 5, { minScore: 0.1 });
  const more: SearchHit[] = index.search('q', { k: 5, minScore: 0.1 });
  index.addDocs([{ id: 'a', text: 'a text', metadata: { tag: 1 } }, { id: 'b', text: 'b' }]);
  // @ts-expect-error: a document's id is a string
  index.addDocs([{ id: 1, text: 'a' }]);
  const doc: Doc = index.get('a');
  const ids: (number | string)[] = index.ids();
  const batch: SearchHit[][] = index.searchBatch(['q', 'r'], { k: 3, minScore: 0.2 });
  const approx: SearchHit[] = index.search('q', { k: 3, candidates: 30 });
  const approxBatch: SearchHit[][] = index.searchBatch(['q'], 3, { candidates: 30, minScore: 0 });
  // @ts-expect-error: candidates is the index's option, not rank's
  model.rank('q', ['a'], { candidates: 30 });
  const stored: string | undefined = batch[0][0].text;
  const removed: boolean = index.remove('a') && index.has(2) && index.docCount > 0;
  const score: number = cosine(vectors, vectors) + similarityMatrix(vectors, 4)[0] + kmeans(vectors, 4, 1).inertia;
  const dupes: number[][] = nearDuplicateGroups(vectors, 4, 0.9);
  const later: Float32Array = await model.encodeAsync(['a', 'b'], { dims: 64 });
  const which: 'native' | 'wasm' = await backend();
  const prebuilt: Index<number> = await loadIndex(loadModel('model.swe'), 'docs.swi', { cache: true, onProgress: (p) => p.loaded });
  const bigIds: Index<bigint> = await loadIndex(model, new Uint8Array(8), { ids: 'bigint' });
  // @ts-expect-error: an index needs its model
  await loadIndex('docs.swi');
  const pool: WorkerPool = await createWorkerPool('model.swe', { workers: 4, cache: true });
  const pooled: Float32Array = await pool.encode(['a'], { dims: pool.dims });
  index.addDocs([{ id: 'c', text: 'c' }], { vectors: pooled });
  await pool.close();
  const embeddings = new SweEmbeddings({ model, dims: 64 });
  const docs: number[][] = await embeddings.embedDocuments(['a']);
  const query: number[] = await embeddings.embedQuery('a');
  console.log(knownWords, ranked, top, kept, texts, groups, clusters, matrix, hits, more, score, dupes, docs, query,
              doc, ids, stored, removed, approx, approxBatch, later, which, prebuilt, bigIds);
}
void use;
