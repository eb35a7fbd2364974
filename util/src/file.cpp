#include "swe/util/file.h"

#include "swe/util/memory.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace swe::util {
namespace {

std::string Describe(const std::string& path, const char* what, int error) {
  return path + ": " + what + std::strerror(error);
}

template <typename Bytes>
bool ReadInto(const std::string& path, Bytes* out, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = Describe(path, "", errno);
    return false;
  }
  out->clear();
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) out->insert(out->end(), buffer, buffer + n);
  const bool failed = std::ferror(f) != 0;
  const int code = errno;
  std::fclose(f);
  if (failed) *error = Describe(path, "read failed: ", code);
  return !failed;
}

}  // namespace

namespace {

// `path`, or the file it names when it is a symbolic link (through any chain of links).
bool ResolveLink(const std::string& path, std::string* target, std::string* error) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
    *target = path;
    return true;
  }
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (!resolved) {
    *error = Describe(path, "cannot resolve the link: ", errno);
    return false;
  }
  *target = resolved;
  std::free(resolved);
  return true;
}

std::string Directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool SyncDirectory(const std::string& path) {
  const int fd = ::open(Directory(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0 || errno == EINVAL;  // EINVAL: a file system that cannot sync directories
  ::close(fd);
  return ok;
}

FileId IdOf(const struct stat& st) { return FileId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)}; }

constexpr const char* kTempInfix = ".tmp-";
constexpr size_t kTempDigits = 16;

// Whether `name` is `base` followed by kTempInfix and kTempDigits hex digits: a temporary file of ours.
bool IsTemporaryOf(const std::string& name, const std::string& base) {
  const std::string prefix = base + kTempInfix;
  if (name.size() != prefix.size() + kTempDigits || name.compare(0, prefix.size(), prefix) != 0) return false;
  return std::all_of(name.begin() + prefix.size(), name.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// Removes the temporary files of `path` that killed writers left: not locked by a live writer and
// untouched for 10 s (a writer locks its file right after creating it). Best effort: errors are ignored.
void RemoveStaleTemporaries(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  DIR* listing = ::opendir(dir.c_str());
  if (!listing) return;
  const time_t stale_before = ::time(nullptr) - 10;
  while (const dirent* entry = ::readdir(listing)) {
    if (!IsTemporaryOf(entry->d_name, base)) continue;
    const std::string name = dir + "/" + entry->d_name;
    const int fd = ::open(name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime < stale_before && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      ::unlink(name.c_str());
    }
    ::close(fd);
  }
  ::closedir(listing);
}

// A name no other writer uses now: PATH.tmp-<16 hex digits>, created by O_EXCL below.
std::string TemporaryName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  uint64_t x = static_cast<uint64_t>(::getpid()) << 32 ^ counter.fetch_add(1) ^
               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(x));
  return path + kTempInfix + hex;
}

}  // namespace

AtomicFile::~AtomicFile() {
  if (!file_) return;
  std::fclose(file_);
  ::unlink(temp_.c_str());
}

bool AtomicFile::Open(const std::string& path, std::string* error) {
  if (file_) {
    *error = path + ": already open";
    return false;
  }
  if (!ResolveLink(path, &path_, error)) return false;
  RemoveStaleTemporaries(path_);
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temp_ = TemporaryName(path_);
    // 0666 less the umask, as for any new file; an existing destination's mode is copied below.
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    *error = Describe(path, "cannot create a temporary file: ", errno);
    return false;
  }
  ::flock(fd, LOCK_EX | LOCK_NB);  // live: RemoveStaleTemporaries leaves it alone
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0) {
    // The owner first (a chown may clear set-id mode bits), then the mode. Another user's file keeps
    // its owner where the process may give it away (root); elsewhere the writer owns the new file.
    if (::fchown(fd, st.st_uid, st.st_gid) != 0 && errno != EPERM) {
      *error = Describe(path, "cannot keep the file's owner: ", errno);
      ::close(fd);
      ::unlink(temp_.c_str());
      return false;
    }
    if (::fchmod(fd, st.st_mode & 07777) != 0) {
      *error = Describe(path, "cannot keep the file's mode: ", errno);
      ::close(fd);
      ::unlink(temp_.c_str());
      return false;
    }
  }
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    *error = Describe(path, "", errno);
    ::close(fd);
    ::unlink(temp_.c_str());
    return false;
  }
  return true;
}

bool AtomicFile::Commit(std::string* error, FileId* id) {
  if (!file_) {
    *error = path_ + ": write failed: not open";
    return false;
  }
  std::FILE* f = file_;
  file_ = nullptr;
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  ok = ok && ::fsync(::fileno(f)) == 0;
  int code = errno;
  struct stat st;
  if (ok && id != nullptr && ::fstat(::fileno(f), &st) == 0) *id = IdOf(st);
  if (std::fclose(f) != 0 && ok) {  // e.g. ENOSPC when the buffered tail is flushed
    code = errno;
    ok = false;
  }
  if (ok && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    code = errno;
    ok = false;
  }
  if (!ok) {
    ::unlink(temp_.c_str());
    *error = Describe(path_, "write failed: ", code);
    return false;
  }
  if (!SyncDirectory(path_)) {
    *error = Describe(path_, "written, but syncing its directory failed: ", errno);
    return false;
  }
  return true;
}

bool WriteFileAtomically(const std::string& path, std::initializer_list<ByteSpan> parts, std::string* error) {
  AtomicFile out;
  if (!out.Open(path, error)) return false;
  for (const ByteSpan& part : parts) {
    if (part.size != 0 && std::fwrite(part.data, 1, part.size, out.file()) != part.size) {
      *error = Describe(path, "write failed: ", errno);
      return false;  // out's destructor removes the temporary file
    }
  }
  return out.Commit(error);
}

bool FileLock::Lock(const std::string& path, std::string* error) {
  Unlock();
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = Describe(path, "cannot lock: ", errno);
      return false;
    }
    int locked;
    do {
      locked = ::flock(fd, LOCK_EX);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0) {
      *error = Describe(path, "cannot lock: ", errno);
      ::close(fd);
      return false;
    }
    // The file may have been replaced while this waited: then the lock is on a file nobody reads.
    struct stat held, now;
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      fd_ = fd;
      return true;
    }
    ::close(fd);
  }
}

void FileLock::Unlock() {
  if (fd_ < 0) return;
  ::close(fd_);  // releases the flock
  fd_ = -1;
}

BoundedRead ReadFileBounded(const std::string& path, std::string_view magic, size_t max_bytes,
                            std::vector<uint8_t>* out, std::string* error, FileId* id) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = Describe(path, "", errno);
    return BoundedRead::kFailed;
  }
  struct stat st;
  if (id != nullptr && ::fstat(fd, &st) == 0) *id = IdOf(st);
  out->clear();
  BoundedRead result = BoundedRead::kDone;
  uint8_t buffer[1 << 16];
  for (;;) {
    // No more than the limit allows (plus one byte, to tell "exactly the limit" from "over it").
    const size_t left = max_bytes - std::min(max_bytes, out->size());
    const size_t want = left >= sizeof buffer ? sizeof buffer : left + 1;
    const ssize_t got = ::read(fd, buffer, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = Describe(path, "read failed: ", errno);
      result = BoundedRead::kFailed;
      break;
    }
    if (got == 0) break;
    const size_t before = out->size();
    out->insert(out->end(), buffer, buffer + got);
    const size_t checked = std::min(magic.size(), out->size());
    if (before < magic.size() && std::memcmp(out->data(), magic.data(), checked) != 0) {
      *error = path + ": bad magic";
      result = BoundedRead::kBadMagic;
      break;
    }
    if (out->size() > max_bytes) {
      *error = path + ": larger than " + std::to_string(max_bytes) + " bytes";
      result = BoundedRead::kTooLarge;
      break;
    }
  }
  ::close(fd);
  if (result == BoundedRead::kDone && out->size() < magic.size()) {
    *error = path + ": bad magic";
    result = BoundedRead::kBadMagic;
  }
  if (result != BoundedRead::kDone) out->clear();
  return result;
}

bool GetFileId(const std::string& path, FileId* id) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  *id = IdOf(st);
  return true;
}

FileInPlace::~FileInPlace() {
  if (fd_ >= 0) ::close(fd_);
}

bool FileInPlace::Fail(const char* what, std::string* error) const {
  *error = Describe(path_, what, errno);
  return false;
}

bool FileInPlace::Open(const std::string& path, bool* missing, std::string* error) {
  path_ = path;
  *missing = false;
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) {
    *missing = errno == ENOENT;
    return Fail("", error);
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0) return Fail("", error);
  if (!S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file";
    return false;
  }
  id_ = IdOf(st);
  size_ = static_cast<uint64_t>(st.st_size);
  return true;
}

bool FileInPlace::ReadAt(uint64_t offset, size_t n, uint8_t* out, std::string* error) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Fail("read failed: ", error);
    if (got == 0) {
      *error = path_ + ": read failed: the file is shorter than expected";
      return false;
    }
    done += static_cast<size_t>(got);
  }
  return true;
}

bool FileInPlace::WriteAt(uint64_t offset, const void* data, size_t n, std::string* error) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  size_t done = 0;
  while (done < n) {
    const ssize_t put = ::pwrite(fd_, bytes + done, n - done, static_cast<off_t>(offset + done));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return Fail("write failed: ", error);
    done += static_cast<size_t>(put);
  }
  size_ = std::max(size_, offset + n);
  return true;
}

bool FileInPlace::Truncate(uint64_t size, std::string* error) {
  int result;
  do {
    result = ::ftruncate(fd_, static_cast<off_t>(size));
  } while (result != 0 && errno == EINTR);
  if (result != 0) return Fail("truncate failed: ", error);
  size_ = size;
  return true;
}

bool FileInPlace::Sync(std::string* error) { return ::fdatasync(fd_) == 0 || Fail("write failed: ", error); }

bool ReadFile(const std::string& path, std::string* out, std::string* error) { return ReadInto(path, out, error); }

bool ReadFile(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  return ReadInto(path, out, error);
}

WordsRead ReadRegularFileWords(const std::string& path, std::unique_ptr<uint64_t[]>* out, size_t* size,
                               std::string* error, std::string_view magic) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = Describe(path, "", errno);
    return WordsRead::kFailed;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return WordsRead::kNotRegular;
  }
  const size_t n = static_cast<size_t>(st.st_size);
  if (!magic.empty()) {  // before the whole file: a large file of another kind fails at once
    char first[16];
    const size_t want = std::min(magic.size(), sizeof first);
    if (n < want || ::pread(fd, first, want, 0) != static_cast<ssize_t>(want) ||
        std::memcmp(first, magic.data(), want) != 0) {
      ::close(fd);
      *error = path + ": bad magic";
      return WordsRead::kBadMagic;
    }
  }
  out->reset(new uint64_t[n / 8 + 1]);
  AdviseHugePages(out->get(), n);  // before read() writes it: a model's table is used in place
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd, reinterpret_cast<uint8_t*>(out->get()) + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      *error = got < 0 ? Describe(path, "read failed: ", errno) : path + ": read failed: the file shrank";
      ::close(fd);
      return WordsRead::kFailed;
    }
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  *size = n;
  return WordsRead::kDone;
}

bool ReadLines(const std::string& path, std::vector<std::string>* lines, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open";
    return false;
  }
  lines->clear();
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines->push_back(std::move(line));
  }
  if (in.bad()) {
    *error = path + ": read failed";
    return false;
  }
  return true;
}

}  // namespace swe::util
