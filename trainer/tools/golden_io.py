"""What the golden-fixture scripts (bert_golden.py, t5_golden.py) share: the Sentence-Transformers
files they write beside a model, HF offsets as UTF-8 byte offsets, library versions, and writing
golden.json + golden.f32."""
import json
import os
import sys


def byte_offsets(text, offsets):
    """HF's character offsets (Python str indices) as UTF-8 byte offsets."""
    at = [0]
    for ch in text:
        at.append(at[-1] + len(ch.encode("utf-8")))
    return [[at[b], at[e]] for b, e in offsets]


def write_st_files(d, dim, max_seq, extra_modules=()):
    """modules.json (Transformer, mean Pooling, then extra_modules as (path, type name)),
    sentence_bert_config.json and 1_Pooling/config.json."""
    mods = [("", "Transformer"), ("1_Pooling", "Pooling")] + list(extra_modules)
    json.dump([{"idx": i, "name": str(i), "path": path, "type": "sentence_transformers.models." + kind}
               for i, (path, kind) in enumerate(mods)],
              open(os.path.join(d, "modules.json"), "w"), indent=2)
    json.dump({"max_seq_length": max_seq, "do_lower_case": False},
              open(os.path.join(d, "sentence_bert_config.json"), "w"), indent=2)
    os.makedirs(os.path.join(d, "1_Pooling"), exist_ok=True)
    json.dump({"word_embedding_dimension": dim, "pooling_mode_cls_token": False,
               "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
               "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
               "pooling_mode_lasttoken": False, "include_prompt": True},
              open(os.path.join(d, "1_Pooling", "config.json"), "w"), indent=2)


def remove_extras(d, names=("vocab.txt", "generation_config.json", "README.md")):
    """Files save_pretrained writes that the fixture does not need."""
    for extra in names:
        if os.path.exists(os.path.join(d, extra)):
            os.remove(os.path.join(d, extra))


def versions(*modules):
    """Python's and each module's version, and sentence-transformers' when it is installed."""
    v = {"python": sys.version.split()[0]}
    for m in modules:
        v[m.__name__] = m.__version__
    try:
        import sentence_transformers
        v["sentence_transformers"] = sentence_transformers.__version__
    except Exception:  # noqa: BLE001
        pass
    return v


def f32(tensor):
    """A tensor's values as little-endian float32 bytes (golden.f32's layout)."""
    return tensor.contiguous().numpy().astype("<f4").tobytes()


def write_golden(out, golden, blobs):
    """golden.json and golden.f32 (the blobs in order), then a summary on stdout."""
    json.dump(golden, open(os.path.join(out, "golden.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=1)
    with open(os.path.join(out, "golden.f32"), "wb") as f:
        for b in blobs:
            f.write(b)
    print(json.dumps({"out": out, "versions": golden["versions"], "checks": golden["checks"],
                      "vocab": golden["config"]["vocab"], "tokens": sum(len(i) for i in golden["ids"])}, indent=1))
