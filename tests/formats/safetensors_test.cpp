#include "swe/formats/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "swe/half.h"
#include "test_files.h"

namespace swe::formats {
namespace {
using test::SafetensorsBytes;
using test::TensorSpec;

Status Parse(const std::string& bytes, std::unique_ptr<SafeTensors>* out) {
  return SafeTensors::FromBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out);
}

// A file from a literal JSON header and `data_bytes` zero bytes.
std::string Raw(const std::string& header, size_t data_bytes) {
  uint64_t n = header.size();
  return std::string(reinterpret_cast<const char*>(&n), 8) + header + std::string(data_bytes, '\0');
}

TEST(Safetensors, ReadsF32F16Bf16) {
  std::vector<float> v = {1.0f, -2.5f, 0.15625f, 3.0f, 0.0f, -0.0f};
  for (const char* dtype : {"F32", "F16", "BF16"}) {
    std::map<std::string, TensorSpec> t = {{"w", {dtype, {2, 3}, v}}, {"b", {dtype, {3}, {1, 2, 3}}}};
    std::string bytes = SafetensorsBytes(t);
    std::unique_ptr<SafeTensors> st;
    ASSERT_TRUE(Parse(bytes, &st).ok()) << dtype;
    std::vector<float> out;
    ASSERT_TRUE(st->ReadF32("w", {2, 3}, &out).ok()) << dtype;
    EXPECT_EQ(out, v) << dtype;  // all values are exact in every dtype
    EXPECT_EQ(st->metadata().at("format"), "pt");
    EXPECT_EQ(st->ReadF32("w", {3, 2}, &out).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(st->ReadF32("missing", {}, &out).code(), StatusCode::kNotFound);
  }
}

TEST(Safetensors, HalfConversionIsExact) {
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 5.9604644775390625e-08f);  // smallest subnormal
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
  EXPECT_EQ(BFloat16ToFloat(0x3F80), 1.0f);
}

TEST(Safetensors, RejectsBadFiles) {
  std::unique_ptr<SafeTensors> st;
  struct Case {
    const char* what;
    std::string bytes;
  } cases[] = {
      {"short", std::string(5, '\0')},
      {"header past end", Raw("{}", 0).substr(0, 9)},
      {"huge header length", std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}"},
      {"not json", Raw("{\"a\": ", 0)},
      {"not an object", Raw("[1, 2]", 0)},
      {"unknown dtype", Raw(R"({"a":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}})", 1)},
      {"negative shape", Raw(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4)},
      {"size mismatch", Raw(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 8)},
      {"offsets past data", Raw(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4)},
      {"reversed offsets", Raw(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", 4)},
      {"overlap", Raw(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8)},
      {"missing field", Raw(R"({"a":{"dtype":"F32","shape":[1]}})", 4)},
      {"bad metadata", Raw(R"({"__metadata__":{"x":1}})", 0)},
      {"shape overflow", Raw(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4)},
  };
  for (const Case& c : cases) {
    Status s = Parse(c.bytes, &st);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << c.what << ": " << s.ToString();
    EXPECT_NE(s.message().find("safetensors"), std::string::npos) << c.what;
  }
}

TEST(Safetensors, OpenMapsFilesAndReportsMissingOnes) {
  test::TempDir dir;
  test::WriteFile(dir.file("m.safetensors"), SafetensorsBytes({{"x", {"F32", {1}, {4.0f}}}}));
  std::unique_ptr<SafeTensors> st;
  ASSERT_TRUE(SafeTensors::Open(dir.file("m.safetensors"), &st).ok());
  std::vector<float> out;
  ASSERT_TRUE(st->ReadF32("x", {1}, &out).ok());
  EXPECT_EQ(out[0], 4.0f);
  EXPECT_EQ(SafeTensors::Open(dir.file("none.safetensors"), &st).code(), StatusCode::kIo);
  test::WriteFile(dir.file("bad.safetensors"), Raw("{\"a\"", 0));
  Status s = SafeTensors::Open(dir.file("bad.safetensors"), &st);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("bad.safetensors"), std::string::npos);
}

}  // namespace
}  // namespace swe::formats
