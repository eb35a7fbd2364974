// swe.node: the C API (swe.h) for Node, as the wasm module offers it to js/src/binding.js: each
// function the binding calls (wasm/exported_functions.json, the one list of them) under its own name,
// taking and returning plain JS values, with pointers as numbers (addresses), uint64_t as BigInt.
// The binding composes these calls the same way for both backends, so this file knows no C call but
// by name: which function is called with what stays binding.js's alone.
//
// Memory the binding writes or reads is JS ArrayBuffers from alloc() (their backing stores never
// move), addressed like wasm's heap; read/write/cstring/text reach the library's own memory (a
// model's buffer, a saved index, a document's text); address() gives a typed array's, so that a call
// writes its results there directly. async.NAME runs NAME on the libuv thread pool
// and resolves to [status, swe_last_error() of that thread].
//
// Argument checks are strict (a JS value of the wrong kind throws a TypeError) but pointers are
// trusted: only binding.js calls this module, with addresses of memory it owns.
#define NAPI_VERSION 8
#include <node_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "swe.h"

namespace {

constexpr double kMaxAddress = 9007199254740992.0;  // 2^53: every user-space address is below

napi_value Throw(napi_env env, const char* message) {
  napi_throw_type_error(env, nullptr, message);
  return nullptr;
}

// ---- JS -> C --------------------------------------------------------------------------------------

bool Integer(napi_env env, napi_value value, double low, double high, double* out) {
  if (napi_get_value_double(env, value, out) != napi_ok) return false;
  return std::isfinite(*out) && std::floor(*out) == *out && *out >= low && *out <= high;
}

template <typename T>
bool FromJs(napi_env env, napi_value value, T* out) {
  double x;
  if constexpr (std::is_pointer_v<T>) {
    if (!Integer(env, value, 0, kMaxAddress, &x)) return false;
    *out = reinterpret_cast<T>(static_cast<uintptr_t>(x));
  } else if constexpr (std::is_same_v<T, uint64_t>) {  // uint64_t (a BigInt) and size_t (a number): one type
    napi_valuetype type;
    if (napi_typeof(env, value, &type) != napi_ok) return false;
    if (type == napi_bigint) {
      bool lossless = false;
      return napi_get_value_bigint_uint64(env, value, out, &lossless) == napi_ok && lossless;
    }
    if (!Integer(env, value, 0, kMaxAddress, &x)) return false;
    *out = static_cast<uint64_t>(x);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (napi_get_value_double(env, value, &x) != napi_ok) return false;
    *out = static_cast<T>(x);  // double to float rounds to nearest, as wasm's f32 parameters do
  } else {
    static_assert(std::is_integral_v<T>, "a parameter kind swe.h does not use");
    if (!Integer(env, value, double(std::numeric_limits<T>::min()),
                 std::min(double(std::numeric_limits<T>::max()), kMaxAddress), &x)) {
      return false;
    }
    *out = static_cast<T>(x);
  }
  return true;
}

template <typename Tuple, size_t... I>
bool ArgsFromJs(napi_env env, napi_callback_info info, [[maybe_unused]] Tuple* args, std::index_sequence<I...>) {
  constexpr size_t n = sizeof...(I);
  napi_value argv[n > 0 ? n : 1];
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != n) return false;
  return (FromJs(env, argv[I], &std::get<I>(*args)) && ...);
}

// ---- C -> JS --------------------------------------------------------------------------------------

template <typename T>
napi_value ToJs(napi_env env, T value) {
  napi_value out = nullptr;
  if constexpr (std::is_pointer_v<T>) {
    napi_create_double(env, double(reinterpret_cast<uintptr_t>(value)), &out);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    napi_create_int32(env, value, &out);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    napi_create_uint32(env, value, &out);
  } else {
    static_assert(std::is_arithmetic_v<T>, "a return kind swe.h does not use");
    napi_create_double(env, double(value), &out);  // size_t: no function returns a uint64_t
  }
  return out;
}

// ---- the C functions, by their types ----------------------------------------------------------------

template <auto F>
struct Function;

template <typename R, typename... A, R (*F)(A...)>
struct Function<F> {
  using Args = std::tuple<std::remove_cv_t<A>...>;

  static napi_value Call(napi_env env, napi_callback_info info) {
    Args args;
    if (!ArgsFromJs(env, info, &args, std::index_sequence_for<A...>{})) return Throw(env, Mismatch());
    if constexpr (std::is_void_v<R>) {
      std::apply(F, args);
      return nullptr;  // undefined
    } else {
      return ToJs(env, std::apply(F, args));
    }
  }

  static const char* Mismatch() { return "swe.node: arguments of the wrong number or kind for a C function"; }

  // async: the call on the libuv pool, for functions that return a status.
  struct Work {
    napi_async_work work = nullptr;
    napi_deferred deferred = nullptr;
    Args args;
    swe_status status = 0;
    std::string error;  // swe_last_error() is per thread: read on the thread that failed
  };

  static napi_value Start(napi_env env, napi_callback_info info) {
    static_assert(std::is_same_v<R, swe_status>, "async calls are for functions that return a status");
    auto* work = new Work;
    if (!ArgsFromJs(env, info, &work->args, std::index_sequence_for<A...>{})) {
      delete work;
      return Throw(env, Mismatch());
    }
    napi_value promise = nullptr, name = nullptr;
    napi_create_promise(env, &work->deferred, &promise);
    napi_create_string_utf8(env, "swe", NAPI_AUTO_LENGTH, &name);
    napi_create_async_work(env, nullptr, name, Execute, Complete, work, &work->work);
    napi_queue_async_work(env, work->work);
    return promise;
  }

  static void Execute(napi_env, void* data) {
    auto* work = static_cast<Work*>(data);
    work->status = std::apply(F, work->args);
    if (work->status != 0) work->error = swe_last_error();
  }

  static void Complete(napi_env env, napi_status, void* data) {
    auto* work = static_cast<Work*>(data);
    napi_value result = nullptr, status = nullptr, error = nullptr;
    napi_create_array_with_length(env, 2, &result);
    napi_create_int32(env, work->status, &status);
    napi_create_string_utf8(env, work->error.data(), work->error.size(), &error);
    napi_set_element(env, result, 0, status);
    napi_set_element(env, result, 1, error);
    napi_resolve_deferred(env, work->deferred, result);
    napi_delete_async_work(env, work->work);
    delete work;
  }
};

// ---- memory ----------------------------------------------------------------------------------------

template <size_t N>
bool Argv(napi_env env, napi_callback_info info, napi_value (&argv)[N]) {
  size_t argc = N;
  return napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) == napi_ok && argc == N;
}

// alloc(size) -> [ArrayBuffer, address]: zeroed memory the binding owns, freed by the garbage collector.
napi_value Alloc(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  size_t size;
  if (!Argv(env, info, argv) || !FromJs(env, argv[0], &size)) return Throw(env, "alloc(size)");
  void* data = nullptr;
  napi_value buffer = nullptr, result = nullptr;
  if (napi_create_arraybuffer(env, size, &data, &buffer) != napi_ok) return nullptr;  // RangeError pending
  napi_create_array_with_length(env, 2, &result);
  napi_set_element(env, result, 0, buffer);
  napi_set_element(env, result, 1, ToJs(env, data));
  return result;
}

// write(address, Uint8Array): copies the bytes to the address.
napi_value Write(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint8_t* to;
  napi_typedarray_type type;
  size_t length;
  void* data;
  if (!Argv(env, info, argv) || !FromJs(env, argv[0], &to) ||
      napi_get_typedarray_info(env, argv[1], &type, &length, &data, nullptr, nullptr) != napi_ok ||
      type != napi_uint8_array) {
    return Throw(env, "write(address, Uint8Array)");
  }
  if (length > 0) std::memcpy(to, data, length);
  return nullptr;
}

// read(address, size) -> ArrayBuffer: a copy of the bytes there.
napi_value Read(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  const uint8_t* from;
  size_t size;
  if (!Argv(env, info, argv) || !FromJs(env, argv[0], &from) || !FromJs(env, argv[1], &size)) {
    return Throw(env, "read(address, size)");
  }
  void* data = nullptr;
  napi_value buffer = nullptr;
  if (napi_create_arraybuffer(env, size, &data, &buffer) != napi_ok) return nullptr;
  if (size > 0) std::memcpy(data, from, size);
  return buffer;
}

// text(address, size) -> string: `size` bytes of UTF-8 (invalid sequences become U+FFFD, as
// TextDecoder makes them); cstring(address): up to the NUL ("" for address 0).
napi_value Text(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  const char* from;
  size_t size;
  if (!Argv(env, info, argv) || !FromJs(env, argv[0], &from) || !FromJs(env, argv[1], &size)) {
    return Throw(env, "text(address, size)");
  }
  napi_value out = nullptr;
  napi_create_string_utf8(env, size > 0 ? from : "", size, &out);
  return out;
}

napi_value CString(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  const char* from;
  if (!Argv(env, info, argv) || !FromJs(env, argv[0], &from)) return Throw(env, "cstring(address)");
  napi_value out = nullptr;
  napi_create_string_utf8(env, from ? from : "", NAPI_AUTO_LENGTH, &out);
  return out;
}

// address(TypedArray) -> address of its first element: where a C call may write a result directly
// (the binding does so only within one synchronous call; V8 never moves a backing store).
napi_value Address(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  void* data = nullptr;
  if (!Argv(env, info, argv) || napi_get_typedarray_info(env, argv[0], nullptr, nullptr, &data, nullptr, nullptr) != napi_ok) {
    return Throw(env, "address(TypedArray)");
  }
  return ToJs(env, data);
}

// write_texts(array, start, end, records, bytes, capacity) -> bytes written: texts[start .. end) as
// UTF-8 from `bytes` on (capacity: 3 bytes per UTF-16 unit and one more is room enough), their
// swe_text records at `records`: what binding.js's writeTexts does in JS for wasm, in one call instead
// of one per text. Lone surrogates become U+FFFD, as TextEncoder makes them.
napi_value WriteTexts(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  uint32_t start, end;
  swe_text* records;
  char* bytes;
  size_t capacity;
  bool is_array = false;
  if (!Argv(env, info, argv) || napi_is_array(env, argv[0], &is_array) != napi_ok || !is_array ||
      !FromJs(env, argv[1], &start) || !FromJs(env, argv[2], &end) || !FromJs(env, argv[3], &records) ||
      !FromJs(env, argv[4], &bytes) || !FromJs(env, argv[5], &capacity) || start > end) {
    return Throw(env, "write_texts(array, start, end, records, bytes, capacity)");
  }
  size_t used = 0;
  for (uint32_t i = start; i < end; ++i) {
    napi_value text;
    size_t written = 0;
    // (napi writes a NUL after the text, within the capacity: the next text overwrites it.)
    if (napi_get_element(env, argv[0], i, &text) != napi_ok ||
        napi_get_value_string_utf8(env, text, bytes + used, capacity - used, &written) != napi_ok) {
      return Throw(env, "write_texts: not a string");
    }
    records[i - start] = swe_text{bytes + used, written};
    used += written;
  }
  return ToJs(env, used);
}

void Set(napi_env env, napi_value object, const char* name, napi_callback call) {
  napi_value fn = nullptr;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, call, nullptr, &fn);
  napi_set_named_property(env, object, name, fn);
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_value functions = nullptr, async = nullptr;
  napi_create_object(env, &functions);
  napi_create_object(env, &async);
  // functions.inc: one SWE_FUNCTION(name) per C function of wasm/exported_functions.json (CMake writes it).
#define SWE_FUNCTION(name) Set(env, functions, #name, Function<&name>::Call);
#include "functions.inc"
#undef SWE_FUNCTION
  // The calls binding.js may make off the JS thread: long ones that touch no index (thread safety:
  // swe.h; a model serves many threads at once).
  Set(env, async, "swe_model_encode_batch", Function<&swe_model_encode_batch>::Start);
  napi_set_named_property(env, exports, "functions", functions);
  napi_set_named_property(env, exports, "async", async);
  Set(env, exports, "alloc", Alloc);
  Set(env, exports, "address", Address);
  Set(env, exports, "write_texts", WriteTexts);
  Set(env, exports, "write", Write);
  Set(env, exports, "read", Read);
  Set(env, exports, "text", Text);
  Set(env, exports, "cstring", CString);
  return exports;
}
