// Any bytes as a documents file (the first byte picks .jsonl or plain text; the rest are its lines):
// each line is read by the swe program's own reader (cli/doc_line.h), which must accept it or throw
// its CliError, never crash; what it accepts is valid UTF-8 with JSON metadata within the depth limit,
// goes into an index with its documents, and survives the index writer's round trip.
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "doc_line.h"
#include "fuzz_input.h"
#include "swe/index.h"
#include "swe/index_docs.h"
#include "swe/unicode.h"
#include "swe/util/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool json = data[0] & 1;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::unique_ptr<swe::Index> index;
  if (!swe::Index::Create(4, swe::DType::kF32, &index).ok()) std::abort();
  swe::IndexDocs docs;
  const float vector[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  uint64_t entry = 0;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    swe::cli::DocInput doc;
    try {
      doc = swe::cli::ParseDocLine(std::string(text.substr(begin, end - begin)), json, "fuzz:1");
    } catch (const swe::cli::CliError&) {
      begin = end + 1;
      continue;
    }
    begin = end + 1;
    for (const std::string* part : {&doc.id, &doc.text, &doc.metadata}) {
      if (!swe::unicode::IsValidUtf8(*part)) std::abort();
    }
    if (!doc.metadata.empty() &&
        (!swe::util::JsonDepthWithin(doc.metadata) || !nlohmann::json::accept(doc.metadata))) {
      std::abort();
    }
    if (doc.id.empty()) doc.id = "line" + std::to_string(entry);
    uint64_t same = 0;
    if (docs.Find(doc.id, &same)) continue;  // a repeated id: ReadDocInputs refuses it
    swe::IndexDoc stored{std::move(doc.id), std::move(doc.text), std::move(doc.metadata)};
    if (!docs.Put(entry, std::move(stored)).ok() || !index->Add(entry, vector).ok()) std::abort();
    ++entry;
  }
  swe::fuzz::CheckSaveRoundTrip(*index, docs);
  return 0;
}
