#!/usr/bin/env bash
# Runs README.md's JavaScript quick start as written, after `bash scripts/release.sh`: its `npm install`
# and `node` lines (from the repository root) and its index.mjs, with the app folder ../hello-swe moved
# to a temporary directory so the test leaves nothing behind. Fails when the README's commands or the
# packages they name do not work, or when the best-ranked text is not the guitar sentence.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
app="$tmp/hello-swe"
# The quick start's lines: the shell commands that name ../hello-swe, and the js block that follows.
commands=$(awk '/^```sh$/ { sh = 1; next } /^```$/ { sh = 0 } sh && /\.\.\/hello-swe/' README.md)
script=$(awk '/^```js$/ { js = 1; next } /^```$/ { if (js && found) exit; js = 0 }
              js && /^\/\/ \.\.\/hello-swe\/index\.mjs$/ { found = 1; next } js && found' README.md)
[ "$(grep -c . <<<"$commands")" -ge 2 ] && [ -n "$script" ] ||
  { echo "readme_test: README.md has no JavaScript quick start (npm install / node ../hello-swe, index.mjs)" >&2; exit 1; }
mkdir -p "$app"
printf '%s\n' "$script" > "$app/index.mjs"
out=$(set -e; eval "${commands//..\/hello-swe/$app}" 2>&1) || { echo "$out" >&2; echo "readme_test: failed" >&2; exit 1; }
echo "$out"
[ "$(grep -m1 -o "text: '[^']*'" <<<"$out")" = "text: 'a man is playing a guitar'" ] ||
  { echo "readme_test: the guitar sentence is not ranked first" >&2; exit 1; }
echo "readme_test: ok"
