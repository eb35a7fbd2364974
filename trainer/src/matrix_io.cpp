#include "matrix_io.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace swe::trainer {
namespace {
constexpr char kMagic[8] = {'S', 'W', 'E', 'M', 'A', 'T', '0', '1'};

Status WriteAtomically(const std::string& path, const std::string& header, const void* data, size_t size) {
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return IoError("cannot write " + tmp + ": " + std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (size == 0 || std::fwrite(data, 1, size, f) == size);
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return IoError("write failed: " + tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return IoError("cannot rename " + tmp + " to " + path);
  return Status::Ok();
}
}  // namespace

Status WriteMatrix(const std::string& path, const Matrix& m) {
  if (m.data.size() != m.rows * m.cols) return Internal("matrix size mismatch writing " + path);
  std::string header(kMagic, 8);
  uint64_t dims[2] = {m.rows, m.cols};
  header.append(reinterpret_cast<const char*>(dims), sizeof dims);
  return WriteAtomically(path, header, m.data.data(), m.data.size() * sizeof(float));
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
  return WriteAtomically(path, text, nullptr, 0);
}

Status ReadTextFile(const std::string& path, std::string* text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return IoError("cannot read " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  *text = ss.str();
  return Status::Ok();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace swe::trainer
