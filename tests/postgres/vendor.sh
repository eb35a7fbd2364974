# The third-party PostgreSQL extensions the tests run against (sourced): pgvector and Citus, built from
# ../shared/vendor/ (its README: versions, checksums, licences) into a cache outside the tracked
# files, .cache/pg-vendor/NAME-VERSION-pgMAJOR-KEY/ (KEY: a hash of the tarball's sha256, of
# `pg_config --version` and of the build flags below), reused while all three are the same. Only the
# libraries and the extension files are built and kept (no docs, no tests of the vendors), with
# make -j$(nproc) and with_llvm=no (Debian's PGXS would also compile every file to LLVM bitcode for JIT
# inlining, twice the work).

cpu_of_children() {  # VAR FILE: VAR = the user + system CPU milliseconds of this shell's finished
  times >"$2"        # children, from bash's `times` (in this shell: in $(...) it would see a subshell's)
  printf -v "$1" '%d' "$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%d", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$2")"
}

# pg_vendor_build NAME VERSION: builds NAME-VERSION unless cached; prints the staged installation
# (a DESTDIR: its files under the system's pkglibdir and sharedir paths). Reports the build's wall time.
pg_vendor_build() {
  local name=$1 version=$2 pg_config=$PG_SYSTEM_BIN/pg_config
  local tarball=../shared/vendor/$name-$version.tar.gz key dir src start start_cpu end_cpu flags
  case $name in
    # OPTFLAGS empty: pgvector's default -march=native would tie the cache to this machine's CPU.
    pgvector) flags=(OPTFLAGS= with_llvm=no) ;;
    # Citus unoptimised and without debug information: the tests need its behaviour, not its speed,
    # and it compiles in 60% of the CPU time of -O2 -g. No telemetry (libcurl), no lz4 or zstd.
    citus) flags=("COPT=-O0 -g0" with_llvm=no) ;;
    *) echo "pg_vendor_build: unknown $name" >&2; return 1 ;;
  esac
  [ -f "$tarball" ] || { echo "missing $tarball (../shared/vendor)" >&2; return 1; }
  key=$( { sha256sum <"$tarball"; "$pg_config" --version; printf '%s\n' "${flags[@]}"; } | sha256sum | cut -c1-12)
  dir=$PWD/.cache/pg-vendor/$name-$version-pg$("$pg_config" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')-$key
  if [ -f "$dir/done" ]; then
    echo "$name $version: cached in ${dir#"$PWD"/}" >&2
    echo "$dir/stage"
    return
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  start=$(date +%s%N)
  cpu_of_children start_cpu "$dir/times"
  tar -C "$dir" -xzf "$tarball"
  src=$dir/$name-$version
  if ! case $name in
    pgvector) make -C "$src" -j"$(nproc)" PG_CONFIG="$pg_config" "${flags[@]}" &&
              make -C "$src" install PG_CONFIG="$pg_config" "${flags[@]}" DESTDIR="$dir/stage" ;;
    citus) (cd "$src" && ./configure PG_CONFIG="$pg_config" --without-libcurl --without-lz4 --without-zstd) &&
           make -C "$src" -j"$(nproc)" "${flags[@]}" extension &&
           make -C "$src" "${flags[@]}" install-extension DESTDIR="$dir/stage" ;;
  esac >"$dir/build.log" 2>&1; then
    tail -n 30 "$dir/build.log" >&2
    echo "FAIL: building $name $version (log: $dir/build.log)" >&2
    return 1
  fi
  rm -rf "$src"
  touch "$dir/done"
  cpu_of_children end_cpu "$dir/times"
  echo "$name $version: built in $(( ($(date +%s%N) - start) / 1000000 )) ms ($(( end_cpu - start_cpu )) ms of CPU)" \
    "into ${dir#"$PWD"/}" >&2
  echo "$dir/stage"
}

# pg_vendor_install BIN STAGE: the staged extension's libraries and extension files, into the private
# installation at BIN (tests/postgres/lib.sh).
pg_vendor_install() {
  local bin=$1 stage=$2 pg_config=$PG_SYSTEM_BIN/pg_config
  cp -r "$stage$("$pg_config" --pkglibdir)"/*.so "$("$bin/pg_config" --pkglibdir)/"
  cp -r "$stage$("$pg_config" --sharedir)"/extension/* "$("$bin/pg_config" --sharedir)/extension/"
}
