// An embeddings class with LangChain.js's interface (embedDocuments, embedQuery), duck-typed: it can be
// passed wherever LangChain (or a library with the same convention) takes an `Embeddings`, without a
// dependency on it.
import { describe } from './checks.js';
import { loadModel } from './load.js';

export class SweEmbeddings {
  #model;
  #dims;

  /**
   * options.model: a loaded Model (or a promise of one); without it, the model is loaded on first use
   * with loadModel(options.source, options.loadOptions) (no source: the default model package).
   * options.dims as in model.encode().
   */
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`SweEmbeddings: options must be an object, got ${describe(options)}`);
    }
    for (const key of Object.keys(options)) {
      if (!['model', 'source', 'loadOptions', 'dims'].includes(key)) throw new TypeError(`SweEmbeddings: unknown option "${key}"`);
    }
    const { model, source, loadOptions = {}, dims = 0 } = options;
    this.#model = model !== undefined ? Promise.resolve(model) : loadModel(source, loadOptions);
    this.#model.catch(() => {});  // reported by the first embed call, not as an unhandled rejection
    this.#dims = dims;
  }

  /** The model in use (loaded on first need). */
  model() { return this.#model; }

  /** One vector (an array of numbers) per text. Texts without a known word give zero vectors. */
  async embedDocuments(texts) {
    const model = await this.#model;
    const vectors = model.encode(texts, { dims: this.#dims });
    const dims = texts.length === 0 ? 0 : vectors.length / texts.length;
    return Array.from({ length: texts.length }, (_, i) => Array.from(vectors.subarray(i * dims, (i + 1) * dims)));
  }

  /** The vector of one query, as an array of numbers. */
  async embedQuery(text) {
    const model = await this.#model;
    return Array.from(model.encode(String(text), { dims: this.#dims }));
  }
}
