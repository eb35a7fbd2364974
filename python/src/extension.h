// The parts of the extension module swe._swe, each defined in its own file.
#pragma once

#include "common.h"

namespace swe_python {

void DefineModel(py::module_& m);    // model.cpp
void DefineIndex(py::module_& m);    // index.cpp
void DefineHelpers(py::module_& m);  // helpers.cpp

// The swe_model of a swe._swe.Model (a TypeError for anything else).
const swe_model* ModelHandle(py::handle model);

}  // namespace swe_python
