#!/usr/bin/env python3
"""Golden outputs of tiny random T5-encoder Sentence Transformers (the Sentence-T5 layout: T5 encoder,
mean pooling, a Dense projection without bias, normalisation), computed by Hugging Face `transformers`
(cross-checked with `sentence-transformers` when it loads the directory), for the parity test of
swe-trainer's `t5` teacher.

Needs Python with torch, transformers, tokenizers, sentencepiece (+ protobuf) and safetensors. No
network and no downloaded weights: the models are random with a fixed seed, and the tokenizer is a real
SentencePiece unigram model trained here on TEXT (T5's settings: pad 0, </s> 1, <unk> 2, nmt_nfkc
normalisation, so its tokenizer.json carries a real precompiled charsmap), converted to tokenizer.json
by transformers' T5Converter as T5's own is (100 <extra_id_N> sentinels added, </s> appended to every
text), or, where that converter does not run (transformers 5), written in the same layout from the
SentencePiece proto (golden.json "versions.tokenizer_json" says which).

Writes into OUT (default tests/trainer/fixtures/t5_golden):
  model/        the v1.1 / Sentence-T5 kind: feed_forward_proj "gated-gelu" (gelu_new), f32 weights
  model_relu/   the original T5 kind: feed_forward_proj "relu"
  model_bf16/   model/'s weights stored as bfloat16 (its reference runs those weights in float32)
      each: config.json, model.safetensors, tokenizer.json (+ tokenizer_config.json, special tokens),
      spiece.model, modules.json, sentence_bert_config.json (max_seq_length 48), 1_Pooling (mean),
      2_Dense (32 -> 24, no bias, identity), 3_Normalize: a Sentence-Transformers directory;
      model_relu/ and model_bf16/ link tokenizer.json and spiece.model to model/'s (the same bytes)
  golden.json   versions, settings, sentences, the HF tokenizer's ids (</s> included, truncated to
                max_seq_length) and UTF-8 byte offsets of each token (</s>: [0, 0]), sentencepiece's own
                ids for comparison, cross-check figures
  golden.f32    little-endian float32, per model in the order above: mean-pooled last-layer vectors
                [S x 32] (before Dense), the Sentence Transformer's output [S x 24] (after Dense and
                normalisation), then the last-layer token vectors of every sentence [len(ids[i]) x 32]
The reference runs each sentence alone (no padding), float32, CPU, eager attention.

Regenerate (deterministic given the library versions; seconds):
  python3 trainer/tools/t5_golden.py --text FILE [--out tests/trainer/fixtures/t5_golden]
where FILE is plain text to train the tokenizer on. The committed fixture's (golden.json "text") was
made from the shared training files (none of them an evaluation set), 29,000 lines:
  S=../shared/data/train; { zstd -dc $S/en-sentences.txt.zst | head -n 20000;
    cut -f2 $S/parallel/en-de.wmt_newstest.tsv | head -n 3000;
    cut -f2 $S/parallel/en-ja.coursera_lectures.tsv | head -n 3000;
    cut -f2 $S/parallel/en-zh.coursera_lectures.tsv | head -n 3000; } > t5-tokenizer-text.txt
and the script ran on the GPU machine (transformers 5.17, sentencepiece 0.2.2; no GPU needed).
"""
import argparse
import base64
import json
import os
import shutil

from golden_io import (byte_offsets, f32, randomize, remove_extras, sentences_with, start,
                       versions as golden_versions, write_golden, write_st_files)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_SEQ = 48
D_MODEL, D_KV, D_FF, LAYERS, HEADS, DENSE_OUT = 32, 8, 64, 2, 4, 24
BUCKETS, MAX_DISTANCE = 32, 128
SPM_VOCAB = 2000
SEED = 4321

SENTENCES = sentences_with({
    "  leading and trailing spaces\tand\ttabs\n": ["many     spaces   between\n\nwords"],
    "a": [" "],
    "ideographic\u3000space and nbsp\u00a0here": [
        "Full-width \uff21\uff22\uff23\uff11\uff12\uff13 and half-width \uff76\uff80\uff76\uff85",
        "circled \u2460\u2461 super x\u00b2 roman \u216b fraction \u00bd"],
    "こんにちは世界 and 한국어": [
        "Der schnelle braune Fuchs springt über den faulen Hund.",
        "Sentinels <extra_id_0> and <extra_id_99> and </s> inside text, <unk> too."],
    "Cafe\u0301 with a combining accent": ["\u2028line\u2029separators\u0085and\u000bcontrols"],
})


def train_spm(text, workdir, spm):
    """A unigram SentencePiece model with T5's special ids and normalisation."""
    prefix = os.path.join(workdir, "spiece")
    spm.SentencePieceTrainer.train(
        input=text, model_prefix=prefix, vocab_size=SPM_VOCAB, model_type="unigram",
        pad_id=0, eos_id=1, unk_id=2, bos_id=-1, pad_piece="<pad>", eos_piece="</s>", unk_piece="<unk>",
        character_coverage=0.995, normalization_rule_name="nmt_nfkc", num_threads=1,
        input_sentence_size=200000, shuffle_input_sentence=False, minloglevel=2)
    return prefix + ".model"


def converter_tokenizer(spm_path, sp):
    """transformers' own T5Converter (what wrote T5's published tokenizer.json files), fed the attributes
    it reads of a slow T5 tokenizer."""
    from transformers.convert_slow_tokenizer import T5Converter

    class SlowT5:
        vocab_file = spm_path
        _extra_ids = 100
        extra_ids = 100
        legacy = True
        add_prefix_space = True

        def convert_tokens_to_ids(self, token):
            return sp.piece_to_id(token)

    return T5Converter(SlowT5()).converted()


def written_tokenizer(spm_path, sp, tokenizers):
    """The same layout written from the SentencePiece model proto (current SpmConverter + T5Converter)."""
    from sentencepiece import sentencepiece_model_pb2 as pb
    proto = pb.ModelProto()
    proto.ParseFromString(open(spm_path, "rb").read())
    vocab = [[p.piece, p.score] for p in proto.pieces] + [["<extra_id_%d>" % i, 0.0] for i in range(99, -1, -1)]
    charsmap = base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode()
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    eos = sp.piece_to_id("</s>")
    special = [("<pad>", sp.piece_to_id("<pad>")), ("</s>", eos), ("<unk>", sp.piece_to_id("<unk>"))]
    special += [("<extra_id_%d>" % i, len(proto.pieces) + 99 - i) for i in range(100)]
    tok = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t, i in sorted(special, key=lambda x: x[1])],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": charsmap},
            {"type": "Strip", "strip_left": False, "strip_right": True},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"}]},
        "pre_tokenizer": meta,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]}}},
        "decoder": meta,
        "model": {"type": "Unigram", "unk_id": sp.piece_to_id("<unk>"), "vocab": vocab, "byte_fallback": False},
    }
    return tokenizers.Tokenizer.from_str(json.dumps(tok))


def fast_tokenizer(spm_path, sp, transformers, tokenizers):
    """A fast T5 tokenizer for the trained SentencePiece model: transformers' converter when it runs and
    agrees with sentencepiece on a plain sentence, else the tokenizer.json written from the proto."""
    from transformers import PreTrainedTokenizerFast
    probe = "Hello world, this is a plain sentence."
    want = sp.encode(probe) + [sp.piece_to_id("</s>")]
    tried = []
    for name, make in (("T5Converter", lambda: converter_tokenizer(spm_path, sp)),
                       ("written from the spm proto", lambda: written_tokenizer(spm_path, sp, tokenizers))):
        try:
            backend = make()
            got = backend.encode(probe).ids
            if got == want:
                # Special tokens are matched in raw text (a no-op where the layout lists them already).
                backend.add_special_tokens([tokenizers.AddedToken(t, special=True, normalized=False) for t in
                                            ["<pad>", "</s>", "<unk>"] + ["<extra_id_%d>" % i for i in range(100)]])
                fast = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="</s>", unk_token="<unk>",
                                               pad_token="<pad>", model_max_length=MAX_SEQ)
                sentinel = fast("<extra_id_0>")["input_ids"]
                if (fast(probe)["input_ids"] == want and len(fast) == sp.get_piece_size() + 100 and
                        sentinel == [sp.get_piece_size() + 99, want[-1]]):
                    return fast, name, tried
                tried.append("%s: wrapped ids %s, size %d, sentinel %s" % (name, fast(probe)["input_ids"],
                                                                          len(fast), sentinel))
                continue
            else:
                tried.append("%s: ids %s, want %s" % (name, got, want))
        except Exception as e:  # noqa: BLE001
            tried.append("%s: %s: %s" % (name, type(e).__name__, e))
    raise RuntimeError("no fast T5 tokenizer agrees with sentencepiece: " + "; ".join(tried))


def init(name):
    """T5's parameters for golden_io.randomize: layer norms, the relative attention bias (large, so it
    matters), embeddings, then linear weights (T5 does not scale q.k by 1/sqrt(d_kv))."""
    if "layer_norm" in name:
        return "norm", 1.0
    if "relative_attention_bias" in name:
        return "normal", 2.0
    if name.startswith("shared") or "embed_tokens" in name:
        return "normal", 1.0
    return "linear", 0.7 if (".q." in name or ".k." in name) else 1.0


def write_dense_files(d, dense_weight):
    """2_Dense (no bias, identity activation) and 3_Normalize, after golden_io's Transformer and Pooling."""
    from safetensors.torch import save_file
    os.makedirs(os.path.join(d, "2_Dense"), exist_ok=True)
    json.dump({"in_features": D_MODEL, "out_features": DENSE_OUT, "bias": False,
               "activation_function": "torch.nn.modules.linear.Identity"},
              open(os.path.join(d, "2_Dense", "config.json"), "w"), indent=2)
    save_file({"linear.weight": dense_weight.contiguous()}, os.path.join(d, "2_Dense", "model.safetensors"))
    os.makedirs(os.path.join(d, "3_Normalize"), exist_ok=True)


def save_model(model, d):
    try:
        model.save_pretrained(d, safe_serialization=True)
    except TypeError:  # transformers 5 always writes safetensors
        model.save_pretrained(d)


def link_shared_files(out, variants):
    """The other variants' tokenizer files equal model/'s: one copy in the repository, links to it."""
    for key in list(variants)[1:]:
        for name in ("tokenizer.json", "spiece.model"):
            path, first = os.path.join(out, key, name), os.path.join(out, "model", name)
            with open(path, "rb") as a, open(first, "rb") as b:
                if a.read() != b.read():
                    continue
            os.remove(path)
            os.symlink(os.path.join("..", "model", name), path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--text", required=True, help="plain text to train the SentencePiece model on")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "trainer", "fixtures", "t5_golden"))
    args = ap.parse_args()

    import sentencepiece as spm
    import torch
    import transformers
    import tokenizers
    from transformers import T5Config, T5EncoderModel

    out, tmp = start(torch, SEED, args.out)
    spm_path = train_spm(args.text, tmp, spm)
    sp = spm.SentencePieceProcessor(model_file=spm_path)
    fast, tok_class, tok_tried = fast_tokenizer(spm_path, sp, transformers, tokenizers)
    V = len(fast)  # pieces + the 100 sentinels

    variants = {"model": ("gated-gelu", torch.float32), "model_relu": ("relu", torch.float32),
                "model_bf16": ("gated-gelu", torch.bfloat16)}
    if os.path.exists(out):
        for sub in variants:
            shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    g = torch.Generator().manual_seed(SEED + 1)
    dense = torch.randn(DENSE_OUT, D_MODEL, generator=g) / D_MODEL ** 0.5
    built = {}
    for key, (ff, dtype) in variants.items():
        d = os.path.join(out, key)
        if ff in built:  # the bf16 variant stores the gated model's weights
            model = built[ff]
        else:
            cfg = T5Config(vocab_size=V, d_model=D_MODEL, d_kv=D_KV, d_ff=D_FF, num_layers=LAYERS,
                           num_heads=HEADS, relative_attention_num_buckets=BUCKETS,
                           relative_attention_max_distance=MAX_DISTANCE, dropout_rate=0.0,
                           layer_norm_epsilon=1e-6, feed_forward_proj=ff, is_encoder_decoder=False,
                           use_cache=False)
            model = T5EncoderModel(cfg).eval()
            randomize(model, torch, SEED, init)
            built[ff] = model
        save_model(model.to(dtype), d)
        model.float()
        fast.save_pretrained(d)
        shutil.copy(spm_path, os.path.join(d, "spiece.model"))
        write_st_files(d, D_MODEL, MAX_SEQ, [("2_Dense", "Dense"), ("3_Normalize", "Normalize")])
        write_dense_files(d, dense)
        remove_extras(d, ("generation_config.json", "README.md"))

    # Ids and offsets as sentence-transformers tokenizes (truncation at max_seq_length, </s> kept last).
    ids, offsets, spm_ids, spm_differs = [], [], [], []
    for i, s in enumerate(SENTENCES):
        enc = fast(s, truncation=True, max_length=MAX_SEQ, return_offsets_mapping=True)
        ids.append(enc["input_ids"])
        offsets.append(byte_offsets(s, enc["offset_mapping"]))
        ref = sp.encode(s)
        ref = ref[:MAX_SEQ - 1] + [sp.eos_id()]
        spm_ids.append(ref)
        if ref != enc["input_ids"]:
            spm_differs.append(i)

    log = {"spm_vs_hf_differ_on": spm_differs, "tokenizer_attempts_failed": tok_tried}
    blobs = []
    ref_pooled = None
    for key in variants:
        d = os.path.join(out, key)
        ref = T5EncoderModel.from_pretrained(d, attn_implementation="eager").float().eval()
        pooled, tokens = [], []
        with torch.no_grad():
            for s_ids in ids:
                x = torch.tensor([s_ids])
                h = ref(input_ids=x, attention_mask=torch.ones_like(x)).last_hidden_state[0]
                tokens.append(h)
                pooled.append(h.mean(0))
            pooled = torch.stack(pooled)
            final = torch.nn.functional.normalize(pooled @ dense.T, dim=1)
            # Batched with padding must agree with one sentence at a time (the mask reaches the bias).
            batch = fast(SENTENCES, truncation=True, max_length=MAX_SEQ, padding=True, return_tensors="pt")
            hb = ref(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
            m = batch["attention_mask"].unsqueeze(-1).float()
            pooled_b = (hb * m).sum(1) / m.sum(1)
        log[key] = {"max_abs_diff_batched_pooled": (pooled_b - pooled).abs().max().item(),
                    "max_abs_token_value": max(t.abs().max().item() for t in tokens)}
        try:
            from sentence_transformers import SentenceTransformer
            st = SentenceTransformer(d, device="cpu")
            emb = torch.tensor(st.encode(SENTENCES, batch_size=8, convert_to_numpy=True))
            log[key].update({"st_max_abs_diff_final": (emb - final).abs().max().item(),
                             "st_min_cosine_final": torch.nn.functional.cosine_similarity(emb, final, dim=1).min().item(),
                             "st_modules": [type(m).__name__ for m in st],
                             "st_max_seq_length": st.max_seq_length})
        except Exception as e:  # noqa: BLE001
            log[key]["sentence_transformers"] = "not checked: %s: %s" % (type(e).__name__, e)
        if key == "model":
            ref_pooled = pooled
        elif key == "model_bf16":
            log[key]["min_cosine_pooled_vs_f32_weights"] = torch.nn.functional.cosine_similarity(
                pooled, ref_pooled, dim=1).min().item()
        blobs.append(f32(pooled))
        blobs.append(f32(final))
        for t in tokens:
            blobs.append(f32(t))

    versions = golden_versions(torch, transformers, tokenizers)
    versions.update({"sentencepiece": spm.__version__, "tokenizer_json": tok_class})
    golden = {
        "what": "tiny random T5-encoder Sentence Transformers; reference outputs of HF transformers (trainer/tools/t5_golden.py)",
        "versions": versions,
        "seed": SEED,
        "text": os.path.basename(args.text),
        "config": {"d_model": D_MODEL, "d_kv": D_KV, "d_ff": D_FF, "layers": LAYERS, "heads": HEADS,
                   "buckets": BUCKETS, "max_distance": MAX_DISTANCE, "dense_out": DENSE_OUT, "vocab": V,
                   "max_seq_length": MAX_SEQ},
        "models": list(variants),
        "layout": "per model: pooled [S x d_model], final [S x dense_out], then tokens of each sentence "
                  "[len(ids[i]) x d_model], f32 LE",
        "checks": log,
        "sentences": SENTENCES,
        "ids": ids,
        "offsets": offsets,
        "spm_ids": spm_ids,
    }
    shutil.rmtree(tmp)
    link_shared_files(out, variants)
    write_golden(out, golden, blobs)


if __name__ == "__main__":
    main()
