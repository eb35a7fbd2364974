// Symmetric int8 quantisation of one row: the one rule of int8 model tables (model_writer.cpp) and
// int8 indexes (index.cpp). scale = max |x| / 127; q[i] = x[i] / scale rounded to the nearest integer,
// ties to even (the IEEE default, as the wasm f32.nearest instruction rounds), within [-127, 127].
#pragma once

#include <cstddef>
#include <cstdint>

namespace swe {

// Writes n values to q and returns the scale (0 for a row of zeros, whose q are all 0). x is finite.
float QuantizeRow(const float* x, size_t n, int8_t* q);

}  // namespace swe
