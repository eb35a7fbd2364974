// util's file writing and reading (swe/util/file.h): atomic writes that keep the mode, replace a link's
// target and never follow a planted link; the advisory lock across processes; bounded reads.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "swe/util/file.h"
#include "swe/util/json.h"

namespace swe::util {
namespace {

namespace fs = std::filesystem;

class UtilFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("swe_util_file_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string P(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static bool Write(const std::string& path, const std::string& text) {
    std::string error;
    const bool ok = WriteFileAtomically(path, {{text.data(), text.size()}}, &error);
    EXPECT_TRUE(ok) << error;
    return ok;
  }
  static unsigned Mode(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
  }
  fs::path dir_;
};

// Rewriting another user's file keeps its owner and group where the process may set them (root
// here, as the CI runs; elsewhere a user can keep only a group it belongs to).
TEST_F(UtilFile, AtomicWriteKeepsTheOwnerWherePermitted) {
  ASSERT_TRUE(Write(P("owned"), "one"));
  const uid_t uid = 65534;  // nobody
  const gid_t gid = 65534;
  if (chown(P("owned").c_str(), uid, gid) != 0) GTEST_SKIP() << "cannot give a file away here (not root)";
  ASSERT_EQ(chmod(P("owned").c_str(), 0640), 0);
  ASSERT_TRUE(Write(P("owned"), "two"));
  struct stat st;
  ASSERT_EQ(stat(P("owned").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid);
  EXPECT_EQ(st.st_gid, gid);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(Read(P("owned")), "two");
}

// The temporary files a killed writer left (DEST.tmp-<16 hex>) go at the next write of DEST; a
// writer's live one (locked), a recent one, other names and other destinations' stay.
TEST_F(UtilFile, AtomicWriteRemovesStaleTemporaryFilesOfItsDestination) {
  ASSERT_TRUE(Write(P("x.npy"), "old"));
  auto make = [&](const std::string& name, bool old_mtime) {
    std::ofstream(P(name)) << "partial";
    if (old_mtime) {
      const auto then = fs::file_time_type::clock::now() - std::chrono::minutes(5);
      fs::last_write_time(P(name), then);
    }
  };
  make("x.npy.tmp-0123456789abcdef", true);   // stale: removed
  make("x.npy.tmp-fedcba9876543210", false);  // just made: kept (its writer may lock it any moment)
  make("x.npy.tmp-00000000000000001", true);  // 17 digits: not ours
  make("x.npy.tmp-notahexnumber000", true);   // not ours
  make("y.npy.tmp-0123456789abcdef", true);   // another destination's
  make("x.npy.tmp-1111111111111111", true);   // a live writer's: locked
  const int held = open(P("x.npy.tmp-1111111111111111").c_str(), O_RDONLY);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);
  ASSERT_TRUE(Write(P("x.npy"), "new"));
  EXPECT_FALSE(fs::exists(P("x.npy.tmp-0123456789abcdef")));
  for (const char* kept : {"x.npy.tmp-fedcba9876543210", "x.npy.tmp-00000000000000001", "x.npy.tmp-notahexnumber000",
                           "y.npy.tmp-0123456789abcdef", "x.npy.tmp-1111111111111111"}) {
    EXPECT_TRUE(fs::exists(P(kept))) << kept;
  }
  close(held);
  EXPECT_EQ(Read(P("x.npy")), "new");
}

TEST_F(UtilFile, AtomicWriteKeepsTheModeAndLeavesNoTemporaryFile) {
  ASSERT_TRUE(Write(P("a"), "one"));
  EXPECT_EQ(Read(P("a")), "one");
  ASSERT_EQ(chmod(P("a").c_str(), 0600), 0);
  ASSERT_TRUE(Write(P("a"), "two"));
  EXPECT_EQ(Read(P("a")), "two");
  EXPECT_EQ(Mode(P("a")), 0600u);
  ASSERT_EQ(chmod(P("a").c_str(), 0640), 0);
  ASSERT_TRUE(Write(P("a"), "three"));
  EXPECT_EQ(Mode(P("a")), 0640u);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
}

TEST_F(UtilFile, AtomicWriteReplacesTheTargetOfALink) {
  ASSERT_TRUE(Write(P("target"), "old"));
  fs::create_symlink("target", P("link"));  // relative, as users make them
  ASSERT_TRUE(Write(P("link"), "new"));
  EXPECT_TRUE(fs::is_symlink(P("link")));
  EXPECT_EQ(Read(P("target")), "new");
}

TEST_F(UtilFile, AtomicWriteNeverFollowsAPlantedLink) {
  ASSERT_TRUE(Write(P("victim"), "precious"));
  fs::create_symlink(P("victim"), P("out.tmp"));  // the temporary name writers once used
  ASSERT_TRUE(Write(P("out"), "data"));
  EXPECT_EQ(Read(P("victim")), "precious");
  EXPECT_EQ(Read(P("out")), "data");
}

TEST_F(UtilFile, AtomicWriteFailsWithTheFileNamed) {
  std::string error;
  const std::string path = P("missing/dir/file");
  EXPECT_FALSE(WriteFileAtomically(path, {{"x", 1}}, &error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
}

TEST_F(UtilFile, LockExcludesAnotherProcessUntilReleased) {
  ASSERT_TRUE(Write(P("index"), "v1"));
  std::string error;
  auto lock = std::make_unique<FileLock>();
  ASSERT_TRUE(lock->Lock(P("index"), &error)) << error;
  const pid_t child = fork();
  if (child == 0) {
    lock->Unlock();  // closes the child's copy of the parent's descriptor, which still holds the lock
    FileLock mine;
    std::string e;
    // Waits for the parent; then sees the file the parent wrote while holding the lock.
    const bool ok = mine.Lock(P("index"), &e) && Read(P("index")) == "v2";
    std::ofstream(P("child_done")) << (ok ? "ok" : "failed");
    _exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fs::exists(P("child_done")));  // still waiting for the lock
  ASSERT_TRUE(Write(P("index"), "v2"));       // replaces the locked file with a new one
  lock.reset();
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(Read(P("child_done")), "ok");
}

TEST_F(UtilFile, LockOnAMissingFileFails) {
  FileLock lock;
  std::string error;
  EXPECT_FALSE(lock.Lock(P("none"), &error));
  EXPECT_NE(error.find(P("none")), std::string::npos) << error;
}

TEST_F(UtilFile, BoundedReadStopsEarly) {
  std::vector<uint8_t> out;
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadFileBounded("/dev/zero", "\x89SWE", 1 << 30, &out, &error), BoundedRead::kBadMagic);
  EXPECT_EQ(ReadFileBounded("/dev/zero", "", 1 << 20, &out, &error), BoundedRead::kTooLarge);
  EXPECT_NE(error.find("/dev/zero"), std::string::npos) << error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_TRUE(Write(P("small"), "\x89SWE and more"));
  EXPECT_EQ(ReadFileBounded(P("small"), "\x89SWE", 100, &out, &error), BoundedRead::kDone);
  EXPECT_EQ(std::string(out.begin(), out.end()), "\x89SWE and more");
  EXPECT_EQ(ReadFileBounded(P("small"), "", 5, &out, &error), BoundedRead::kTooLarge);
  EXPECT_EQ(ReadFileBounded(P("small"), "", SIZE_MAX, &out, &error), BoundedRead::kDone);  // no limit
  EXPECT_EQ(out.size(), 13u);
  EXPECT_EQ(ReadFileBounded(P("none"), "", 5, &out, &error), BoundedRead::kFailed);
}

TEST(UtilJson, NestingDepth) {
  EXPECT_TRUE(JsonDepthWithin("{}", 1));
  EXPECT_TRUE(JsonDepthWithin("[[1], {\"a\": [2]}]", 3));
  EXPECT_FALSE(JsonDepthWithin("[[1], {\"a\": [2]}]", 2));
  EXPECT_TRUE(JsonDepthWithin("\"[[[[\"", 1));          // brackets inside strings do not count
  EXPECT_TRUE(JsonDepthWithin("[\"\\\"[[[\"]", 1));     // nor after an escaped quote
  EXPECT_TRUE(JsonDepthWithin("]]]]", 1));              // not JSON: the parser says so, not this
  const std::string deep = std::string(200'000, '[') + std::string(200'000, ']');
  EXPECT_FALSE(JsonDepthWithin(deep, kMaxJsonDepth));
  EXPECT_TRUE(JsonDepthWithin(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'), kMaxJsonDepth));
}

}  // namespace
}  // namespace swe::util
