"""Semantic search over a few documents with the default English model, then the same documents
deduplicated and clustered. Run: python3 python/examples/search_docs.py"""
import swe

docs = {
    "guitar": "A man is playing a guitar on stage.",
    "piano": "A woman plays the piano in a concert hall.",
    "market": "The stock market fell sharply today.",
    "shares": "Shares dropped after the earnings report.",
    "kitten": "A kitten is sleeping on the sofa.",
    "cat": "A cat is napping on the couch.",
}

model = swe.load()
index = swe.Index(model)
index.add(list(docs), list(docs.values()), [{"length": len(text)} for text in docs.values()])

for query in ("someone making music", "finance news", "a sleepy pet"):
    best = index.search(query, k=2)
    print(f"{query!r}: " + ", ".join(f"{hit['id']} ({hit['score']:.2f})" for hit in best))

texts = list(docs.values())
print("kept after dedupe at 0.7:", model.dedupe(texts, threshold=0.7).texts)
print("clusters:", model.cluster(texts, k=3, seed=1).labels.tolist())
