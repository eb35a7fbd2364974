// swe._swe.Model: a loaded model over the C API (swe_model_*). Encoding runs without the GIL, large
// batches on several threads, straight into the NumPy array that is returned.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

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

  // The C API's encode parameters: dims (0: all), normalize (SWE_NORMALIZE_*), max_tokens (0: the model's).
  swe_encode_params Params(uint32_t dims, int32_t normalize = SWE_NORMALIZE_MODEL, uint32_t max_tokens = 0) const {
    swe_encode_params params = swe_encode_default_params();
    params.dims = dims;
    params.normalize = normalize;
    params.max_tokens = max_tokens;
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
// be null), without the GIL; batches of thousands of texts are split over up to `threads` threads (the
// package passes the CPUs it may use, counted once: swe/_checks.py).
void EncodeTexts(const Model& self, const Texts& list, const swe_encode_params& params, uint32_t threads, float* data,
                 uint32_t* counts) {
  const uint32_t encode_dims = swe_model_get_encode_dims(self.model, &params);
  const size_t n = list.size();
  const swe_text* records = list.records().data();
  const size_t n_threads = std::max<size_t>(1, std::min<size_t>(threads, n / kTextsPerThread));
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

// `out` when it is a writable C-contiguous float32 array of `shape`, else a new array of that shape.
// (Anything else, a float64 or int32 array say, is a ValueError: nothing is converted silently.)
FloatArray Output(py::handle out_object, std::vector<py::ssize_t> shape) {
  if (out_object.is_none()) return FloatArray(shape);
  auto out = py::reinterpret_borrow<py::array>(out_object);
  const bool fits = py::isinstance<py::array>(out_object) && out.dtype().is(py::dtype::of<float>()) &&
                    (out.flags() & py::array::c_style) && out.writeable() &&
                    std::equal(shape.begin(), shape.end(), out.shape(), out.shape() + out.ndim()) &&
                    static_cast<size_t>(out.ndim()) == shape.size();
  if (!fits) {
    std::string want;
    for (py::ssize_t d : shape) want += (want.empty() ? "" : ", ") + std::to_string(d);
    if (shape.size() == 1) want += ",";
    throw py::value_error("encode: out must be a writable C-contiguous float32 array of shape (" + want + "), got " +
                          py::str(py::repr(out_object)).cast<std::string>().substr(0, 80));
  }
  return py::reinterpret_borrow<FloatArray>(out_object);
}

// texts (a sequence of str) into a new (n, dims) array, or into `out` when given.
FloatArray Encode(const Model& self, py::handle texts, uint32_t dims, int32_t normalize, uint32_t max_tokens,
                  uint32_t threads, py::handle out_object) {
  const swe_encode_params params = self.Params(dims, normalize, max_tokens);
  const uint32_t encode_dims = swe_model_get_encode_dims(self.model, &params);
  Texts list(texts, "encode");
  FloatArray out = Output(out_object, {static_cast<py::ssize_t>(list.size()), static_cast<py::ssize_t>(encode_dims)});
  EncodeTexts(self, list, params, threads, out.mutable_data(), nullptr);
  return out;
}

FloatArray EncodeOne(const Model& self, py::handle text, uint32_t dims, int32_t normalize, uint32_t max_tokens,
                     py::handle out_object) {
  const swe_encode_params params = self.Params(dims, normalize, max_tokens);
  const uint32_t encode_dims = swe_model_get_encode_dims(self.model, &params);
  std::deque<std::string> owned;
  const swe_text record = Texts::One(text, "encode", owned);
  FloatArray out = Output(out_object, {static_cast<py::ssize_t>(encode_dims)});
  float* data = out.mutable_data();
  CheckWithoutGil(
      [&] { return swe_model_encode_text(self.model, record.data, record.size, &params, data, encode_dims, nullptr); });
  return out;
}

// encode() of a sequence of str, and how many words of each text the model knows: (vectors, uint32 counts).
py::tuple EncodeWithInfo(const Model& self, py::handle texts, uint32_t dims, uint32_t threads) {
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

// Every vocabulary word, in row order.
py::list Words(const Model& self) {
  const uint32_t n = swe_model_get_vocab_size(self.model);
  py::list out(n);
  for (uint32_t row = 0; row < n; ++row) {
    const char* data = nullptr;
    size_t size = 0;
    Check(swe_model_get_word(self.model, row, &data, &size));
    out[row] = py::str(data, size);
  }
  return out;
}

// (the table as float32 (vocab_size, dims), each row's weight float32 (vocab_size,)).
py::tuple Rows(const Model& self) {
  const uint32_t n = swe_model_get_vocab_size(self.model);
  const uint32_t dims = swe_model_get_dims(self.model);
  FloatArray table({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(dims)});
  FloatArray weights(static_cast<py::ssize_t>(n));
  float* table_data = table.mutable_data();
  float* weight_data = weights.mutable_data();
  CheckWithoutGil([&] { return swe_model_get_rows(self.model, 0, n, table_data, size_t{n} * dims, weight_data); });
  return py::make_tuple(table, weights);
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
      .def("encode", &Encode, py::arg("texts"), py::arg("dims"), py::arg("normalize"), py::arg("max_tokens"),
           py::arg("threads"), py::arg("out"))
      .def("encode_one", &EncodeOne, py::arg("text"), py::arg("dims"), py::arg("normalize"), py::arg("max_tokens"),
           py::arg("out"))
      .def("encode_with_info", &EncodeWithInfo, py::arg("texts"), py::arg("dims"), py::arg("threads"))
      .def("words", &Words)
      .def("rows", &Rows)
      .def("similarity", &Similarity, py::arg("a"), py::arg("b"), py::arg("dims"))
      .def("tokenize", &Tokenize, py::arg("text"));
}

const swe_model* ModelHandle(py::handle model) { return py::cast<const Model&>(model).model; }

}  // namespace swe_python
