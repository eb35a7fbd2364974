// Memory hints for the large read-mostly buffers (a model's table).
#pragma once

#include <cstddef>

namespace swe::util {

// Asks Linux for 2 MB pages under the 2 MB-aligned part of [p, p + bytes); call it before the first
// write, so that the pages are huge from their first fault. The encoder reads table rows at random,
// and with 4 KB pages nearly every row read also misses the TLB (an 11 MB table spans 2,700 pages).
// Only a hint: elsewhere (transparent huge pages off, other systems, wasm) it does nothing.
void AdviseHugePages(void* p, size_t bytes);

}  // namespace swe::util
