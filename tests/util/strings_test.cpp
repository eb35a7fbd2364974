// util's string helpers (swe/util/strings.h) and line reading (swe/util/file.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "swe/util/file.h"
#include "swe/util/strings.h"

namespace swe::util {
namespace {

TEST(UtilStrings, StartsAndEndsWith) {
  EXPECT_TRUE(EndsWith("corpus.txt.zst", ".zst"));
  EXPECT_FALSE(EndsWith("zst", ".zst"));
  EXPECT_TRUE(EndsWith("x", ""));
  EXPECT_TRUE(StartsWith("cuda:1", "cuda"));
  EXPECT_FALSE(StartsWith("cud", "cuda"));
  EXPECT_TRUE(StartsWith("", ""));
}

TEST(UtilStrings, TrimsAsciiWhitespaceOrTheGivenSet) {
  EXPECT_EQ(Trim(" \t\r\n\f\va b\v\f\n\r\t "), "a b");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim("\xC2\xA0x\xC2\xA0"), "\xC2\xA0x\xC2\xA0");  // no-break space is not ASCII whitespace
  EXPECT_EQ(Trim(" \t x\r\n \t", " \t"), "x\r\n");
  EXPECT_TRUE(IsBlank(" \t\r\f\v"));
  EXPECT_FALSE(IsBlank(" . "));
}

TEST(UtilFile, ReadLinesKeepsEmptyLinesAndDropsLineEnds) {
  const std::string path = ::testing::TempDir() + "util_read_lines.txt";
  {
    std::ofstream f(path, std::ios::binary);
    f << "one\r\n\ntwo \r\n\r\nthree\rstill three\nlast";
  }
  std::vector<std::string> lines;
  std::string error;
  ASSERT_TRUE(ReadLines(path, &lines, &error)) << error;
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "", "two ", "", "three\rstill three", "last"}));
  { std::ofstream f(path, std::ios::binary); }
  ASSERT_TRUE(ReadLines(path, &lines, &error));
  EXPECT_TRUE(lines.empty());
  std::remove(path.c_str());
  EXPECT_FALSE(ReadLines(path, &lines, &error));
  EXPECT_EQ(error, path + ": cannot open");
}

}  // namespace
}  // namespace swe::util
