#!/usr/bin/env bash
# On a GPU machine (the `device` machines have a different x86 CPU from the development one): builds
# the native benches against the unpacked dependencies (.gpu/deps.tar.zst, scripts/gpu/pack.sh) and
# runs encode_bench and search_bench on the default model, writing their output under OUT. A second
# CPU shows which results are this development VM's and which are the code's (docs/BENCHMARKS.md).
# Needs, carried by name: .gpu/deps.tar.zst, .gpu/1m.txt.zst (`bash bench/text_corpus.sh F 964000`,
# zstd), .gpu/data/eval/sts/stsbenchmark/sts-dev.csv (encode_bench's STS-B sentences).
#   bash scripts/gpu/bench-cpu.sh OUT [encode]     (encode: encode_bench only, a minute instead of seven)
set -eo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out=${1:?OUT folder}
P=$SWE_GPU_DEPS
L=$SWE_GPU_LIBS
mkdir -p $P "$out" && unzstd .gpu/deps.tar.zst | tar -xf - -C $P
(lscpu; grep -m1 flags /proc/cpuinfo; cat /sys/kernel/mm/transparent_hugepage/enabled) > "$out/cpu.txt"
cmake -S . -B build/bench-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSWE_BUILD_TRAINER=OFF \
  -DSWE_BUILD_TESTS=OFF -DSWE_BUILD_NATIVE=ON -DSWE_BUILD_BENCH=ON -DCMAKE_PREFIX_PATH="$P/usr" \
  -DCapnProto_DIR=$L/cmake/CapnProto -Dzstd_DIR=$L/cmake/zstd \
  -Dnlohmann_json_DIR=$P/usr/share/cmake/nlohmann_json \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags -Wl,-rpath-link,$L -Wl,-rpath,$L" > "$out/configure.log"
cmake --build build/bench-cpu --target encode_bench search_bench > "$out/build.log"
bin=build/bench-cpu/bench
model=models/swe-en-use-lite-large-para.swe
unzstd .gpu/1m.txt.zst > /tmp/1m.txt
head -n 56402 /tmp/1m.txt > /tmp/realistic.txt  # bench/text_corpus.sh's default corpus: its first lines
# One core each, as on the development machine (taskset: the other cores stay out of the way).
for simd in avx2 avx512; do
  timeout 120 taskset -c 2 $bin/encode_bench --data .gpu/data --model $model --text /tmp/realistic.txt --dtype int8 \
    --simd $simd --no-index --repeats 5 --min-time 0.2 >> "$out/encode.jsonl" 2>> "$out/encode.txt" || true
done
[ "${2:-}" = encode ] && exit 0
for scan in avx2 avx512; do
  SWE_SIMD=$scan timeout 180 taskset -c 2 $bin/search_bench --text /tmp/1m.txt --model $model --threads 1 \
    --queries .gpu/data/eval/sts/stsbenchmark/sts-dev.csv \
    --repeats 3 --candidates 100,300,500 > "$out/search-$scan.jsonl" 2> "$out/search-$scan.txt" || true
done
