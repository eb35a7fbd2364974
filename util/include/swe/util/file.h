// Whole-file and line reading, and atomic writing. Errors come back as text that names the file; callers wrap
// it in their own error type (swe::Status, swe_status, the CLI's CliError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace swe::util {

struct ByteSpan {
  const void* data;
  size_t size;
};

// A file's identity: its device and inode. A file renamed over a path is another file.
struct FileId {
  uint64_t device = 0;
  uint64_t inode = 0;
  bool operator==(const FileId& other) const { return device == other.device && inode == other.inode; }
  bool operator!=(const FileId& other) const { return !(*this == other); }
};

// The identity of the file `path` names (through links); false when there is none.
bool GetFileId(const std::string& path, FileId* id);

// A file written under a unique temporary name beside its destination and renamed over it by
// Commit(), so that no reader ever sees a half-written file and two writers never share a temporary
// file. The temporary file is created with O_EXCL | O_NOFOLLOW (a link planted there is never
// followed) and gets the destination's mode, and its owner and group where the process may set them,
// when the destination exists. A destination that is a symbolic link stays one: the file it points to
// is replaced. Commit() fsyncs the file and then the directory, so a crash leaves either the old file
// or the new one. Destroyed without Commit(), it removes the temporary file. The temporary file is
// locked (flock) while it is written: Open() removes the destination's temporary files that a killed
// writer left (DEST.tmp-<16 hex digits>, unlocked and untouched for 10 s).
class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Creates the temporary file for `path`; false with *error ("PATH: ...") when it cannot.
  bool Open(const std::string& path, std::string* error);
  // The open temporary file (buffered; Commit flushes it).
  std::FILE* file() const { return file_; }
  // Flushes, fsyncs and renames the file over the destination, then fsyncs the directory; *id (may be
  // null) receives the identity of the file now at the destination.
  bool Commit(std::string* error, FileId* id = nullptr);

 private:
  std::string path_;  // the destination (a link's target, resolved)
  std::string temp_;
  std::FILE* file_ = nullptr;
};

// Writes `parts` in order through an AtomicFile. On failure sets *error ("PATH: ...") and returns
// false, leaving `path` as it was.
bool WriteFileAtomically(const std::string& path, std::initializer_list<ByteSpan> parts, std::string* error);

// An exclusive advisory lock (flock) on an existing file, held until Unlock() or destruction: what a
// read-modify-write of the file (swe index add/remove, swe serve's /index/add) holds from before it
// reads to after WriteFileAtomically has replaced the file. Every writer of the file must take it.
// Lock() follows links (the target is locked) and waits for another holder; since a replaced file is a
// new file, it locks again until the file it holds is the one `path` names, so the holder always reads
// the latest version. Readers that only read need no lock: they see the old file or the new one.
class FileLock {
 public:
  FileLock() = default;
  ~FileLock() { Unlock(); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Blocks until the lock is held; false with *error ("PATH: ...") when the file cannot be opened.
  bool Lock(const std::string& path, std::string* error);
  void Unlock();

 private:
  int fd_ = -1;
};

// An existing regular file opened to be read and changed in place (through links): what a writer
// appending to an index file's change log uses. Every call fails with *error ("PATH: ...").
class FileInPlace {
 public:
  FileInPlace() = default;
  ~FileInPlace();
  FileInPlace(const FileInPlace&) = delete;
  FileInPlace& operator=(const FileInPlace&) = delete;

  // False when it cannot be opened (*missing: it does not exist) or is not a regular file.
  bool Open(const std::string& path, bool* missing, std::string* error);
  FileId id() const { return id_; }
  uint64_t size() const { return size_; }
  // Exactly `n` bytes at `offset` (false when the file is shorter).
  bool ReadAt(uint64_t offset, size_t n, uint8_t* out, std::string* error);
  bool WriteAt(uint64_t offset, const void* data, size_t n, std::string* error);
  bool Truncate(uint64_t size, std::string* error);
  bool Sync(std::string* error);  // fdatasync: the data and the size that reads need

 private:
  bool Fail(const char* what, std::string* error) const;
  std::string path_;
  int fd_ = -1;
  FileId id_;
  uint64_t size_ = 0;
};

// Reads the whole file into *out; false with *error ("PATH: ...") when it cannot.
bool ReadFile(const std::string& path, std::string* out, std::string* error);
bool ReadFile(const std::string& path, std::vector<uint8_t>* out, std::string* error);

// A regular file read with one read() into 8-byte-aligned memory that the caller keeps (*size bytes),
// for readers that use the bytes where they land (a model's raw payload): no second copy, no growing
// buffer. kNotRegular, with nothing read, for anything else (a pipe): read that with ReadFileBounded.
// kBadMagic, with nothing more read, when the file does not start with `magic`.
enum class WordsRead { kDone, kFailed, kNotRegular, kBadMagic };
WordsRead ReadRegularFileWords(const std::string& path, std::unique_ptr<uint64_t[]>* out, size_t* size,
                               std::string* error, std::string_view magic = {});

// ReadFile for input that may be endless (a pipe, /dev/zero): fails as soon as the first bytes differ
// from `magic` (kBadMagic, "PATH: bad magic"), or once more than `max_bytes` have come (kTooLarge,
// "PATH: larger than N bytes"), instead of reading on.
enum class BoundedRead { kDone, kFailed, kTooLarge, kBadMagic };
// *id (may be null) receives the identity of the file read.
BoundedRead ReadFileBounded(const std::string& path, std::string_view magic, size_t max_bytes,
                            std::vector<uint8_t>* out, std::string* error, FileId* id = nullptr);

// The lines of a text file, each without its "\n" or "\r\n"; empty lines are kept, and a last line
// without an end counts. False with *error ("PATH: cannot open" or "PATH: read failed") when it cannot.
bool ReadLines(const std::string& path, std::vector<std::string>* lines, std::string* error);

}  // namespace swe::util
