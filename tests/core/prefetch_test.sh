#!/usr/bin/env bash
# The prefetches of the hot paths are in the built code. GCC 12 deleted the tokenizer's without a
# word (a guarded __builtin_prefetch split into a "pure" function, then the call dropped: see
# WordIndex::Prefetch in core/src/word_index.h), and only a profile showed it.
#   prefetch_test.sh OBJDUMP FILE   (FILE: libswe_core.a, or a program linked with it)
set -euo pipefail
objdump=$1 file=$2
listing=$("$objdump" -d -C --no-show-raw-insn "$file")
status=0
for function in 'swe::Tokenizer::Impl::Run<' 'swe::Model::PrefetchRows(' 'swe::Index::Rescore(' \
                'swe::WordIndex::TryBuild('; do
  count=$(awk -v f="$function" '/^[0-9a-f]+ <.*>:$/ { inside = index($0, f) > 0 }
                                inside && /prefetch|prfm/ { n++ }
                                END { print n + 0 }' <<<"$listing")
  if [ "$count" -eq 0 ]; then
    echo "FAIL: no prefetch instruction in $function in $file"
    status=1
  else
    echo "ok: $count prefetch instructions in $function"
  fi
done
exit $status
