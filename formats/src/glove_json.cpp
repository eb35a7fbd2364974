// `swe convert --from glove-json`: the wink-embeddings JSON layout, parsed with a SAX handler.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "chunked_file.h"
#include "swe/formats/readers.h"

namespace swe::formats {
namespace {

using Json = nlohmann::json;

// Tracks where in the document the parser is and keeps the rows of the words wanted.
class WinkHandler : public nlohmann::json_sax<Json> {
 public:
  WinkHandler(const WordFilter& keep, size_t top) : keep_(keep), top_(top) {}

  bool null() override { return Scalar(); }
  bool boolean(bool) override { return Scalar(); }
  bool number_integer(number_integer_t v) override { return Number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Number(v); }
  bool binary(binary_t&) override { return Scalar(); }
  bool string(string_t& s) override {
    if (in_words_ && depth_ == 2) ListWord(s);
    return Scalar();
  }
  bool key(string_t& k) override {
    if (depth_ == 1) root_key_ = k;
    if (in_vectors_ && depth_ == 2) row_word_ = k;
    return true;
  }
  bool start_object(std::size_t) override { return Open(true); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(false); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    if (error_.empty()) error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }
  WordVectors Result();

 private:
  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  bool Scalar() { return !in_row_ || Fail("vector of '" + row_word_ + "' holds a value that is not a number"); }
  bool Number(double v);
  bool Open(bool object);
  bool Close();
  void ListWord(const std::string& word);
  bool StartRow();
  bool EndRow();
  size_t RowLength() const;

  const WordFilter& keep_;
  size_t top_;
  std::string error_;
  int depth_ = 0;
  std::string root_key_, row_word_;
  bool in_words_ = false, in_vectors_ = false, in_row_ = false, keep_row_ = false, words_done_ = false;
  int64_t dimensions_ = -1, l2_index_ = -1, word_index_ = -1;
  uint32_t dims_ = 0;  // of the vectors, fixed by "dimensions" or the first row
  uint64_t listed_ = 0, rows_ = 0;  // entries of "words" and of "vectors"
  // "words": the selected words in order, and what they map to.
  std::vector<std::string> selected_;
  std::unordered_set<std::string> selected_set_;
  // Rows kept: their words, values (dims_ each) and positions.
  std::vector<std::string> row_words_;
  std::vector<float> row_values_;
  std::unordered_map<std::string, size_t> row_of_;
  size_t row_length_ = 0;
  bool row_bad_value_ = false;
  size_t row_bad_position_ = 0;
};

bool WinkHandler::Open(bool object) {
  if (depth_ == 0 && !object) return Fail("the top level is an array, not a wink-embeddings JSON object");
  if (in_row_) return Fail("vector of '" + row_word_ + "' is not a flat array of numbers");
  if (depth_ == 1 && !object && root_key_ == "words") in_words_ = true;
  if (depth_ == 1 && object && root_key_ == "vectors") in_vectors_ = true;
  if (depth_ == 2 && in_vectors_) {
    if (object) return Fail("vector of '" + row_word_ + "' is an object, not an array");
    ++depth_;
    return StartRow();
  }
  ++depth_;
  return true;
}

bool WinkHandler::Close() {
  --depth_;
  if (in_row_ && depth_ == 2) return EndRow();
  if (depth_ == 1 && in_words_) {
    in_words_ = false;
    words_done_ = true;
  }
  if (depth_ == 1) in_vectors_ = false;
  return true;
}

bool WinkHandler::Number(double v) {
  if (in_row_) {
    if (keep_row_) {
      float f = static_cast<float>(v);
      if (row_length_ < dims_ || dims_ == 0) row_values_.push_back(f);
      if (!std::isfinite(f) && !row_bad_value_ && (dims_ == 0 || row_length_ < dims_)) {
        row_bad_value_ = true;
        row_bad_position_ = row_length_;
      }
    }
    ++row_length_;
    return true;
  }
  if (depth_ == 1) {
    int64_t value = std::isfinite(v) && v >= 0 && v < 1e9 && v == std::floor(v) ? static_cast<int64_t>(v) : -2;
    if (root_key_ == "dimensions") dimensions_ = value;
    if (root_key_ == "l2NormIndex") l2_index_ = value;
    if (root_key_ == "wordIndex") word_index_ = value;
    if (value == -2 && (root_key_ == "dimensions" || root_key_ == "l2NormIndex" || root_key_ == "wordIndex")) {
      return Fail("\"" + root_key_ + "\" is not a whole number");
    }
  }
  return true;
}

void WinkHandler::ListWord(const std::string& word) {
  ++listed_;
  if (top_ != 0 && selected_.size() >= top_) return;
  if (selected_set_.count(word) || !keep_(word)) return;
  selected_.push_back(word);
  selected_set_.insert(word);
}

size_t WinkHandler::RowLength() const {
  if (dimensions_ < 0) return dims_;
  int64_t n = std::max({dimensions_, l2_index_ + 1, word_index_ + 1});
  return static_cast<size_t>(n);
}

bool WinkHandler::StartRow() {
  in_row_ = true;
  row_length_ = 0;
  row_bad_value_ = false;
  if (dims_ == 0 && dimensions_ > 0) dims_ = static_cast<uint32_t>(dimensions_);
  if (dimensions_ == 0) return Fail("\"dimensions\" is 0");
  ++rows_;
  bool wanted = words_done_ ? selected_set_.count(row_word_) > 0 : keep_(row_word_);
  keep_row_ = wanted && row_of_.count(row_word_) == 0;
  return true;
}

bool WinkHandler::EndRow() {
  in_row_ = false;
  if (dims_ == 0) {  // no "dimensions": the first row fixes them, and rows hold only the vector
    if (row_length_ == 0) return Fail("vector of '" + row_word_ + "' is empty");
    dims_ = static_cast<uint32_t>(row_length_);
  }
  size_t expected = RowLength();
  if (row_length_ != expected) {
    return Fail("vector of '" + row_word_ + "' has " + std::to_string(row_length_) + " values, expected " +
                std::to_string(expected));
  }
  if (!keep_row_) return true;
  if (row_bad_value_) {
    return Fail("vector of '" + row_word_ + "' has a non-finite value (or one out of float range) at position " +
                std::to_string(row_bad_position_));
  }
  row_of_.emplace(row_word_, row_words_.size());
  row_words_.push_back(row_word_);
  return true;
}

WordVectors WinkHandler::Result() {
  WordVectors out;
  out.dims = dims_;
  out.entries = listed_ > 0 ? listed_ : rows_;
  std::vector<std::string> order = words_done_ ? selected_ : row_words_;
  if (!words_done_ && top_ != 0 && order.size() > top_) order.resize(top_);
  for (const std::string& word : order) {
    auto it = row_of_.find(word);
    if (it == row_of_.end()) throw FormatError("word '" + word + "' is listed in \"words\" but has no vector");
    out.words.push_back(word);
    const float* row = row_values_.data() + it->second * size_t{dims_};
    out.vectors.insert(out.vectors.end(), row, row + dims_);
  }
  return out;
}

}  // namespace

WordVectors ReadGloveJson(const std::string& path, const WordFilter& keep, size_t top) {
  ChunkedFile file(path, "reading");
  WinkHandler handler(keep, top);
  bool ok = Json::sax_parse(file.begin(), file.end(), &handler);
  file.Finish();
  if (!ok) throw FormatError(path + ": " + (handler.error().empty() ? "invalid JSON" : handler.error()));
  return handler.Result();
}

}  // namespace swe::formats
