#include "swe/formats/tfjs_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "test_files.h"

namespace swe::formats {
namespace {
using test::TempDir;
using test::WriteFile;

std::string Bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}
std::string Bytes(const std::vector<int32_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

// A tiny graph: w (float32 [2,3]) and n (int32 scalar) in two shards, and an Add node reading them.
const char* kModel = R"({
  "format": "graph-model",
  "modelTopology": {"node": [
    {"name": "w", "op": "Const", "attr": {"value": {"tensor": {"dtype": "DT_FLOAT",
      "tensorShape": {"dim": [{"size": "2"}, {"size": "3"}]}}}}},
    {"name": "n", "op": "Const", "attr": {"value": {"tensor": {"dtype": "DT_INT32", "tensorShape": {}}}}},
    {"name": "x", "op": "Placeholder"},
    {"name": "y", "op": "Add", "input": ["x", "w:0", "^n"]}]},
  "weightsManifest": [{"paths": ["s1", "s2"], "weights": [
    {"name": "w", "shape": [2, 3], "dtype": "float32"},
    {"name": "n", "shape": [], "dtype": "int32"}]}]
})";

std::map<std::string, std::string> Shards() {
  std::string all = Bytes(std::vector<float>{1, 2, 3, 4, 5, 6}) + Bytes(std::vector<int32_t>{128});
  return {{"s1", all.substr(0, 10)}, {"s2", all.substr(10)}};
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(TfjsModel, ReadsWeightsAcrossShards) {
  TfjsGraphModel m;
  ASSERT_TRUE(TfjsGraphModel::FromParts(kModel, Shards(), &m).ok());
  const std::vector<float>* w = nullptr;
  ASSERT_TRUE(m.GetF32("w", {2, 3}, &w).ok());
  EXPECT_EQ(*w, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  double n = 0;
  ASSERT_TRUE(m.GetScalar("n", &n).ok());
  EXPECT_EQ(n, 128);
  EXPECT_EQ(m.weight_bytes(), 28u);
  ASSERT_NE(m.FindNode("y"), nullptr);
  EXPECT_EQ(m.FindNode("y")->inputs, (std::vector<std::string>{"x", "w", "n"}));
  EXPECT_EQ(m.GetF32("w", {3, 2}, &w).code(), StatusCode::kCorrupt);
  EXPECT_EQ(m.GetF32("n", {}, &w).code(), StatusCode::kCorrupt);  // int32
  EXPECT_EQ(m.GetF32("missing", {}, &w).code(), StatusCode::kCorrupt);
  EXPECT_EQ(m.GetScalar("w", &n).code(), StatusCode::kCorrupt);
}

TEST(TfjsModel, RejectsNonFiniteValuesOnUse) {
  auto shards = Shards();
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&shards["s1"][4], &nan, 4);
  TfjsGraphModel m;
  ASSERT_TRUE(TfjsGraphModel::FromParts(kModel, shards, &m).ok());
  const std::vector<float>* w = nullptr;
  EXPECT_EQ(m.GetF32("w", {2, 3}, &w).code(), StatusCode::kCorrupt);
}

TEST(TfjsModel, RejectsBadModels) {
  const std::string model = kModel;
  struct Case {
    const char* what;
    std::string json;
    StatusCode code;
  } cases[] = {
      {"not json", "{\"modelTopology\": ", StatusCode::kCorrupt},
      {"not an object", "[1]", StatusCode::kCorrupt},
      {"layers model", Replace(model, "\"graph-model\"", "\"layers-model\""), StatusCode::kUnsupported},
      {"no topology", Replace(model, "\"modelTopology\"", "\"topology\""), StatusCode::kCorrupt},
      {"no manifest", Replace(model, "\"weightsManifest\"", "\"manifest\""), StatusCode::kCorrupt},
      {"unknown input", Replace(model, "\"x\", \"w:0\"", "\"x\", \"v:0\""), StatusCode::kCorrupt},
      {"duplicate node", Replace(model, "\"name\": \"x\"", "\"name\": \"y\""), StatusCode::kCorrupt},
      {"path traversal", Replace(model, "\"s1\"", "\"../s1\""), StatusCode::kCorrupt},
      {"missing shard", Replace(model, "\"s1\", \"s2\"", "\"s1\", \"s3\""), StatusCode::kIo},
      {"float16", Replace(model, "\"float32\"", "\"float16\""), StatusCode::kUnsupported},
      {"string", Replace(model, "\"int32\"", "\"string\""), StatusCode::kUnsupported},
      {"quantised", Replace(model, "\"dtype\": \"float32\"", "\"dtype\": \"float32\", \"quantization\": {}"),
       StatusCode::kUnsupported},
      {"negative dim", Replace(model, "\"shape\": [2, 3]", "\"shape\": [-2, 3]"), StatusCode::kCorrupt},
      {"huge shape", Replace(model, "\"shape\": [2, 3]", "\"shape\": [65536, 65536]"), StatusCode::kTooLarge},
      {"deep shape", Replace(model, "\"shape\": [2, 3]", "\"shape\": [1,1,1,1,1,1,1,2,3]"), StatusCode::kUnsupported},
      {"short shards", Replace(model, "\"shape\": [2, 3]", "\"shape\": [2, 4]"), StatusCode::kCorrupt},
      {"extra bytes", Replace(model, "\"shape\": [2, 3]", "\"shape\": [2, 2]"), StatusCode::kCorrupt},
      {"duplicate weight", Replace(model, "{\"name\": \"n\", \"shape\"", "{\"name\": \"w\", \"shape\""),
       StatusCode::kCorrupt},
      {"unnamed weight", Replace(model, "{\"name\": \"n\", \"shape\"", "{\"name\": \"\", \"shape\""),
       StatusCode::kCorrupt},
      {"graph shape differs", Replace(model, "{\"size\": \"3\"}", "{\"size\": \"4\"}"), StatusCode::kCorrupt},
  };
  for (const Case& c : cases) {
    TfjsGraphModel m;
    Status s = TfjsGraphModel::FromParts(c.json, Shards(), &m);
    EXPECT_EQ(s.code(), c.code) << c.what << ": " << s.ToString();
  }
  auto shards = Shards();
  shards["s2"].pop_back();
  TfjsGraphModel m;
  EXPECT_EQ(TfjsGraphModel::FromParts(kModel, shards, &m).code(), StatusCode::kCorrupt);
}

TEST(TfjsModel, LoadsFromFiles) {
  TempDir dir;
  WriteFile(dir.file("model.json"), kModel);
  for (const auto& [name, bytes] : Shards()) WriteFile(dir.file(name), bytes);
  TfjsGraphModel m;
  Status s = TfjsGraphModel::Load(dir.file("model.json"), &m);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(m.weights().size(), 2u);
  std::remove(dir.file("s2").c_str());
  s = TfjsGraphModel::Load(dir.file("model.json"), &m);
  EXPECT_EQ(s.code(), StatusCode::kIo) << s.ToString();
  EXPECT_NE(s.message().find("s2"), std::string::npos);
  EXPECT_EQ(TfjsGraphModel::Load(dir.file("nothing.json"), &m).code(), StatusCode::kIo);
}

// The real USE-lite artifacts (fetched from npm by scripts/fetch-use-lite.sh).
TEST(TfjsModel, ReadsTheRealUseLiteGraph) {
  std::string dir;
  SWE_TEST_REQUIRE_USE_LITE(&dir);
  TfjsGraphModel m;
  Status s = TfjsGraphModel::Load(dir + "/model.json", &m);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(m.nodes().size(), 317u);
  EXPECT_EQ(m.weights().size(), 61u);
  EXPECT_EQ(m.weight_bytes(), 27903656u);  // = the 7 shards' sizes
  ASSERT_NE(m.Find("module/Embeddings_en"), nullptr);
  EXPECT_EQ(m.Find("module/Embeddings_en")->shape, (std::vector<int64_t>{8002, 256}));
}

}  // namespace
}  // namespace swe::formats
