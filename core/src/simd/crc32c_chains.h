// CRC-32C with a CPU's crc32 instruction (SSE4.2, ARMv8 CRC), 8 bytes per instruction. One chain of
// crc32s waits on each one's latency (3 cycles); three chains over three thirds of a block run in
// parallel, and their CRCs are combined by shifting over the bytes after them (a multiplication
// modulo the CRC's polynomial). The instruction issues one per cycle, so three chains keep it busy:
// 2.7x one chain (SSE4.2). A variant's translation unit includes it inside its (anonymous)
// namespace (after kernels_impl.h, which includes <cstring>) and passes its instruction's 8-byte and
// 1-byte steps; it includes nothing itself.

constexpr uint32_t kCrcPoly = 0x82F63B78u;  // reflected Castagnoli polynomial

// a * b modulo the polynomial (reflected bit order: bit 31 is x^0).
inline uint32_t MultModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b & 1) ? (b >> 1) ^ kCrcPoly : b >> 1;
  }
  return product;
}

// x^(8 * bytes) modulo the polynomial: multiplying a CRC register by it appends `bytes` zero bytes.
inline uint32_t ShiftBytes(uint64_t bytes) {
  uint32_t result = 1u << 31, square = 1u << 30;  // x^0, x^1
  for (uint64_t bits = 8 * bytes; bits != 0; bits >>= 1) {
    if (bits & 1) result = MultModP(square, result);
    square = MultModP(square, square);
  }
  return result;
}

// 8 bytes as the instruction takes them, byte 0 lowest: x86-64 and AArch64 Linux are little-endian.
// (memcpy: GCC 12 left a byte-by-byte loop as 8 loads and shifts.)
inline uint64_t LoadLittle64(const uint8_t* p) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the crc32 steps read little-endian words");
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// step8(crc, 8 bytes as a little-endian word), step1(crc, byte): the instruction's two forms.
template <class Step8, class Step1>
[[gnu::always_inline]] inline uint32_t Crc32cChains(const uint8_t* data, size_t size, uint32_t crc, Step8 step8,
                                                    Step1 step1) {
  constexpr size_t kLane = 8192;  // bytes per chain per block
  static const uint32_t shift1 = ShiftBytes(kLane), shift2 = ShiftBytes(2 * kLane);
  uint32_t c = ~crc;
  size_t i = 0;
  for (; i + 3 * kLane <= size; i += 3 * kLane) {
    uint32_t c1 = 0, c2 = 0;
    const uint8_t* p = data + i;
    for (size_t j = 0; j < kLane; j += 8) {
      c = step8(c, LoadLittle64(p + j));
      c1 = step8(c1, LoadLittle64(p + kLane + j));
      c2 = step8(c2, LoadLittle64(p + 2 * kLane + j));
    }
    c = MultModP(shift2, c) ^ MultModP(shift1, c1) ^ c2;
  }
  for (; i + 8 <= size; i += 8) c = step8(c, LoadLittle64(data + i));
  for (; i < size; ++i) c = step1(c, data[i]);
  return ~c;
}
