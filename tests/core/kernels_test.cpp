// Every kernel variant this CPU supports: against a double-precision reference, against the documented
// 8-lane summation order, and bit-identical to the generic variant.
#include "simd/kernels.h"
#include "swe/half.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace swe::simd {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Product rounded to float without any chance of FMA contraction in this (test) translation unit:
// the exact double product rounded once is the IEEE float product.
float Mul(float a, float b) { return static_cast<float>(static_cast<double>(a) * static_cast<double>(b)); }

// The documented order (kernels_impl.h): lane j takes i = j mod 8 in increasing i, then the tree.
float OrderedDot(const float* a, const float* b, size_t n) {
  float s[8] = {};
  for (size_t i = 0; i < n; ++i) s[i % 8] = s[i % 8] + Mul(a[i], b[i]);
  return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

std::vector<size_t> Lengths() {
  std::vector<size_t> out;
  for (size_t n = 0; n <= 67; ++n) out.push_back(n);
  for (size_t n : {100, 127, 128, 129, 255, 256, 300, 768, 1000, 1031}) out.push_back(n);
  return out;
}

struct Data {
  std::vector<float> fa, fb, acc;
  std::vector<uint16_t> half;
  std::vector<int8_t> ia, ib;
};

Data MakeData(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  std::uniform_int_distribution<int> bytes(-127, 127);  // dot_i8's range (kernels.h); the gather's -128 below
  Data d;
  for (size_t i = 0; i < n; ++i) {
    d.fa.push_back(uni(rng) * 3.0f);
    d.fb.push_back(uni(rng));
    d.acc.push_back(uni(rng) * 10.0f);
    d.half.push_back(FloatToHalf(uni(rng) * 4.0f));
    d.ia.push_back(static_cast<int8_t>(bytes(rng)));
    d.ib.push_back(static_cast<int8_t>(bytes(rng)));
  }
  return d;
}

// Everything one variant computes for one length, for bitwise comparison between variants.
std::vector<uint32_t> RunAll(const Kernels& k, size_t n, uint32_t seed) {
  Data d = MakeData(n, seed);
  std::vector<uint32_t> out;
  std::vector<float> acc = d.acc;
  k.axpy_f32(acc.data(), d.fa.data(), 0.37f, n);
  k.axpy_f16(acc.data(), d.half.data(), -1.3f, n);
  k.axpy_i8(acc.data(), d.ia.data(), 0.0071f, n);
  k.scale_f32(acc.data(), -0.77f, n);
  for (float v : acc) out.push_back(Bits(v));
  out.push_back(Bits(k.dot_f32(d.fa.data(), d.fb.data(), n)));
  out.push_back(static_cast<uint32_t>(k.dot_i8(d.ia.data(), d.ib.data(), n)));
  // Scans over 7 rows built from the same data (rotations), so the 4-row blocks and the rest run.
  const size_t rows = 7;
  std::vector<float> frows(rows * n);
  std::vector<int8_t> irows(rows * n);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < n; ++i) {
      frows[r * n + i] = d.fb[(i + r) % n];
      irows[r * n + i] = d.ib[(i + 3 * r) % n];
    }
  }
  std::vector<float> fs(rows);
  std::vector<int32_t> is(rows);
  k.scan_f32(d.fa.data(), frows.data(), n, rows, fs.data());
  k.scan_i8(d.ia.data(), irows.data(), n, rows, is.data());
  for (float v : fs) out.push_back(Bits(v));
  for (int32_t v : is) out.push_back(static_cast<uint32_t>(v));
  // Gathers over the same rows (stride n), ids repeating.
  const uint32_t ids[] = {6, 1, 1, 4, 0, 6, 2};
  const float weights[7] = {0.5f, 1.5f, 2.0f, 0.1f, 0.0f, 3.0f, 0.7f};
  const float scales[7] = {0.01f, 0.02f, 0.005f, 0.1f, 1.0f, 0.03f, 0.0071f};
  std::vector<uint16_t> hrows(rows * n);
  for (size_t i = 0; i < rows * n; ++i) hrows[i] = d.half[i % n];
  std::vector<float> g32 = d.acc, g16 = d.acc, g8 = d.acc;
  k.gather_f32(g32.data(), frows.data(), n, ids, 7, weights, n);
  k.gather_f16(g16.data(), hrows.data(), n, ids, 7, nullptr, n);
  k.gather_i8(g8.data(), irows.data(), n, ids, 7, weights, scales, n);
  for (float v : g32) out.push_back(Bits(v));
  for (float v : g16) out.push_back(Bits(v));
  for (float v : g8) out.push_back(Bits(v));
  return out;
}

TEST(Kernels, GenericIsAlwaysSupportedAndActiveIsOneOfThem) {
  std::vector<const Kernels*> all = Supported();
  ASSERT_FALSE(all.empty());
  EXPECT_STREQ(all.front()->name, "generic");
  bool found = false;
  for (const Kernels* k : all) found |= (k == &Active());
  EXPECT_TRUE(found) << Active().name;
}

TEST(Kernels, ScaleRoundsEachProductOnce) {
  for (const Kernels* k : Supported()) {
    for (size_t n : Lengths()) {
      Data d = MakeData(n, 13 + static_cast<uint32_t>(n));
      std::vector<float> x = d.fa;
      k->scale_f32(x.data(), 0.3f, n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(x[i]), Bits(Mul(d.fa[i], 0.3f))) << k->name << " n=" << n << " i=" << i;
    }
  }
}

TEST(Kernels, AxpyMatchesDoubleReference) {
  for (const Kernels* k : Supported()) {
    SCOPED_TRACE(k->name);
    for (size_t n : Lengths()) {
      Data d = MakeData(n, 11 + static_cast<uint32_t>(n));
      const float a = 0.731f;
      std::vector<float> f32 = d.acc, f16 = d.acc, i8 = d.acc;
      k->axpy_f32(f32.data(), d.fa.data(), a, n);
      k->axpy_f16(f16.data(), d.half.data(), a, n);
      k->axpy_i8(i8.data(), d.ia.data(), a, n);
      for (size_t i = 0; i < n; ++i) {
        const double base = d.acc[i];
        const double r32 = base + double{a} * d.fa[i];
        const double r16 = base + double{a} * double{HalfToFloat(d.half[i])};
        const double r8 = base + double{a} * d.ia[i];
        // Two roundings (product, sum): within 2 ulp of the larger magnitude involved.
        const double tol = 2.5 * std::numeric_limits<float>::epsilon();
        EXPECT_NEAR(f32[i], r32, tol * (std::fabs(base) + std::fabs(double{a} * d.fa[i])));
        EXPECT_NEAR(f16[i], r16, tol * (std::fabs(base) + std::fabs(r16 - base)));
        EXPECT_NEAR(i8[i], r8, tol * (std::fabs(base) + std::fabs(r8 - base)));
      }
    }
  }
}

TEST(Kernels, DotsMatchReferenceAndDocumentedOrder) {
  for (const Kernels* k : Supported()) {
    SCOPED_TRACE(k->name);
    for (size_t n : Lengths()) {
      Data d = MakeData(n, 23 + static_cast<uint32_t>(n));
      double exact = 0, magnitude = 0;
      int64_t exact_i8 = 0;
      for (size_t i = 0; i < n; ++i) {
        exact += double{d.fa[i]} * d.fb[i];
        magnitude += std::fabs(double{d.fa[i]} * d.fb[i]);
        exact_i8 += int64_t{d.ia[i]} * d.ib[i];
      }
      const float got = k->dot_f32(d.fa.data(), d.fb.data(), n);
      EXPECT_NEAR(got, exact, (n / 8.0 + 4) * std::numeric_limits<float>::epsilon() * magnitude) << n;
      EXPECT_EQ(Bits(got), Bits(OrderedDot(d.fa.data(), d.fb.data(), n))) << n;
      EXPECT_EQ(k->dot_i8(d.ia.data(), d.ib.data(), n), exact_i8) << n;
    }
  }
}

TEST(Kernels, ScansEqualSingleDots) {
  for (const Kernels* k : Supported()) {
    SCOPED_TRACE(k->name);
    for (size_t n : Lengths()) {
      for (size_t rows : {0, 1, 3, 4, 5, 8, 9}) {
        Data d = MakeData(n * (rows + 1), 31 + static_cast<uint32_t>(n + rows));
        std::vector<float> fs(rows + 1, -7.0f);
        std::vector<int32_t> is(rows + 1, -7);
        k->scan_f32(d.fa.data(), d.fb.data(), n, rows, fs.data());
        k->scan_i8(d.ia.data(), d.ib.data(), n, rows, is.data());
        for (size_t r = 0; r < rows; ++r) {
          EXPECT_EQ(Bits(fs[r]), Bits(k->dot_f32(d.fa.data(), d.fb.data() + r * n, n))) << n << " " << r;
          EXPECT_EQ(is[r], k->dot_i8(d.ia.data(), d.ib.data() + r * n, n)) << n << " " << r;
        }
        EXPECT_EQ(fs[rows], -7.0f);  // nothing written past count
        EXPECT_EQ(is[rows], -7);
      }
    }
  }
}

// gather_f32 / gather_f16 must give exactly what a sequence of axpy calls gives (the encoder's two
// paths); gather_i8 its fixed-point integer sum (ReferenceGatherI8).
float ReferenceCoefficient(const float* weights, const float* scales, uint32_t id) {
  return Mul(weights != nullptr ? weights[id] : 1.0f, scales[id]);
}

// kernels_impl.h's int8 gather, written from its comment with 64-bit sums: k = min(32767,
// trunc(c * 2^e + 0.5)) in float, e = min(15 - exponent of the largest c, 126); per 512 rows,
// acc[i] += float(sum k * q[i]) * 2^-e.
void ReferenceGatherI8(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
                       const float* weights, const float* scales, size_t n) {
  float largest = 0;
  for (size_t j = 0; j < count; ++j) largest = std::max(largest, ReferenceCoefficient(weights, scales, ids[j]));
  if (largest == 0) return;
  const int e = std::min(15 - (std::ilogb(largest) + 1), 126);
  const float scale = std::ldexp(1.0f, e), unit = std::ldexp(1.0f, -e);
  for (size_t start = 0; start < count; start += 512) {
    const size_t end = std::min(count, start + 512);
    for (size_t i = 0; i < n; ++i) {
      int64_t sum = 0;
      for (size_t j = start; j < end; ++j) {
        const float k = Mul(ReferenceCoefficient(weights, scales, ids[j]), scale) + 0.5f;
        sum += int64_t{table[ids[j] * stride + i]} * (k >= 32767.0f ? 32767 : static_cast<int64_t>(k));
      }
      acc[i] = acc[i] + Mul(static_cast<float>(sum), unit);
    }
  }
}

TEST(Kernels, GatherEqualsAxpySequenceAndTheInt8FixedPointSum) {
  const uint32_t kRows = 13;
  const uint32_t ids[] = {3, 0, 12, 3, 7, 7, 1, 11, 5, 3, 2};
  for (const Kernels* k : Supported()) {
    SCOPED_TRACE(k->name);
    for (size_t n : Lengths()) {
      const size_t stride = n + 3;  // rows wider than the part accumulated
      Data d = MakeData(kRows * stride, 41 + static_cast<uint32_t>(n));
      std::vector<float> weights(kRows), scales(kRows);
      for (uint32_t r = 0; r < kRows; ++r) {
        weights[r] = 0.25f + 0.37f * r;
        scales[r] = 0.003f * (r + 1);
      }
      weights[7] = 0.0f;
      for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{11}}) {
        for (bool weighted : {false, true}) {
          const float* w = weighted ? weights.data() : nullptr;
          auto coefficient = [&](uint32_t id) { return weighted ? weights[id] : 1.0f; };
          std::vector<float> want32(d.acc.begin(), d.acc.begin() + n), got32 = want32;
          std::vector<float> want16 = want32, got16 = want32, want8 = want32, got8 = want32;
          for (size_t j = 0; j < count; ++j) {
            const uint32_t id = ids[j];
            k->axpy_f32(want32.data(), d.fa.data() + id * stride, coefficient(id), n);
            k->axpy_f16(want16.data(), d.half.data() + id * stride, coefficient(id), n);
          }
          ReferenceGatherI8(want8.data(), d.ia.data(), stride, ids, count, w, scales.data(), n);
          k->gather_f32(got32.data(), d.fa.data(), stride, ids, count, w, n);
          k->gather_f16(got16.data(), d.half.data(), stride, ids, count, w, n);
          k->gather_i8(got8.data(), d.ia.data(), stride, ids, count, w, scales.data(), n);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(Bits(got32[i]), Bits(want32[i])) << "f32 n=" << n << " i=" << i << " count=" << count;
            ASSERT_EQ(Bits(got16[i]), Bits(want16[i])) << "f16 n=" << n << " i=" << i << " count=" << count;
            ASSERT_EQ(Bits(got8[i]), Bits(want8[i])) << "i8 n=" << n << " i=" << i << " count=" << count;
          }
        }
      }
    }
  }
}

// The fixed-point coefficients cost at most half a unit (2^-e <= largest * 2^-14) per row and value:
// against the exact sum of c * q, the error stays within count * 128 * largest * 2^-15 (plus
// float rounding), far below the int8 rows' own rounding.
TEST(Kernels, GatherI8IsCloseToTheExactSum) {
  const size_t n = 256, rows = 50, count = 40;
  Data d = MakeData(rows * n, 5);
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  std::vector<float> weights(rows), scales(rows);
  for (size_t r = 0; r < rows; ++r) weights[r] = uni(rng) * 4.0f, scales[r] = 0.001f + uni(rng) * 0.01f;
  std::vector<uint32_t> ids(count);
  for (size_t j = 0; j < count; ++j) ids[j] = static_cast<uint32_t>(rng() % rows);
  double largest = 0;
  for (uint32_t id : ids) largest = std::max(largest, double{Mul(weights[id], scales[id])});
  for (const Kernels* k : Supported()) {
    std::vector<float> got(n, 0.0f);
    k->gather_i8(got.data(), d.ia.data(), n, ids.data(), count, weights.data(), scales.data(), n);
    for (size_t i = 0; i < n; ++i) {
      double exact = 0;
      for (uint32_t id : ids) exact += double{Mul(weights[id], scales[id])} * d.ia[id * n + i];
      EXPECT_NEAR(got[i], exact, count * 128 * largest * std::ldexp(1.0, -15) + 1e-6 * std::fabs(exact))
          << k->name << " i=" << i;
    }
  }
}

// Sums past one chunk (512 rows) of the largest values cannot overflow; the largest coefficient's
// cap at 32767, tiny coefficients (e capped at 126) and all-zero ones give the reference's bits; every variant agrees.
TEST(Kernels, GatherI8ExtremesMatchTheReference) {
  const size_t n = 67, rows = 3;
  std::vector<int8_t> table(rows * n);
  for (size_t i = 0; i < table.size(); ++i) table[i] = i % 3 == 0 ? int8_t{-128} : i % 3 == 1 ? int8_t{127} : int8_t{-7};
  std::vector<uint32_t> ids(1500);
  for (size_t j = 0; j < ids.size(); ++j) ids[j] = j % 5 == 0 ? 1 : 0;  // row 0 (all -128 at i % 3 == 0) most
  const std::vector<std::vector<float>> scale_sets = {
      {1.0f, 1.0f, 1.0f},
      {0.99999f, 0.5f, 1.0f},  // 0.99999 * 2^15 + 0.5 rounds past 32767: the cap
      {0x1p40f, 0x1p40f, 1.0f},
      {1e-38f, 3e-39f, 1.0f},
      {0x1p-149f, 0x1p-148f, 1.0f},
      {0.0f, 0.0f, 1.0f}};
  for (const auto& scales : scale_sets) {
    for (size_t count : {size_t{511}, size_t{512}, size_t{513}, size_t{1500}}) {
      std::vector<float> want(n, 1.5f);
      ReferenceGatherI8(want.data(), table.data(), n, ids.data(), count, nullptr, scales.data(), n);
      for (const Kernels* k : Supported()) {
        std::vector<float> got(n, 1.5f);
        k->gather_i8(got.data(), table.data(), n, ids.data(), count, nullptr, scales.data(), n);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(Bits(got[i]), Bits(want[i])) << k->name << " scale " << scales[0] << " count " << count << " i " << i;
          ASSERT_TRUE(std::isfinite(got[i]));
        }
      }
      if (scales[0] == 1.0f) {  // the sum itself: 1,200 rows of -128 and 300 of 127 times 32767/32767
        EXPECT_EQ(want[0], 1.5f + static_cast<float>(-128 * static_cast<int64_t>(count - (count + 4) / 5) +
                                                      127 * static_cast<int64_t>((count + 4) / 5)));
      }
    }
  }
}

// The largest products of dot_i8's range, all of one sign and of both: a pair of them is the most a
// 16-bit step may hold (AVX2's vpmaddubsw saturates above 32,767).
TEST(Kernels, Int8ExtremesDoNotOverflow) {
  const size_t n = 16384;  // ReadLimits::max_dims
  std::vector<int8_t> neg(n, -127), pos(n, 127);
  const int32_t most = 127 * 127 * int32_t{n};
  for (const Kernels* k : Supported()) {
    SCOPED_TRACE(k->name);
    EXPECT_EQ(k->dot_i8(neg.data(), neg.data(), n), most);
    EXPECT_EQ(k->dot_i8(pos.data(), neg.data(), n), -most);
    EXPECT_EQ(k->dot_i8(neg.data(), pos.data(), n), -most);
    std::vector<int8_t> rows = neg;
    rows.insert(rows.end(), pos.begin(), pos.end());
    int32_t out[2] = {};
    k->scan_i8(neg.data(), rows.data(), n, 2, out);
    EXPECT_EQ(out[0], most);
    EXPECT_EQ(out[1], -most);
  }
}

TEST(Kernels, VariantsAreBitIdentical) {
  std::vector<const Kernels*> all = Supported();
  if (all.size() < 2) GTEST_SKIP() << "only the generic kernels run on this CPU";
  for (size_t n : Lengths()) {
    std::vector<uint32_t> want = RunAll(*all.front(), n, 97 + static_cast<uint32_t>(n));
    for (size_t v = 1; v < all.size(); ++v) {
      EXPECT_EQ(RunAll(*all[v], n, 97 + static_cast<uint32_t>(n)), want) << all[v]->name << " n=" << n;
    }
  }
}

// f16 conversions -------------------------------------------------------------------------------

double HalfReference(uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

TEST(Half, ToFloatIsExactForEveryValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    const int exponent = (h >> 10) & 0x1F;
    if (exponent == 0x1F) {
      if ((h & 0x3FF) == 0) {
        EXPECT_TRUE(std::isinf(f)) << h;
        EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;
      } else {
        EXPECT_TRUE(std::isnan(f)) << h;
      }
      continue;
    }
    EXPECT_EQ(double{f}, HalfReference(static_cast<uint16_t>(h))) << h;
    EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;  // -0 stays -0
  }
}

TEST(Half, AxpyConvertsLikeHalfToFloat) {
  std::vector<uint16_t> all(0x10000);
  for (uint32_t h = 0; h < 0x10000; ++h) all[h] = static_cast<uint16_t>(h);
  for (const Kernels* k : Supported()) {
    std::vector<float> acc(all.size(), 0.0f);
    k->axpy_f16(acc.data(), all.data(), 1.0f, all.size());
    for (uint32_t h = 0; h < 0x10000; ++h) {
      const float want = 0.0f + HalfToFloat(static_cast<uint16_t>(h));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(acc[h])) << k->name << " " << h;
      } else {
        EXPECT_EQ(Bits(acc[h]), Bits(want)) << k->name << " " << h;
      }
    }
  }
}

TEST(Half, RoundTripsEveryNonNanValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      const uint16_t back = FloatToHalf(f);
      EXPECT_EQ(back & 0x7C00, 0x7C00) << h;
      EXPECT_NE(back & 0x3FF, 0) << h;  // still a NaN, not inf
      EXPECT_EQ(back & 0x8000, h & 0x8000) << h;
      continue;
    }
    EXPECT_EQ(FloatToHalf(f), h) << h;
  }
}

// Nearest half by search over the ordered non-negative halves, ties to even.
uint16_t NearestHalf(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double x = std::fabs(double{f});
  if (std::isnan(f)) return 0x7E00;
  if (x >= 65520.0) return sign | 0x7C00;
  uint32_t lo = 0, hi = 0x7BFF;  // largest h with value <= x
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) / 2;
    if (HalfReference(static_cast<uint16_t>(mid)) <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == 0x7BFF) return sign | 0x7BFF;
  const double below = HalfReference(static_cast<uint16_t>(lo));
  const double above = HalfReference(static_cast<uint16_t>(lo + 1));
  uint32_t pick = lo;
  if (x - below > above - x || (x - below == above - x && (lo & 1))) pick = lo + 1;
  return static_cast<uint16_t>(sign | pick);
}

TEST(Half, FromFloatRoundsToNearestEven) {
  // Every midpoint between neighbouring halves, and its float neighbours.
  for (uint32_t h = 0; h < 0x7BFF; ++h) {
    const double mid =
        (HalfReference(static_cast<uint16_t>(h)) + HalfReference(static_cast<uint16_t>(h + 1))) / 2;
    const float m = static_cast<float>(mid);  // exact: halves have 11 significant bits
    ASSERT_EQ(double{m}, mid);
    const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h);
    EXPECT_EQ(FloatToHalf(m), even) << h;
    EXPECT_EQ(FloatToHalf(-m), even | 0x8000) << h;
    EXPECT_EQ(FloatToHalf(std::nextafter(m, 0.0f)), h) << h;
    EXPECT_EQ(FloatToHalf(std::nextafter(m, 1e9f)), h + 1) << h;
  }
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);
  EXPECT_EQ(FloatToHalf(1e30f), 0x7C00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(FloatToHalf(0x1p-25f), 0);                                  // tie with 0: even
  EXPECT_EQ(FloatToHalf(std::nextafter(0x1p-25f, 1.0f)), 1);            // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::denorm_min()), 0);  // float subnormal
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  const uint16_t nan = FloatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x3FF, 0);
}

TEST(Half, FromFloatMatchesSearchOnRandomValues) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFFFFFFu);
  for (int i = 0; i < 200000; ++i) {
    // Exponents concentrated around the half range (2^-26 .. 2^17), random mantissa and sign.
    const uint32_t exponent = 101 + bits(rng) % 44;
    const uint32_t u = (bits(rng) & 0x807FFFFFu) | exponent << 23;
    float f;
    std::memcpy(&f, &u, sizeof f);
    ASSERT_EQ(FloatToHalf(f), NearestHalf(f)) << f;
  }
}

}  // namespace
}  // namespace swe::simd
