#include "core/test_models.h"

#include <gtest/gtest.h>

#include <random>

namespace swe::testing {

std::vector<float> RandomVectors(size_t n, uint32_t dims, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> out(n * dims);
  for (float& v : out) v = normal(rng);
  return out;
}

ModelContents RandomContents(const std::vector<std::string>& words, uint32_t dims, uint32_t seed) {
  ModelContents c;
  c.words = words;
  c.dims = dims;
  c.vectors.resize(words.size() * size_t{dims});
  uint64_t state = 0x9E3779B97F4A7C15ull ^ seed;
  for (float& v : c.vectors) {  // splitmix64: same numbers on every platform
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    v = static_cast<float>(z >> 40) / static_cast<float>(1 << 23) - 1.0f;
  }
  c.provenance.name = "test";
  return c;
}

std::vector<uint8_t> ModelBytes(const ModelContents& contents, DType dtype, int zstd_level) {
  std::vector<uint8_t> bytes;
  WriteOptions options;
  options.dtype = dtype;
  options.zstd_level = zstd_level;
  Status s = WriteModel(contents, options, &bytes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return bytes;
}

std::unique_ptr<Model> BuildModel(const ModelContents& contents, DType dtype) {
  std::vector<uint8_t> bytes = ModelBytes(contents, dtype);
  std::unique_ptr<Model> model;
  Status s = ReadModel(bytes.data(), bytes.size(), &model);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return model;
}

}  // namespace swe::testing
