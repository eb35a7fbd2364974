"""What the golden-fixture scripts (bert_golden.py, t5_golden.py) share: the sentences, random weights
far from the usual init, the Sentence-Transformers files they write beside a model, HF offsets as
UTF-8 byte offsets, library versions, and writing golden.json + golden.f32."""
import json
import os
import sys
import tempfile

LONG = ("The quick brown fox jumps over the lazy dog while the committee, after a long discussion about "
        "money, time and the results of its earlier decisions, finally agreed to move the vote until next "
        "spring, when more information would be available to every member of the board.")
# The sentences both fixtures encode, in this order; each script inserts its own (sentences_with).
SENTENCES = [
    "Hello world.",
    "A man is playing a guitar.",
    "The quick brown fox jumps over the lazy dog.",
    "Café Müller's crème brûlée costs €4.50!",
    "  leading and trailing spaces\tand\ttabs\n",
    "UPPER lower MiXeD cAsE",
    "我爱北京天安门。",
    "Numbers: 3.14159, 1,000,000 and 42%.",
    "I \u2764 pizza \U0001F355 so much",
    "e-mail someone@example.com or visit https://example.org/path?q=1&r=2",
    "a" * 120 + " ok",
    "Ünïcödé àccents, Ελληνικά and русский язык",
    "Don't stop\u2014believing\u2019s fine\u2026 «really»",
    LONG,
    "",
    "a",
    "zero\u200bwidth and soft\u00adhyphen and x\u0000y",
    "\u0130stanbul \u01c5 stra\u00dfe \ufb01ne",
    "ideographic\u3000space and nbsp\u00a0here",
    "Mr. Smith went to Washington, D.C., in 1999.",
    "unbelievably antidisestablishmentarianism",
    "こんにちは世界 and 한국어",
    "Cafe\u0301 with a combining accent",
]


def sentences_with(extra):
    """SENTENCES with extra[s] (a list) inserted right after each sentence s."""
    out = []
    for s in SENTENCES:
        out.append(s)
        out.extend(extra.get(s, ()))
    return out


def start(torch, seed, out):
    """Deterministic torch from the fixed seed; returns OUT as an absolute path and a scratch folder."""
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    return os.path.abspath(out), tempfile.mkdtemp()


def randomize(model, torch, seed, init):
    """Weights far from the usual init, so that attention is peaked and every term matters. init(name)
    says how a parameter is drawn: ("norm", _) 0.5 + U[0, 1); ("normal", s) s * N(0, 1); ("linear", s)
    s * N(0, 1) / sqrt(fan-in) for a [out, in] weight."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            kind, scale = init(name)
            if kind == "norm":
                p.copy_(0.5 + torch.rand(p.shape, generator=g))
            elif kind == "normal":
                p.copy_(scale * torch.randn(p.shape, generator=g))
            else:
                p.copy_(scale * torch.randn(p.shape, generator=g) / p.shape[1] ** 0.5)


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
