#!/usr/bin/env python3
"""Golden outputs of a tiny random BERT Sentence Transformer, computed by Hugging Face `transformers`
(and cross-checked with `sentence-transformers`), for the parity test of swe-trainer's `bert` teacher
(tests/trainer/bert_golden_test.cpp).

Needs Python with torch, transformers, tokenizers and safetensors (sentence-transformers optional: when
present, its own encode() of the written directory is compared with the reference too). No network, no
downloaded weights: the model is created here, randomly initialised with a fixed seed, and its
tokenizer is a subset of a real WordPiece tokenizer.json (all-MiniLM-L6-v2's bert-base-uncased
vocabulary: special tokens, single characters of a few scripts with their ## forms, the 1,000 most
frequent words, 300 frequent ## pieces: 1,877 pieces), so the fixture stays small (752 KB) while the
normaliser, pre-tokenizer, WordPiece and post-processor are the real ones.

Writes into OUT (default tests/trainer/fixtures/bert_golden):
  model/       config.json, model.safetensors (f32), tokenizer.json (+ tokenizer_config.json,
               special_tokens_map.json), modules.json, sentence_bert_config.json (max_seq_length 48),
               1_Pooling/config.json (mean): a Sentence-Transformers directory
  model_f16/   the same model saved with float16 weights
  golden.json  versions, settings, the sentences, the HF tokenizer's ids (with [CLS]/[SEP], truncated
               to max_seq_length) and byte offsets of every token in the UTF-8 text, cross-check figures
  golden.f32   little-endian float32: for model/ then model_f16/ (whose reference runs the f16 weights
               in float32): pooled mean vectors [sentences x hidden], then the last-layer token vectors
               of every sentence in order [tokens_i x hidden] (tokens include [CLS] and [SEP])
The reference runs each sentence alone (no padding), float32, CPU, eager attention.

Regenerate (deterministic given the library versions; seconds):
  python3 trainer/tools/bert_golden.py [--tokenizer ../shared/data/tokenizers/all-MiniLM-L6-v2/tokenizer.json]
                                       [--out tests/trainer/fixtures/bert_golden]
The committed fixture was made on a machine with torch/transformers (see golden.json "versions").
"""
import argparse
import json
import os
import shutil

from golden_io import (byte_offsets, f32, randomize, remove_extras, sentences_with, start,
                       versions as golden_versions, write_golden, write_st_files)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_SEQ = 48
HIDDEN, LAYERS, HEADS, INTERMEDIATE, POSITIONS = 32, 2, 4, 64, 64
SEED = 1234

SENTENCES = sentences_with({"こんにちは世界 and 한국어": ["Put the [MASK] here and [CLS] there."]})


def build_tokenizer(source_path):
    """A subset of a real BERT tokenizer.json: same normaliser, pre-tokenizer, post-processor, decoder."""
    src = json.load(open(source_path, encoding="utf-8"))
    vocab = src["model"]["vocab"]
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    specials = {t["content"] for t in src["added_tokens"]}

    def keep_char(c):
        o = ord(c)
        return (o < 0x250 or 0x370 <= o < 0x400 or 0x400 <= o < 0x500 or 0x1100 <= o < 0x1200 or
                0x3040 <= o < 0x30A0 or 0x2000 <= o < 0x2070 or c in "北京天安门中国人大")

    words = [p for p, i in by_id if i >= 1996 and not p.startswith("##") and len(p) > 1][:1000]
    conts = [p for p, i in by_id if p.startswith("##") and len(p) > 3][:300]
    keep = set(specials) | set(words) | set(conts)
    for p, _ in by_id:
        if len(p) == 1 and keep_char(p):
            keep.add(p)
        if len(p) == 3 and p.startswith("##") and keep_char(p[2]):
            keep.add(p)
    new_vocab = {}
    for p, _ in by_id:  # original order, re-numbered densely
        if p in keep:
            new_vocab[p] = len(new_vocab)
    tok = dict(src)
    tok["model"] = dict(src["model"], vocab=new_vocab)
    tok["added_tokens"] = [dict(t, id=new_vocab[t["content"]]) for t in src["added_tokens"]]
    post = json.loads(json.dumps(src["post_processor"]))
    for name, st in post.get("special_tokens", {}).items():
        st["ids"] = [new_vocab[t] for t in st["tokens"]]
    tok["post_processor"] = post
    tok["truncation"] = None
    tok["padding"] = None
    return tok


def init(name):
    """BERT's parameters for golden_io.randomize: LayerNorm, biases, embeddings, then linear weights
    (query and key scaled up)."""
    if "LayerNorm.weight" in name:
        return "norm", 1.0
    if "LayerNorm.bias" in name or name.endswith(".bias"):
        return "normal", 0.2
    if "embeddings" in name:
        return "normal", 1.0
    return "linear", 2.0 if ("query" in name or "key" in name) else 1.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", default=os.path.join(ROOT, "..", "shared", "data", "tokenizers",
                                                        "all-MiniLM-L6-v2", "tokenizer.json"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "trainer", "fixtures", "bert_golden"))
    args = ap.parse_args()

    import torch
    import transformers
    import tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    out, tmp = start(torch, SEED, args.out)
    tok_path = os.path.join(tmp, "tokenizer.json")
    json.dump(build_tokenizer(args.tokenizer), open(tok_path, "w", encoding="utf-8"), ensure_ascii=False)
    fast = PreTrainedTokenizerFast(tokenizer_file=tok_path, unk_token="[UNK]", sep_token="[SEP]",
                                   pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]",
                                   model_max_length=MAX_SEQ, do_lower_case=True)
    V = fast.backend_tokenizer.get_vocab_size()
    cfg = BertConfig(vocab_size=V, hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                     intermediate_size=INTERMEDIATE, max_position_embeddings=POSITIONS, type_vocab_size=2,
                     hidden_act="gelu", layer_norm_eps=1e-12, hidden_dropout_prob=0.0,
                     attention_probs_dropout_prob=0.0)
    model = BertModel(cfg).eval()
    randomize(model, torch, SEED, init)

    if os.path.exists(out):
        for sub in ("model", "model_f16"):
            shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    dirs = {"model": os.path.join(out, "model"), "model_f16": os.path.join(out, "model_f16")}
    model.save_pretrained(dirs["model"], safe_serialization=True)
    model.half().save_pretrained(dirs["model_f16"], safe_serialization=True)
    model.float()
    for d in dirs.values():
        fast.save_pretrained(d)
        write_st_files(d, HIDDEN, MAX_SEQ)
        remove_extras(d)

    # Token ids and offsets: the HF tokenizer as sentence-transformers calls it (truncation at max_seq_length).
    ids, offsets = [], []
    for s in SENTENCES:
        enc = fast(s, truncation=True, max_length=MAX_SEQ, return_offsets_mapping=True)
        ids.append(enc["input_ids"])
        offsets.append(byte_offsets(s, enc["offset_mapping"]))

    log = {}
    blobs = []
    for key in ("model", "model_f16"):
        ref = BertModel.from_pretrained(dirs[key], attn_implementation="eager").float().eval()  # f16 -> f32 is exact
        sdpa = BertModel.from_pretrained(dirs[key], attn_implementation="sdpa").float().eval()
        pooled, tokens = [], []
        max_sdpa = 0.0
        with torch.no_grad():
            for s_ids in ids:
                x = torch.tensor([s_ids])
                h = ref(input_ids=x, attention_mask=torch.ones_like(x)).last_hidden_state[0]
                h2 = sdpa(input_ids=x, attention_mask=torch.ones_like(x)).last_hidden_state[0]
                max_sdpa = max(max_sdpa, (h - h2).abs().max().item())
                tokens.append(h)
                pooled.append(h.mean(0))
        pooled = torch.stack(pooled)
        log[key] = {"max_abs_diff_eager_vs_sdpa": max_sdpa,
                    "max_abs_token_value": max(t.abs().max().item() for t in tokens)}
        # sentence-transformers on the directory as written (batched, padded), when installed.
        try:
            from sentence_transformers import SentenceTransformer
            st = SentenceTransformer(dirs[key], device="cpu")
            emb = torch.tensor(st.encode(SENTENCES, batch_size=8, convert_to_numpy=True))
            cos = torch.nn.functional.cosine_similarity(emb, pooled, dim=1)
            toks = st.encode(SENTENCES, batch_size=8, output_value="token_embeddings")
            tok_diff = max((torch.as_tensor(a).float() - b).abs().max().item() for a, b in zip(toks, tokens))
            log[key].update({"st_max_abs_diff_pooled": (emb - pooled).abs().max().item(),
                             "st_min_cosine_pooled": cos.min().item(), "st_max_abs_diff_tokens": tok_diff,
                             "st_max_seq_length": st.max_seq_length})
        except Exception as e:  # noqa: BLE001
            log[key]["sentence_transformers"] = "not checked: %s: %s" % (type(e).__name__, e)
        blobs.append(f32(pooled))
        for t in tokens:
            blobs.append(f32(t))
        if key == "model":
            f32_pooled = pooled
        else:
            log[key]["min_cosine_pooled_vs_f32_weights"] = torch.nn.functional.cosine_similarity(
                pooled, f32_pooled, dim=1).min().item()

    versions = golden_versions(torch, transformers, tokenizers)
    golden = {
        "what": "tiny random BERT Sentence Transformer; reference outputs of HF transformers (trainer/tools/bert_golden.py)",
        "versions": versions,
        "seed": SEED,
        "config": {"hidden": HIDDEN, "layers": LAYERS, "heads": HEADS, "intermediate": INTERMEDIATE,
                   "positions": POSITIONS, "vocab": V, "max_seq_length": MAX_SEQ},
        "models": ["model", "model_f16"],
        "layout": "per model: pooled [S x hidden], then tokens of each sentence [len(ids[i]) x hidden], f32 LE",
        "checks": log,
        "sentences": SENTENCES,
        "ids": ids,
        "offsets": offsets,
    }
    shutil.rmtree(tmp)
    write_golden(out, golden, blobs)


if __name__ == "__main__":
    main()
