// swe._swe.Model: a loaded model over the C API (swe_model_*). Encoding runs without the GIL, large
// batches on several threads, straight into the NumPy array that is returned.
#include <algorithm>
#include <string>
#include <thread>

#include "common.h"
#include "extension.h"

namespace swe_python {
namespace {

struct Model {
  swe_model* model = nullptr;
  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model() { swe_model_free(model); }

  swe_encode_params Params(uint32_t dims) const {
    swe_encode_params params = swe_encode_default_params();
    params.dims = dims;
    if (swe_model_get_encode_dims(model, &params) == 0) {
      throw py::value_error("dims must be in 1.." + std::to_string(swe_model_get_dims(model)) + ", got " +
                            std::to_string(dims));
    }
    return params;
  }
};

// Below this many texts one thread encodes: starting threads costs more than it saves.
constexpr size_t kTextsPerThread = 2048;

std::unique_ptr<Model> LoadFile(const std::string& path) {
  auto out = std::make_unique<Model>();
  CheckWithoutGil([&] { return swe_model_load_from_file(path.c_str(), nullptr, &out->model); });
  return out;
}

std::unique_ptr<Model> LoadBytes(py::buffer data) {
  const std::pair<const uint8_t*, size_t> bytes = Bytes(data);
  auto out = std::make_unique<Model>();
  CheckWithoutGil([&] { return swe_model_load_from_bytes(bytes.first, bytes.second, nullptr, &out->model); });
  return out;
}

// Encodes `list` into `data` (n rows of encode dims) and each text's known words into `counts` (may
// be null), without the GIL; batches of thousands of texts are split over `threads` (0: every core).
void EncodeTexts(const Model& self, const Texts& list, const swe_encode_params& params, int threads, float* data,
                 uint32_t* counts) {
  const uint32_t encode_dims = swe_model_get_encode_dims(self.model, &params);
  const size_t n = list.size();
  const swe_text* records = list.records().data();
  size_t n_threads = threads > 0 ? static_cast<size_t>(threads)
                                 : std::max<size_t>(1, std::thread::hardware_concurrency());
  n_threads = std::max<size_t>(1, std::min(n_threads, n / kTextsPerThread));
  std::vector<swe_status> statuses(n_threads, SWE_OK);
  std::vector<std::string> messages(n_threads);
  {
    py::gil_scoped_release release;
    auto run = [&](size_t t) {
      const size_t begin = n * t / n_threads;
      const size_t count = n * (t + 1) / n_threads - begin;
      statuses[t] = swe_model_encode_batch(self.model, records + begin, count, &params, data + begin * encode_dims,
                                           count * encode_dims, counts ? counts + begin : nullptr);
      if (statuses[t] != SWE_OK) messages[t] = swe_last_error();
    };
    std::vector<std::thread> workers;
    for (size_t t = 1; t < n_threads; ++t) workers.emplace_back(run, t);
    run(0);
    for (std::thread& worker : workers) worker.join();
  }
  for (size_t t = 0; t < n_threads; ++t) {
    if (statuses[t] != SWE_OK) ThrowError(statuses[t], messages[t]);
  }
}

// texts (a sequence of str) into a new (n, dims) array, or into `out` when given.
FloatArray Encode(const Model& self, py::handle texts, uint32_t dims, int threads, py::object out_object) {
  const swe_encode_params params = self.Params(dims);
  const uint32_t encode_dims = swe_model_get_encode_dims(self.model, &params);
  Texts list(texts, "encode");
  const size_t n = list.size();
  FloatArray out;
  if (out_object.is_none()) {
    out = FloatArray({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(encode_dims)});
  } else {
    out = py::reinterpret_borrow<FloatArray>(out_object);
    if (!FloatArray::check_(out_object) || out.ndim() != 2 || static_cast<size_t>(out.shape(0)) != n ||
        out.shape(1) != encode_dims || !out.writeable()) {
      throw py::value_error("encode: out must be a writable C-contiguous float32 array of shape (" + std::to_string(n) +
                            ", " + std::to_string(encode_dims) + ")");
    }
  }
  EncodeTexts(self, list, params, threads, out.mutable_data(), nullptr);
  return out;
}

FloatArray EncodeOne(const Model& self, py::handle text, uint32_t dims) {
  const swe_encode_params params = self.Params(dims);
  const uint32_t encode_dims = swe_model_get_encode_dims(self.model, &params);
  std::deque<std::string> owned;
  const swe_text record = Texts::One(text, "encode", owned);
  FloatArray out(static_cast<py::ssize_t>(encode_dims));
  float* data = out.mutable_data();
  CheckWithoutGil(
      [&] { return swe_model_encode_text(self.model, record.data, record.size, &params, data, encode_dims, nullptr); });
  return out;
}

// encode() of a sequence of str, and how many words of each text the model knows: (vectors, uint32 counts).
py::tuple EncodeWithInfo(const Model& self, py::handle texts, uint32_t dims, int threads) {
  const swe_encode_params params = self.Params(dims);
  const uint32_t encode_dims = swe_model_get_encode_dims(self.model, &params);
  Texts list(texts, "encode_with_info");
  const size_t n = list.size();
  FloatArray vectors({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(encode_dims)});
  py::array_t<uint32_t> known(static_cast<py::ssize_t>(n));
  EncodeTexts(self, list, params, threads, vectors.mutable_data(), known.mutable_data());
  return py::make_tuple(vectors, known);
}

float Similarity(const Model& self, py::handle a, py::handle b, uint32_t dims) {
  const swe_encode_params params = self.Params(dims);
  std::deque<std::string> owned;
  const swe_text x = Texts::One(a, "similarity: a", owned);
  const swe_text y = Texts::One(b, "similarity: b", owned);
  float score = 0;
  CheckWithoutGil(
      [&] { return swe_model_compute_similarity(self.model, x.data, x.size, y.data, y.size, &params, &score); });
  return score;
}

// The words of `text`: (start, end, row, match) with start/end as indices into the str (code points).
py::list Tokenize(const Model& self, py::handle text) {
  std::deque<std::string> owned;
  const swe_text record = Texts::One(text, "tokenize", owned);
  size_t n = 0;
  std::vector<swe_token> tokens;
  swe_status status;
  {
    py::gil_scoped_release release;
    status = swe_model_analyze_text(self.model, record.data, record.size, nullptr, 0, &n);
    if (status == SWE_OK) {
      tokens.resize(n);
      status = swe_model_analyze_text(self.model, record.data, record.size, tokens.data(), n, &n);
    }
  }
  Check(status);
  // Byte offsets to code point indices: count the bytes that start a UTF-8 sequence (a surrogate passed
  // through is one 3-byte sequence, one code point of the str).
  py::list out;
  size_t byte = 0;
  size_t index = 0;
  auto advance = [&](size_t to) {
    for (; byte < to; ++byte) index += (static_cast<unsigned char>(record.data[byte]) & 0xC0) != 0x80;
    return index;
  };
  for (size_t i = 0; i < n; ++i) {
    const size_t start = advance(tokens[i].begin);
    const size_t end = advance(tokens[i].end);
    out.append(py::make_tuple(start, end, tokens[i].row, swe_match_name(tokens[i].match)));
  }
  return out;
}

}  // namespace

void DefineModel(py::module_& m) {
  py::class_<Model>(m, "Model", "A loaded .swe model (use swe.load()).")
      .def_static("load_file", &LoadFile, py::arg("path"))
      .def_static("load_bytes", &LoadBytes, py::arg("data"))
      .def_property_readonly("dims", [](const Model& self) { return swe_model_get_dims(self.model); })
      .def_property_readonly("vocab_size", [](const Model& self) { return swe_model_get_vocab_size(self.model); })
      .def_property_readonly("info_json", [](const Model& self) { return std::string(swe_model_get_info_json(self.model)); })
      .def("encode_dims", [](const Model& self, uint32_t dims) {
        const swe_encode_params params = self.Params(dims);
        return swe_model_get_encode_dims(self.model, &params);
      }, py::arg("dims"))
      .def("encode", &Encode, py::arg("texts"), py::arg("dims"), py::arg("threads"), py::arg("out") = py::none())
      .def("encode_one", &EncodeOne, py::arg("text"), py::arg("dims"))
      .def("encode_with_info", &EncodeWithInfo, py::arg("texts"), py::arg("dims"), py::arg("threads") = 0)
      .def("similarity", &Similarity, py::arg("a"), py::arg("b"), py::arg("dims"))
      .def("tokenize", &Tokenize, py::arg("text"));
}

const swe_model* ModelHandle(py::handle model) { return py::cast<const Model&>(model).model; }

}  // namespace swe_python
