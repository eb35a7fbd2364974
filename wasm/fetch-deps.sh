#!/usr/bin/env bash
# Fetches the sources the WebAssembly build compiles besides core: zstd (its single-file decoder) and
# Cap'n Proto (the lite runtime), with `apt-get source`, at the versions of the installed Debian packages
# (so generated Cap'n Proto code and the runtime come from the same release). Idempotent and cached:
# the unpacked trees live in .cache/wasm-deps/ (git-ignored, never committed); a second run does nothing.
# Adds a deb-src entry for the mirror of /etc/apt/sources.list.d/debian.sources when none exists.
# Prints the two source directories, one per line: zstd first, then capnproto.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${SWE_WASM_DEPS_CACHE:-$PWD/.cache/wasm-deps}
mkdir -p "$cache"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

version_of() {  # the source version of an installed binary package, of this machine's architecture
  # (with arm64 multiarch packages beside it, scripts/test-aarch64.sh, a bare name matches both)
  dpkg-query -W -f='${source:Version}' "$1:$(dpkg --print-architecture)" 2>/dev/null || true
}
zstd_version=$(version_of libzstd-dev)
capnp_version=$(version_of libcapnp-dev)
if [ -z "$zstd_version" ] || [ -z "$capnp_version" ]; then
  echo "fetch-deps: libzstd-dev and libcapnp-dev must be installed (scripts/install-deps.sh)" >&2
  exit 1
fi
# Debian unpacks "<source>-<upstream version>" (no epoch, no Debian revision, "+dfsg..." dropped).
upstream() { local v=${1#*:}; v=${v%-*}; echo "${v%%+*}"; }
zstd_dir="$cache/libzstd-$(upstream "$zstd_version")"
capnp_dir="$cache/capnproto-$(upstream "$capnp_version")"

have_deb_src() {
  grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/
}

add_deb_src() {
  local src=/etc/apt/sources.list.d/debian.sources
  local uri
  uri=$(awk '/^URIs:/ {print $2; exit}' "$src" 2>/dev/null || true)
  [ -n "$uri" ] || uri=http://deb.debian.org/debian
  local suite
  suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  echo "fetch-deps: adding deb-src for $uri $suite" >&2
  $sudo tee /etc/apt/sources.list.d/swe-deb-src.sources >/dev/null <<EOF
Types: deb-src
URIs: $uri
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  $sudo apt-get update -qq
}

fetch() {  # fetch <source package> <version> <expected dir>
  local pkg=$1 version=$2 dir=$3
  [ -d "$dir" ] && return 0
  command -v dpkg-source >/dev/null || {
    echo "fetch-deps: dpkg-source is missing (apt-get install dpkg-dev)" >&2
    exit 1
  }
  have_deb_src || add_deb_src
  local tmp
  tmp=$(mktemp -d "$cache/.fetch-XXXXXX")
  # apt-get source runs dpkg-source in the current directory; as root it warns that the download is
  # not sandboxed, which is harmless here.
  if ! (cd "$tmp" && apt-get source -qq "$pkg=$version" >/dev/null 2>"$tmp/log"); then
    # The package lists may predate the deb-src entry (or be stale): refresh once and retry.
    $sudo apt-get update -qq
    (cd "$tmp" && apt-get source -qq "$pkg=$version" >/dev/null 2>"$tmp/log") || {
      cat "$tmp/log" >&2
      exit 1
    }
  fi
  local unpacked
  unpacked=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
  [ -n "$unpacked" ] || { echo "fetch-deps: apt-get source $pkg unpacked nothing" >&2; exit 1; }
  mv "$unpacked" "$dir"
  rm -rf "$tmp"
  echo "fetch-deps: $pkg $version -> $dir" >&2
}

fetch libzstd "$zstd_version" "$zstd_dir"
fetch capnproto "$capnp_version" "$capnp_dir"
echo "$zstd_dir"
echo "$capnp_dir"
