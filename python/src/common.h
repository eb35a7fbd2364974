// What the extension's files share: swe.Error, texts taken from Python objects as the C API's swe_text
// records, and float32 arrays.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "swe.h"

namespace swe_python {

namespace py = pybind11;
using FloatArray = py::array_t<float, py::array::c_style>;

// Creates swe.Error (an Exception subclass with a `code` attribute: the status name) in `module`.
void RegisterError(py::module_& module);

// Raises swe.Error with the C API's last message in this thread and the status's name as `code`.
[[noreturn]] void ThrowStatus(swe_status status);

// Raises swe.Error when `status` is not SWE_OK.
inline void Check(swe_status status) {
  if (status != SWE_OK) ThrowStatus(status);
}

// Runs `call` (a C API call, returning its status) with the GIL released, then raises swe.Error when it
// failed (the message is this thread's, read after the GIL is back).
template <class Call>
void CheckWithoutGil(Call&& call) {
  swe_status status;
  {
    py::gil_scoped_release release;
    status = call();
  }
  Check(status);
}

// Raises swe.Error for a failure seen in another thread (its message was copied there).
[[noreturn]] void ThrowError(swe_status status, const std::string& message);

// Texts from a str or a sequence of str, as swe_text records that point into the str objects' UTF-8
// (cached by Python; a tuple copy of the sequence keeps them alive while the GIL is released). A str
// with surrogates has each written as U+FFFD (as JavaScript's TextEncoder writes a lone one). Anything but str
// (None, bytes, numbers) is a TypeError naming its position.
class Texts {
 public:
  Texts(py::handle texts, const char* what);
  static swe_text One(py::handle text, const char* what, std::deque<std::string>& owned);

  const std::vector<swe_text>& records() const { return records_; }
  size_t size() const { return records_.size(); }

 private:
  py::object keep_;  // the tuple the records point into
  std::deque<std::string> owned_;  // UTF-8 of strings with lone surrogates (stable addresses)
  std::vector<swe_text> records_;
};

// The bytes of a buffer (bytes, bytearray, a contiguous memoryview); a ValueError for a strided one.
std::pair<const uint8_t*, size_t> Bytes(const py::buffer& data);

// A C-contiguous float32 array of shape (rows, dims), converted from any array-like (a TypeError or
// ValueError when it cannot be).
FloatArray Matrix(py::handle vectors, const char* what, int64_t dims = -1);

}  // namespace swe_python
