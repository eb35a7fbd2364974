#include "quantize.h"

#include <algorithm>
#include <cmath>

namespace swe {

float QuantizeRow(const float* x, size_t n, int8_t* q) {
  float largest = 0.0f;
  for (size_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(x[i]));
  if (largest == 0.0f) {
    std::fill(q, q + n, int8_t{0});
    return 0.0f;
  }
  const float scale = largest / 127.0f;
  for (size_t i = 0; i < n; ++i) {
    // nearbyint rounds ties to even in the default rounding mode, which nothing in swe changes.
    const float v = std::nearbyint(x[i] / scale);
    q[i] = static_cast<int8_t>(std::min(127.0f, std::max(-127.0f, v)));
  }
  return scale;
}

}  // namespace swe
