#include "common.h"

namespace swe_python {
namespace {

PyObject* error_type = nullptr;

std::string TypeName(py::handle object) { return Py_TYPE(object.ptr())->tp_name; }

// UTF-8 of a str that holds surrogates (which strict UTF-8 refuses), each written as U+FFFD as
// JavaScript's TextEncoder writes a lone one: one code point of the str stays one (tokenize()'s offsets).
std::string Utf8WithReplacements(py::handle text) {
  const Py_ssize_t n = PyUnicode_GET_LENGTH(text.ptr());
  const int kind = PyUnicode_KIND(text.ptr());
  const void* data = PyUnicode_DATA(text.ptr());
  std::string out;
  out.reserve(static_cast<size_t>(n) * 3);
  for (Py_ssize_t i = 0; i < n; ++i) {
    uint32_t c = PyUnicode_READ(kind, data, i);
    if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

}  // namespace

void RegisterError(py::module_& module) {
  error_type = PyErr_NewExceptionWithDoc(
      "swe.Error",
      "A failure reported by the swe library (a corrupt file, an I/O error, ...). `code` is the status name: "
      "'invalid argument', 'corrupt', 'unsupported', 'too large', 'io', 'not found', 'internal', "
      "'out of memory'.",
      PyExc_Exception, nullptr);
  if (error_type == nullptr) throw py::error_already_set();
  module.add_object("Error", py::handle(error_type));
}

void ThrowError(swe_status status, const std::string& message) {
  py::object error = py::reinterpret_borrow<py::object>(error_type)(message);
  error.attr("code") = swe_status_name(status);
  PyErr_SetObject(error_type, error.ptr());
  throw py::error_already_set();
}

void ThrowStatus(swe_status status) {
  const char* message = swe_last_error();
  ThrowError(status, message[0] != '\0' ? message : swe_status_name(status));
}

swe_text Texts::One(py::handle text, const char* what, std::deque<std::string>& owned) {
  if (!PyUnicode_Check(text.ptr())) {
    throw py::type_error(std::string(what) + ": expected str, got " + TypeName(text));
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (data != nullptr) return swe_text{data, static_cast<size_t>(size)};
  PyErr_Clear();
  owned.push_back(Utf8WithReplacements(text));
  return swe_text{owned.back().data(), owned.back().size()};
}

Texts::Texts(py::handle texts, const char* what) {
  if (PyUnicode_Check(texts.ptr())) {
    keep_ = py::make_tuple(texts);
  } else if (PyBytes_Check(texts.ptr()) || PyByteArray_Check(texts.ptr()) || !PySequence_Check(texts.ptr())) {
    throw py::type_error(std::string(what) + ": expected a str or a sequence of str, got " + TypeName(texts));
  } else {
    keep_ = py::reinterpret_steal<py::object>(PySequence_Tuple(texts.ptr()));
    if (!keep_) throw py::error_already_set();
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(keep_.ptr());
  records_.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(keep_.ptr(), i);
    if (!PyUnicode_Check(item)) {
      throw py::type_error(std::string(what) + ": texts[" + std::to_string(i) + "] is " + TypeName(item) +
                           ", not str");
    }
    records_.push_back(One(item, what, owned_));
  }
}

std::pair<const uint8_t*, size_t> Bytes(const py::buffer& data) {
  py::buffer_info info = data.request();
  if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != info.itemsize)) {
    throw py::value_error("expected contiguous bytes");
  }
  return {static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size * info.itemsize)};
}

FloatArray Matrix(py::handle vectors, const char* what, int64_t dims) {
  FloatArray array = FloatArray::ensure(vectors);
  if (!array) {
    PyErr_Clear();
    throw py::type_error(std::string(what) + ": expected an array of floats, got " + TypeName(vectors));
  }
  if (array.ndim() == 1) array = array.reshape({py::ssize_t{1}, array.shape(0)});
  if (array.ndim() != 2) throw py::value_error(std::string(what) + ": expected a 2-D array (rows, dims)");
  if (dims >= 0 && array.shape(1) != dims) {
    throw py::value_error(std::string(what) + ": vectors of " + std::to_string(array.shape(1)) + " floats, expected " +
                          std::to_string(dims));
  }
  return array;
}

}  // namespace swe_python
