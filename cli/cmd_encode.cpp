// swe encode, swe similarity: texts to vectors.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>

#include "swe/util/args.h"
#include "commands.h"
#include "common.h"
#include "swe/util/progress.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "swe encode writes little-endian .npy files by copying floats; add byte swapping for this target"
#endif

namespace swe::cli {
namespace {

constexpr const char* kEncodeUsage =
    "usage: swe encode MODEL [FILE|-] [-o OUT] [--format npy|jsonl] [--dims N]\n"
    "\n"
    "Encodes each line of FILE (default: stdin) as one vector, in line order (an empty line gives the zero\n"
    "vector).\n"
    "\n"
    "options:\n"
    "  -o, --output OUT   write to OUT (default: JSON lines on stdout)\n"
    "  --format F         npy (float32 array of shape (lines, dims), NumPy format 1.0) or jsonl (one JSON\n"
    "                     array per line); default: from OUT's extension (.npy, .jsonl/.json/.ndjson)\n"
    "  --dims N           keep only the first N dimensions (renormalised); default: all\n";

constexpr const char* kSimilarityUsage =
    "usage: swe similarity MODEL TEXT TEXT [--dims N]\n"
    "\n"
    "Prints the cosine similarity of the two texts' vectors (0 when either has no known word).\n"
    "\n"
    "options:\n"
    "  --dims N   compare only the first N dimensions (renormalised)\n";

enum class Format { kNpy, kJsonl };

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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
  if (EndsWith(lower, ".npy")) return Format::kNpy;
  if (EndsWith(lower, ".jsonl") || EndsWith(lower, ".json") || EndsWith(lower, ".ndjson")) return Format::kJsonl;
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
  std::vector<std::string> lines = ReadLines(input);

  Output out(output);
  if (format == Format::kNpy) WriteNpyHeader(out, lines.size(), dims);
  constexpr size_t kBatch = 4096;
  swe_encode_params params = swe_encode_default_params();
  params.dims = dims;
  std::vector<float> vectors;
  std::vector<swe_text> batch;
  util::Progress progress("encoding", lines.size(), "texts");
  for (size_t start = 0; start < lines.size(); start += kBatch) {
    size_t n = std::min(kBatch, lines.size() - start);
    batch.resize(n);
    for (size_t i = 0; i < n; ++i) batch[i] = {lines[start + i].data(), lines[start + i].size()};
    vectors.resize(n * size_t{dims});
    Check(swe_model_encode_batch(model.get(), batch.data(), n, &params, vectors.data(), vectors.size()));
    if (format == Format::kNpy) {
      out.Write(vectors.data(), vectors.size() * sizeof(float));
    } else {
      WriteJsonLines(out, vectors.data(), n, dims);
    }
    progress.Update(start + n);
  }
  progress.Finish();
  out.Close();
  return 0;
}

int RunSimilarity(const Args& args) {
  const std::string command = "swe similarity";
  util::ParsedArgs parsed = util::ParseArgs(args, {{"dims", 0, true}}, command);
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
  std::printf("%.6f\n", score);
  return 0;
}

}  // namespace swe::cli
