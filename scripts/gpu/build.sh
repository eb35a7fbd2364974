#!/usr/bin/env bash
# On a GPU machine without apt or network (the `device` machines: pip's CUDA torch, nvcc, cmake, ninja,
# g++): unpacks .gpu/deps.tar.zst (scripts/gpu/pack.sh) into /tmp/swe-deps (common.sh) and builds swe-trainer
# against the CUDA libtorch in build/trainer-cuda, with the given extra targets (e.g. trainer_cuda_test).
# The programs find the unpacked libraries through their rpath.
#   bash scripts/gpu/build.sh [TARGET...]
set -eo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
P=$SWE_GPU_DEPS
L=$SWE_GPU_LIBS
mkdir -p $P && unzstd .gpu/deps.tar.zst | tar -xf - -C $P
torch_prefix="${SWE_TORCH_PREFIX:-$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')}"
mkdir -p build
cmake -S . -B build/trainer-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DSWE_BUILD_TRAINER=ON \
  -DSWE_TRAINER_CUDA=${SWE_TRAINER_CUDA:-ON} -DSWE_BUILD_NATIVE=OFF -DSWE_BUILD_BENCH=OFF \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$P/usr" -DCapnProto_DIR=$L/cmake/CapnProto -Dzstd_DIR=$L/cmake/zstd \
  -DGTest_DIR=$L/cmake/GTest -Dnlohmann_json_DIR=$P/usr/share/cmake/nlohmann_json -DICU_ROOT=$P/usr \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags -Wl,-rpath-link,$L -Wl,-rpath,$L" > build/gpu-configure.log
tail -3 build/gpu-configure.log
cmake --build build/trainer-cuda --target swe-trainer "$@"
