# Sourced by build.sh and experiments.sh (on the GPU machine): where the unpacked build dependencies
# live, and a zstd reader (the GPU image has no zstd program; pyarrow reads zstd streams).
SWE_GPU_DEPS=/tmp/swe-deps
SWE_GPU_LIBS=$SWE_GPU_DEPS/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$SWE_GPU_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}  # capnp at build time, the trainer
unzstd() {
  if command -v zstd >/dev/null; then zstd -dc "$1"; else
    python3 -c "import pyarrow as pa, shutil, sys; shutil.copyfileobj(pa.input_stream(sys.argv[1], compression='zstd'), sys.stdout.buffer, 1 << 24)" "$1"; fi
}
