// CRC-32C (Castagnoli, reflected) from tables, slicing-by-16: table[k][b] is the CRC of byte b
// followed by k zero bytes, so sixteen input bytes take sixteen independent lookups and one dependent
// step: 1.2x slicing-by-8's speed in V8's wasm, 1.5x natively. The portable variants' crc32c (the
// wasm build's), and the fallback of CPUs without a CRC instruction.
#include <array>
#include <cstddef>
#include <cstdint>

#include "simd/kernels.h"

namespace swe::simd {
namespace {

using CrcTables = std::array<std::array<uint32_t, 256>, 16>;
constexpr CrcTables MakeCrcTables() {
  CrcTables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < t.size(); ++k) {
    for (uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}
constexpr CrcTables kCrc = MakeCrcTables();

uint32_t Load32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

uint32_t Crc32cTables(const uint8_t* data, size_t size, uint32_t crc) {
  crc = ~crc;
  size_t i = 0;
  const auto& t = kCrc;
  for (; i + 16 <= size; i += 16) {
    const uint32_t a = Load32(data + i) ^ crc, b = Load32(data + i + 4), c = Load32(data + i + 8),
                   d = Load32(data + i + 12);
    crc = t[15][a & 0xFF] ^ t[14][(a >> 8) & 0xFF] ^ t[13][(a >> 16) & 0xFF] ^ t[12][a >> 24] ^
          t[11][b & 0xFF] ^ t[10][(b >> 8) & 0xFF] ^ t[9][(b >> 16) & 0xFF] ^ t[8][b >> 24] ^
          t[7][c & 0xFF] ^ t[6][(c >> 8) & 0xFF] ^ t[5][(c >> 16) & 0xFF] ^ t[4][c >> 24] ^
          t[3][d & 0xFF] ^ t[2][(d >> 8) & 0xFF] ^ t[1][(d >> 16) & 0xFF] ^ t[0][d >> 24];
  }
  for (; i < size; ++i) crc = t[0][(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

}  // namespace swe::simd
