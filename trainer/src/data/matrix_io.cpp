#include "data/matrix_io.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "swe/util/file.h"

namespace swe::trainer {
namespace {
constexpr char kMagic[8] = {'S', 'W', 'E', 'M', 'A', 'T', '0', '1'};

Status WriteAtomically(const std::string& path, std::initializer_list<util::ByteSpan> parts) {
  std::string error;
  if (!util::WriteFileAtomically(path, parts, &error)) return IoError(error);
  return Status::Ok();
}
}  // namespace

Status WriteMatrix(const std::string& path, const Matrix& m) {
  if (m.data.size() != m.rows * m.cols) return Internal("matrix size mismatch writing " + path);
  std::string header(kMagic, 8);
  uint64_t dims[2] = {m.rows, m.cols};
  header.append(reinterpret_cast<const char*>(dims), sizeof dims);
  return WriteAtomically(path, {{header.data(), header.size()}, {m.data.data(), m.data.size() * sizeof(float)}});
}

Status ReadMatrix(const std::string& path, Matrix* m) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return IoError("cannot read " + path);
  char head[24];
  struct stat st;
  bool ok = std::fread(head, 1, sizeof head, f) == sizeof head && fstat(fileno(f), &st) == 0;
  if (!ok || std::memcmp(head, kMagic, 8) != 0) {
    std::fclose(f);
    return Corrupt(path + ": not a trainer matrix file");
  }
  uint64_t rows, cols;
  std::memcpy(&rows, head + 8, 8);
  std::memcpy(&cols, head + 16, 8);
  uint64_t payload = static_cast<uint64_t>(st.st_size) - sizeof head;
  if (cols != 0 && (rows > payload / 4 / cols || rows * cols * 4 != payload)) {
    std::fclose(f);
    return Corrupt(path + ": size does not match its header");
  }
  if (cols == 0 && payload != 0) {
    std::fclose(f);
    return Corrupt(path + ": size does not match its header");
  }
  m->rows = rows;
  m->cols = cols;
  m->data.resize(rows * cols);
  ok = m->data.empty() || std::fread(m->data.data(), 4, m->data.size(), f) == m->data.size();
  std::fclose(f);
  if (!ok) return IoError("read failed: " + path);
  for (float v : m->data) {
    if (!std::isfinite(v)) return Corrupt(path + ": non-finite value");
  }
  return Status::Ok();
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  return WriteAtomically(path, {{text.data(), text.size()}});
}

Status ReadTextFile(const std::string& path, std::string* text) {
  std::string error;
  if (!util::ReadFile(path, text, &error)) return IoError(error);
  return Status::Ok();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace swe::trainer
