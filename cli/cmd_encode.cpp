// swe encode, swe similarity: texts to vectors.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <cstdio>
#include <string>

#include "swe/util/args.h"
#include "swe/util/strings.h"
#include "commands.h"
#include "common.h"
#include "line_reader.h"
#include "swe/util/progress.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "swe encode writes little-endian .npy files by copying floats; add byte swapping for this target"
#endif

namespace swe::cli {
namespace {

constexpr const char* kEncodeUsage =
    "usage: swe encode MODEL [FILE|-] [-o OUT] [--format npy|jsonl] [--dims N]\n"
    "\n"
    "Encodes each line of FILE (default: stdin) as one vector, in line order (a line with no known word gives\n"
    "the zero vector). Streams: each JSON line is written as soon as its input line has arrived, and memory\n"
    "stays bounded on any input size (.npy from a stream goes through a temporary file for its header).\n"
    "\n"
    "options:\n"
    "  -o, --output OUT   write to OUT (default: JSON lines on stdout)\n"
    "  --format F         npy (float32 array of shape (lines, dims), NumPy format 1.0) or jsonl (one JSON\n"
    "                     array per line); default: from OUT's extension (.npy, .jsonl/.json/.ndjson)\n"
    "  --dims N           keep only the first N dimensions (renormalised); default: all\n";

constexpr const char* kSimilarityUsage =
    "usage: swe similarity MODEL TEXT TEXT [--dims N] [--json]\n"
    "\n"
    "Prints the cosine similarity of the two texts' vectors (0 when either has no known word).\n"
    "\n"
    "options:\n"
    "  --dims N   compare only the first N dimensions (renormalised)\n"
    "  --json     print {\"a\", \"b\", \"score\", \"known_words\": [A's, B's]} as one JSON object\n";

enum class Format { kNpy, kJsonl };

Format ChooseFormat(const util::ParsedArgs& parsed, const std::string& output, const std::string& command) {
  if (parsed.has("format")) {
    std::string f = parsed.get("format");
    if (f == "npy") return Format::kNpy;
    if (f == "jsonl") return Format::kJsonl;
    throw util::UsageError("--format must be npy or jsonl, not '" + f + "'", command);
  }
  if (output == "-") return Format::kJsonl;
  std::string lower = output;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (util::EndsWith(lower, ".npy")) return Format::kNpy;
  if (util::EndsWith(lower, ".jsonl") || util::EndsWith(lower, ".json") || util::EndsWith(lower, ".ndjson")) {
    return Format::kJsonl;
  }
  throw util::UsageError("cannot tell the format from '" + output + "': use --format npy|jsonl", command);
}

void WriteNpyHeader(Output& out, size_t rows, uint32_t dims) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                     std::to_string(dims) + "), }";
  size_t total = 10 + dict.size() + 1;  // magic + version + length, dict, '\n'
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  const uint16_t length = static_cast<uint16_t>(dict.size());
  const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<unsigned char>(length & 0xff),
                                      static_cast<unsigned char>(length >> 8)};
  out.Write(preamble, sizeof preamble);
  out.Write(dict.data(), dict.size());
}

void WriteJsonLines(Output& out, const float* vectors, size_t rows, uint32_t dims) {
  std::string line;
  for (size_t r = 0; r < rows; ++r) {
    line.assign("[");
    for (uint32_t c = 0; c < dims; ++c) {
      if (c) line.push_back(',');
      line += FormatFloat(vectors[r * dims + c]);
    }
    line += "]\n";
    out.Write(line.data(), line.size());
  }
}

// Where an .npy file's rows go when their number is not known in advance (stdin, a pipe): a temporary
// file, copied after the header once the count is known. Memory stays bounded either way.
class NpyRows {
 public:
  NpyRows(Output& out, int64_t count, uint32_t dims) : out_(out), dims_(dims), count_(count) {
    if (count_ >= 0) {
      WriteNpyHeader(out_, static_cast<size_t>(count_), dims_);
    } else if (!(spill_ = std::tmpfile())) {
      throw CliError(1, std::string("cannot create a temporary file: ") + std::strerror(errno));
    }
  }
  ~NpyRows() {
    if (spill_) std::fclose(spill_);
  }
  void Write(const float* rows, size_t n) {
    const size_t bytes = n * dims_ * sizeof(float);
    if (!spill_) return out_.Write(rows, bytes);
    if (std::fwrite(rows, 1, bytes, spill_) != bytes) throw CliError(1, "temporary file: write failed");
  }
  // Writes the spilled rows after their header; checks a known count.
  void Finish(size_t rows) {
    if (!spill_) {
      if (rows != static_cast<size_t>(count_)) throw CliError(1, "the input changed while it was read");
      return;
    }
    WriteNpyHeader(out_, rows, dims_);
    std::rewind(spill_);
    char buffer[1 << 16];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, spill_)) > 0) out_.Write(buffer, n);
    if (std::ferror(spill_)) throw CliError(1, "temporary file: read failed");
  }

 private:
  Output& out_;
  uint32_t dims_;
  int64_t count_;
  std::FILE* spill_ = nullptr;
};

}  // namespace

int RunEncode(const Args& args) {
  const std::string command = "swe encode";
  util::ParsedArgs parsed = util::ParseArgs(args, {{"output", 'o', true}, {"format", 0, true}, {"dims", 0, true}}, command);
  if (parsed.help) {
    std::fputs(kEncodeUsage, stdout);
    return 0;
  }
  if (parsed.positional.empty() || parsed.positional.size() > 2) throw util::UsageError("expected MODEL [FILE|-]", command);
  const std::string input = parsed.positional.size() == 2 ? parsed.positional[1] : "-";
  const std::string output = parsed.get("output", "-");
  Format format = ChooseFormat(parsed, output, command);
  if (format == Format::kNpy && output == "-" && isatty(STDOUT_FILENO)) {
    throw util::UsageError("refusing to write binary .npy to a terminal: use -o OUT.npy", command);
  }
  ModelPtr model = LoadModel(parsed.positional[0]);
  uint32_t dims = ResolveDims(model.get(), parsed.get("dims"), command);
  // A file is counted first (for the .npy header and the progress bar); a stream is not.
  const int64_t count = CountLines(input);
  LineReader in(input);
  Output out(output);
  std::unique_ptr<NpyRows> npy;
  if (format == Format::kNpy) npy = std::make_unique<NpyRows>(out, count, dims);

  constexpr size_t kBatch = 4096;
  swe_encode_params params = swe_encode_default_params();
  params.dims = dims;
  std::vector<std::string> lines;
  std::vector<swe_text> batch;
  std::vector<float> vectors;
  std::unique_ptr<util::Progress> progress;
  if (count >= 0) progress = std::make_unique<util::Progress>("encoding", static_cast<uint64_t>(count), "texts");
  size_t done = 0;
  for (bool more = true; more;) {
    // A batch is what has arrived: up to kBatch lines, but never waiting for more once one is in.
    lines.clear();
    std::string line;
    while (lines.size() < kBatch && (lines.empty() || in.Ready())) {
      if (!(more = in.Next(&line))) break;
      lines.push_back(std::move(line));
    }
    if (lines.empty()) break;
    batch.resize(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) batch[i] = {lines[i].data(), lines[i].size()};
    vectors.resize(lines.size() * size_t{dims});
    Check(swe_model_encode_batch(model.get(), batch.data(), batch.size(), &params, vectors.data(), vectors.size(),
                                nullptr));
    if (npy) {
      npy->Write(vectors.data(), lines.size());
    } else {
      WriteJsonLines(out, vectors.data(), lines.size(), dims);
      std::fflush(out.file());  // each vector as soon as its line has come
    }
    done += lines.size();
    if (progress) progress->Update(done);
  }
  if (progress) progress->Finish();
  if (npy) npy->Finish(done);
  out.Close();
  return 0;
}

int RunSimilarity(const Args& args) {
  const std::string command = "swe similarity";
  util::ParsedArgs parsed = util::ParseArgs(args, {{"dims", 0, true}, {"json", 0, false}}, command);
  if (parsed.help) {
    std::fputs(kSimilarityUsage, stdout);
    return 0;
  }
  if (parsed.positional.size() != 3) throw util::UsageError("expected MODEL TEXT TEXT", command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  swe_encode_params params = swe_encode_default_params();
  params.dims = ResolveDims(model.get(), parsed.get("dims"), command);
  const std::string& a = parsed.positional[1];
  const std::string& b = parsed.positional[2];
  float score = 0;
  Check(swe_model_compute_similarity(model.get(), a.data(), a.size(), b.data(), b.size(), &params, &score));
  uint32_t known[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::string& text = parsed.positional[1 + i];
    Check(swe_model_count_known_words(model.get(), text.data(), text.size(), &known[i]));
    if (known[i] == 0) std::fprintf(stderr, "swe: '%s' has no word the model knows: similarity 0\n", text.c_str());
  }
  if (parsed.has("json")) {
    PrintLine(JsonLine({{"a", a}, {"b", b}, {"score", JsonFloat(score)}, {"known_words", {known[0], known[1]}}}));
  } else {
    std::printf("%.6f\n", score);
  }
  return 0;
}

}  // namespace swe::cli
