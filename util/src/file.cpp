#include "swe/util/file.h"

#include "swe/util/memory.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fcntl.h>
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

bool WriteFileAtomically(const std::string& path, std::initializer_list<ByteSpan> parts, std::string* error) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    *error = Describe(path, "", errno);
    return false;
  }
  bool ok = true;
  for (const ByteSpan& part : parts) {
    ok = ok && (part.size == 0 || std::fwrite(part.data, 1, part.size, f) == part.size);
  }
  int code = errno;
  if (std::fclose(f) != 0) {  // e.g. ENOSPC when the buffered tail is flushed
    if (ok) code = errno;
    ok = false;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    code = errno;
    ok = false;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    *error = Describe(path, "write failed: ", code);
  }
  return ok;
}

bool ReadFile(const std::string& path, std::string* out, std::string* error) { return ReadInto(path, out, error); }

bool ReadFile(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  return ReadInto(path, out, error);
}

WordsRead ReadRegularFileWords(const std::string& path, std::unique_ptr<uint64_t[]>* out, size_t* size,
                               std::string* error) {
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
