// Semantic search with a vector store from npm (Orama) and swe-embeddings' LangChain-style embeddings.
// usage: node examples/orama.mjs [model.swe] [query...]   (no model: the package swe-embeddings-model-en)
import { create, insertMultiple, search } from '@orama/orama';
import { SweEmbeddings } from 'swe-embeddings';

const [source, ...words] = process.argv.slice(2);
const embeddings = new SweEmbeddings({ source });
const docs = [
  'A man is playing a guitar on stage.',
  'The stock market fell sharply today.',
  'A chef is slicing onions in the kitchen.',
  'Heavy rain flooded the streets of the city.',
];
const query = words.length ? words.join(' ') : 'someone performs music';

const db = create({ schema: { text: 'string', embedding: `vector[${(await embeddings.model()).dims}]` } });
const vectors = await embeddings.embedDocuments(docs);
await insertMultiple(db, docs.map((text, i) => ({ text, embedding: vectors[i] })));
const results = await search(db, {
  mode: 'vector', vector: { value: await embeddings.embedQuery(query), property: 'embedding' },
  similarity: 0.3, limit: 3,
});
for (const hit of results.hits) console.log(`${hit.score.toFixed(3)}  ${hit.document.text}`);
