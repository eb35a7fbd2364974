// Teachers behind one interface: a Sentence Transformer that, for a batch of sentences, gives
// (a) for each requested word span the mean of its last-layer token vectors (Eq. 1's inner mean over
// the word's subwords) and (b) the pooled sentence vector. Torch-free: implementations hide it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"
#include "teacher_token.h"  // TeacherToken (trainer/tokenizers)

namespace at {
class Tensor;  // torch::Tensor, declared only: this header stays torch-free
}

namespace swe::trainer {

struct WordSpan {
  uint32_t begin = 0, end = 0;  // byte range of a word in its sentence
};

// How the word vectors come from one padded batch of token vectors: output row rows[k] adds
// weights[k] x the vector at flat position positions[k] (sentence * L + token position). A span's
// vector is the mean of the tokens whose byte ranges overlap it; found[span] = 0 when none does.
struct SpanAlignment {
  std::vector<int64_t> rows, positions;
  std::vector<float> weights;
  std::vector<uint8_t> found;
  int64_t spans = 0;
};
// tokens[b] sit at positions b * L + first + 0, 1, ... of the batch; spans[b] are sentence b's words.
void AlignSpans(const std::vector<std::vector<TeacherToken>>& tokens, const std::vector<std::vector<WordSpan>>& spans,
                int64_t L, int64_t first, SpanAlignment* out);

struct TeacherOutput {
  uint32_t dims = 0;
  // One row per requested span (all sentences, in order): the mean of the last-layer vectors of the
  // teacher tokens that overlap the span. found[i] = 0 when no token does (e.g. truncated away).
  std::vector<float> word_vectors;
  std::vector<uint8_t> found;
  // One row per sentence: the teacher's pooled (and, per its config, normalised) sentence vector.
  std::vector<float> sentence_vectors;
};

class Teacher {
 public:
  virtual ~Teacher() = default;
  virtual uint32_t dims() const = 0;
  // A short description for provenance ("bert:path/to/model").
  virtual std::string name() const = 0;
  // `spans` may be null (sentence vectors only) or hold one list per sentence.
  virtual Status Encode(const std::vector<std::string>& sentences,
                        const std::vector<std::vector<WordSpan>>* spans, TeacherOutput* out) = 0;
  // The teacher's subword vocabulary and its normalisation, for inference-time OOV fallback.
  virtual SubwordVocab subword_vocab() const = 0;
};

struct TeacherOptions {
  std::string kind = "bert";   // "bert": a BERT-family Sentence Transformer directory;
                               // "use-lite": Universal Sentence Encoder Lite (TF.js graph, use_lite_teacher.h);
                               // "t5": a T5-encoder Sentence Transformer (Sentence-T5, GTR; t5_teacher.h)
  std::string path;
  std::string device = "auto"; // auto | cpu | cuda
  uint32_t max_tokens = 0;     // including [CLS]/[SEP] (bert), </s> (t5); 0 = the model's limit (use-lite: 128 pieces)
};

// A kind of teacher, as recipes name it (teacher.kind). Each is defined in its teacher's own file and
// registered with one line in teacher.cpp; nothing else in the trainer names a kind.
struct TeacherKind {
  const char* name;
  Status (*load)(const TeacherOptions& options, std::unique_ptr<Teacher>* out);
  // The teacher's subword vocabulary from its files alone (no weights loaded): the exported model's
  // fallback for out-of-vocabulary words.
  Status (*subword_vocab)(const TeacherOptions& options, SubwordVocab* out);
};

// The kind named `name`; an error listing the known kinds when there is none.
Status FindTeacherKind(const std::string& name, const TeacherKind** out);

// Loads the teacher of options.kind.
Status LoadTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out);

// The teacher's sentence vectors for `texts`, texts.size() x dims() floats into `out` in input order,
// encoded in batches of `batch_size` shortest first (less padding), with a progress line `label`.
Status EncodeSentences(Teacher& teacher, const std::vector<std::string>& texts, uint32_t batch_size,
                       const std::string& label, float* out);

// Torch helpers, implemented in device.cpp (so that callers need no torch headers).
// Resolves "auto" | "cpu" | "cuda" | "cuda:N" to a device name; "cuda" fails when this libtorch
// build or machine has no CUDA, "cuda:N" when there is no device N.
Status ResolveDevice(const std::string& requested, std::string* resolved);
// The number of CUDA devices libtorch can use (0 in a CPU-only build or on a machine without a GPU).
int CudaDeviceCount();
// Sets libtorch's intra-op threads (0 = leave as is) and the global seed.
void ConfigureTorch(int threads, uint64_t seed);
// The word vectors of `align` (align->spans x D floats, on the CPU) from a batch's token vectors
// flattened to [B * L, D] on any device.
std::vector<float> SpanMeans(const at::Tensor& flat_tokens, SpanAlignment* align);

}  // namespace swe::trainer
