#!/usr/bin/env bash
# The tokenizer's word-slot prefetches are in the built code. GCC 12 deleted them once without a
# word (a guarded __builtin_prefetch split into a "pure" function, then the call dropped: see
# WordIndex::Prefetch in core/src/word_index.h), and only a profile showed it.
#   prefetch_test.sh OBJDUMP FILE   (FILE: libswe_core.a, or a program linked with it)
set -euo pipefail
objdump=$1 file=$2
count=$("$objdump" -d -C --no-show-raw-insn "$file" |
  awk '/^[0-9a-f]+ <.*>:$/ { inside = index($0, "swe::Tokenizer::Impl::Run<") > 0 }
       inside && /prefetch|prfm/ { n++ }
       END { print n + 0 }')
if [ "$count" -eq 0 ]; then
  echo "FAIL: no prefetch instruction in swe::Tokenizer::Impl::Run in $file (see WordIndex::Prefetch)"
  exit 1
fi
echo "ok: $count prefetch instructions in swe::Tokenizer::Impl::Run"
