// swe._swe: the compiled half of the swe package, over the C API swe.h only (libswe linked statically).
#include "extension.h"

PYBIND11_MODULE(_swe, m) {
  m.doc() = "Low-level bindings of the swe C API; use the swe package.";
  swe_python::RegisterError(m);
  m.attr("version") = swe_version();
  swe_python::DefineModel(m);
  swe_python::DefineIndex(m);
  swe_python::DefineHelpers(m);
}
