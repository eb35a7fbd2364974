#!/usr/bin/env bash
# The web demo: builds what it needs (the wasm package, the default model, the passage collection, its
# prebuilt index, the static site in web-demo/build/site) and serves it on http://127.0.0.1:PORT/ (default 8080), printing
# the URL. Open it in a browser and type; everything runs in the page.
#
# The multilingual model (models/swe-multi-en-de-ja-zh.swe, or the file SWE_DEMO_MULTI_MODEL names) is
# added to the site when it exists, and --check then tests it too (web-demo/test/browser.test.mjs).
#
# usage: scripts/web-demo.sh [--port N]     build, then serve until Ctrl-C
#        scripts/web-demo.sh --check        build, then run the browser test (headless chromium) and exit
#        scripts/web-demo.sh --build-only   build only
set -euo pipefail
cd "$(dirname "$0")/.."
mode=serve
case "${1:-}" in
  --check) mode=check; shift ;;
  --build-only) mode=build; shift ;;
esac
bash scripts/install-deps.sh
[ -e node_modules/swe-embeddings ] && [ -e node_modules/playwright-core ] ||
  npm install --no-audit --no-fund --loglevel=error
bash scripts/build-wasm.sh >/dev/null
model=$(node web-demo/scripts/build-site.mjs --print-model)
# The swe program writes the prebuilt index (build-site.mjs), and the placeholder model when it is used.
[ -n "${SWE_CLI:-}" ] || [ -x build/native/bin/swe ] || bash scripts/build.sh >/dev/null
if [ ! -f "$model" ]; then
  [ "$model" = models/glove-100d-50k-int8.swe ] || { echo "web-demo: $model is missing" >&2; exit 1; }
  bash scripts/make-placeholder-model.sh
fi
node web-demo/scripts/build-corpus.mjs
node web-demo/scripts/build-site.mjs
case $mode in
  check) cd web-demo && exec node --test --test-reporter=spec test/ ;;
  build) exit 0 ;;
  serve) exec node web-demo/server.mjs "$@" ;;
esac
