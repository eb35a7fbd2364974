# Helpers for the PostgreSQL tests and benchmark (sourced): a private copy of the PostgreSQL 15
# installation with the extension in it, and clusters in temporary directories on Unix sockets only.
# PostgreSQL finds its share/ and lib/ relative to its binary, so a hard-linked copy of the tree is a
# complete installation that the system's does not see; nothing is written outside $SWE_PG_TMP.
PG_SYSTEM_BIN=${PG_SYSTEM_BIN:-/usr/lib/postgresql/15/bin}

# pg_setup NAME: a temporary directory $tmp (/tmp/NAME.XXXXXX) with a private installation whose
# programs are in $bin; on exit the clusters pg_start started are stopped and $tmp is removed.
pg_setup() {
  tmp=$(mktemp -d "/tmp/$1.XXXXXX")
  clusters=()
  trap pg_cleanup EXIT
  chmod 755 "$tmp"
  bin=$(pg_tree_create "$tmp/install")
}

pg_cleanup() {
  local data
  for data in "${clusters[@]}"; do pg_stop "$bin" "$data"; done
  rm -rf "$tmp"
}

as_pg() {  # the server refuses to run as root
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# pg_tree_create DIR: a private installation under DIR (bin, lib, share); prints its bin directory.
pg_tree_create() {
  local dir=$1 lib share
  lib=$("$PG_SYSTEM_BIN/pg_config" --pkglibdir)
  share=$("$PG_SYSTEM_BIN/pg_config" --sharedir)
  mkdir -p "$dir$(dirname "$PG_SYSTEM_BIN")" "$dir$(dirname "$lib")" "$dir$(dirname "$share")"
  cp -al "$PG_SYSTEM_BIN" "$dir$PG_SYSTEM_BIN" 2>/dev/null || cp -a "$PG_SYSTEM_BIN" "$dir$PG_SYSTEM_BIN"
  [ "$lib" = "$(dirname "$PG_SYSTEM_BIN")/lib" ] || { echo "unexpected layout: $lib" >&2; return 1; }
  cp -as "$lib" "$dir$lib"
  cp -as "$share" "$dir$share"
  echo "$dir$PG_SYSTEM_BIN"
}

# pg_tree_install BIN SO FILE...: the extension's library and its control and SQL files, where the
# installation at BIN looks for them.
pg_tree_install() {
  local bin=$1 so=$2; shift 2
  cp "$so" "$("$bin/pg_config" --pkglibdir)/"
  cp "$@" "$("$bin/pg_config" --sharedir)/extension/"
}

# pg_start BIN DATA SOCKDIR PORT MODELDIR [SETTING...]: initdb (UTF8, C locale) and start a cluster
# (added to $clusters, which pg_cleanup stops).
pg_start() {
  local bin=$1 data=$2 sock=$3 port=$4 models=$5; shift 5
  as_pg "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C >/dev/null
  {
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$sock'"
    echo "port = $port"
    echo "swe.model_dir = '$models'"
    echo "fsync = off"
    echo "shared_buffers = 64MB"
    echo "max_connections = 30"
    for setting in "$@"; do echo "$setting"; done
  } >>"$data/postgresql.conf"
  clusters+=("$data")
  as_pg "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >/dev/null
}

pg_stop() {  # BIN DATA
  as_pg "$1/pg_ctl" -D "$2" -m fast -w stop >/dev/null 2>&1 || true
}
