#!/usr/bin/env bash
# Fetches the sources of core's two dependencies for the builds that compile them instead of linking the
# system's libraries (cmake/deps_from_source.cmake): the WebAssembly module and the Python wheel's
# extension. zstd and Cap'n Proto, with `apt-get source`, at the *upstream* versions of the installed
# Debian packages (generated Cap'n Proto code and the runtime must come from the same release; the
# Debian revision does not matter). Where the installed revision's source is not reachable (a security
# update whose source archive these machines cannot fetch), the newest source of the same upstream
# version is taken, and the script says which; it fails only when no source of that upstream version
# exists. Idempotent and cached: the unpacked trees live in .cache/deps-src/ (git-ignored, never
# committed; SWE_DEPS_CACHE moves it); a second run does nothing. Adds a deb-src entry for the
# mirror of /etc/apt/sources.list.d/debian.sources when none exists.
# Prints the two source directories, one per line: zstd first, then capnproto.
# Sourced (tests/wasm/fetch_deps_test.sh), it only defines its functions.

version_of() {  # the source version of an installed binary package (once: arm64 may be installed too)
  dpkg-query -W -f='${source:Version}\n' "$1" 2>/dev/null | head -n1 || true
}

# The upstream version of a Debian version: no epoch, no Debian revision, no "+dfsg..." repack suffix.
# Debian unpacks a source as "<source>-<upstream version>".
upstream() { local v=${1#*:}; v=${v%-*}; echo "${v%%+*}"; }

# pick_source_version INSTALLED: reads `apt-cache showsrc` output on stdin and prints the version to
# fetch: INSTALLED itself when it is listed, else the newest listed version with INSTALLED's upstream
# version. Prints nothing and returns 1 when none has it.
pick_source_version() {
  local installed=$1 want best="" v
  want=$(upstream "$installed")
  while read -r v; do
    [ "$(upstream "$v")" = "$want" ] || continue
    if [ "$v" = "$installed" ]; then best=$v; break; fi
    if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
  done < <(sed -n 's/^Version: *//p')
  [ -n "$best" ] || return 1
  echo "$best"
}

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
  # Not the security archive: its source files are not reachable from every machine, and an
  # unreachable list fails apt-get update. pick_source_version takes the same upstream release instead.
  $sudo tee /etc/apt/sources.list.d/swe-deb-src.sources >/dev/null <<EOF
Types: deb-src
URIs: $uri
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  $sudo apt-get update -qq
}

# source_version PKG INSTALLED: the version of PKG's source to fetch (refreshing the package lists once
# when they list none of INSTALLED's upstream version yet).
source_version() {
  local pkg=$1 installed=$2 chosen
  chosen=$(apt-cache showsrc "$pkg" 2>/dev/null | pick_source_version "$installed") || {
    $sudo apt-get update -qq
    chosen=$(apt-cache showsrc "$pkg" 2>/dev/null | pick_source_version "$installed") || {
      echo "fetch-deps: no source of $pkg $(upstream "$installed") (installed: $installed) in the" \
           "deb-src lists, which have: $(apt-cache showsrc "$pkg" 2>/dev/null |
           sed -n 's/^Version: *//p' | tr '\n' ' ')" >&2
      return 1
    }
  }
  [ "$chosen" = "$installed" ] ||
    echo "fetch-deps: $pkg $installed has no source in the lists; using $chosen (same upstream release)" >&2
  echo "$chosen"
}

fetch() {  # fetch <source package> <installed version> <expected dir>
  local pkg=$1 installed=$2 dir=$3 version tmp unpacked
  [ -d "$dir" ] && return 0
  command -v dpkg-source >/dev/null || {
    echo "fetch-deps: dpkg-source is missing (apt-get install dpkg-dev)" >&2
    exit 1
  }
  have_deb_src || add_deb_src
  version=$(source_version "$pkg" "$installed") || exit 1
  tmp=$(mktemp -d "$cache/.fetch-XXXXXX")
  # apt-get source runs dpkg-source in the current directory; as root it warns that the download is
  # not sandboxed, which is harmless here.
  (cd "$tmp" && apt-get source -qq "$pkg=$version" >/dev/null 2>"$tmp/log") || {
    cat "$tmp/log" >&2
    rm -rf "$tmp"
    exit 1
  }
  unpacked=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
  [ -n "$unpacked" ] || { echo "fetch-deps: apt-get source $pkg unpacked nothing" >&2; exit 1; }
  mv "$unpacked" "$dir"
  rm -rf "$tmp"
  echo "fetch-deps: $pkg $version -> $dir" >&2
}

main() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  cache=${SWE_DEPS_CACHE:-$PWD/.cache/deps-src}
  mkdir -p "$cache"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  local zstd_version capnp_version
  zstd_version=$(version_of libzstd-dev)
  capnp_version=$(version_of libcapnp-dev)
  if [ -z "$zstd_version" ] || [ -z "$capnp_version" ]; then
    echo "fetch-deps: libzstd-dev and libcapnp-dev must be installed (scripts/install-deps.sh)" >&2
    exit 1
  fi
  fetch libzstd "$zstd_version" "$cache/libzstd-$(upstream "$zstd_version")"
  fetch capnproto "$capnp_version" "$cache/capnproto-$(upstream "$capnp_version")"
  echo "$cache/libzstd-$(upstream "$zstd_version")"
  echo "$cache/capnproto-$(upstream "$capnp_version")"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  main "$@"
fi
