// The one int8 quantiser (core/src/quantize.h) of model tables and indexes: its scale, its rounding
// (ties to even) and its range, pinned on hand-computed rows.
#include "quantize.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "swe/index.h"
#include "swe/model_file.h"

namespace swe {
namespace {

std::vector<int8_t> Quantize(const std::vector<float>& x, float* scale) {
  std::vector<int8_t> q(x.size());
  *scale = QuantizeRow(x.data(), x.size(), q.data());
  return q;
}

TEST(Quantize, ScaleIsTheLargestMagnitudeOver127) {
  float scale = 0;
  EXPECT_EQ(Quantize({-254.0f, 127.0f, 0.0f}, &scale), (std::vector<int8_t>{-127, 64, 0}));  // 63.5 -> 64 (even)
  EXPECT_EQ(scale, 2.0f);
}

TEST(Quantize, TiesRoundToEven) {
  float scale = 0;
  // scale 1: every value is its own quotient; halves go to the even neighbour, not away from zero.
  EXPECT_EQ(Quantize({127.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 126.5f}, &scale),
            (std::vector<int8_t>{127, 0, 2, 2, 0, -2, -2, 126}));
  EXPECT_EQ(scale, 1.0f);
  EXPECT_EQ(Quantize({127.0f, 2.4999998f, 2.5000002f}, &scale), (std::vector<int8_t>{127, 2, 3}));
}

TEST(Quantize, StaysWithinPlusMinus127) {
  float scale = 0;
  std::vector<int8_t> q = Quantize({-1.0f, 1.0f, 0.99999994f, -0.99999994f}, &scale);
  EXPECT_EQ(q, (std::vector<int8_t>{-127, 127, 127, -127}));
  EXPECT_EQ(scale, 1.0f / 127.0f);
}

TEST(Quantize, ZeroRowHasScaleZero) {
  float scale = 1;
  EXPECT_EQ(Quantize({0.0f, -0.0f, 0.0f}, &scale), (std::vector<int8_t>{0, 0, 0}));
  EXPECT_EQ(scale, 0.0f);
}

// Tables and indexes share the rule: an int8 model's row and an int8 index's entry of the same unit
// vector hold the same integers (seen through the dot product of the index's integer scan).
TEST(Quantize, ModelTablesAndIndexesAgree) {
  const std::vector<float> row = {0.6f, -0.8f, 0.0f, 0.0f};  // unit length: the index stores it as is
  std::unique_ptr<Index> index;
  ASSERT_TRUE(Index::Create(4, DType::kInt8, &index).ok());
  ASSERT_TRUE(index->Add(7, row.data()).ok());
  std::vector<SearchHit> hits;
  ASSERT_TRUE(index->Search(row.data(), 1, &hits).ok());
  ASSERT_EQ(hits.size(), 1u);
  float scale = 0;
  std::vector<int8_t> q = Quantize(row, &scale);
  EXPECT_EQ(q, (std::vector<int8_t>{95, -127, 0, 0}));  // 0.6 / (0.8 / 127) = 95.25
  const float self = static_cast<float>(95 * 95 + 127 * 127) * scale * scale;
  EXPECT_NEAR(hits[0].score, self, 1e-6);
}

}  // namespace
}  // namespace swe
