#!/usr/bin/env bash
# `swe serve` under wrk: requests/s and p50/p99 for one-text and 64-text requests to /v1/embeddings on
# --threads 1 and 2, and the in-process C API's requests/s for the same texts in the same run (the
# ratio is the HTTP and JSON overhead). Needs the bench build (cmake --preset native
# -DSWE_BUILD_BENCH=ON; targets swe_cli serve_capi) and wrk. 127.0.0.1, a port in 18000-18999.
# usage: bench/serve_bench.sh [SECONDS]   (per run, default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
source tests/serve/lib.sh
capi="$(find build/native/bench -name serve_capi -type f | head -n1)"
[[ -x "$capi" ]] || { echo "build serve_capi first (-DSWE_BUILD_BENCH=ON)" >&2; exit 1; }

/usr/bin/python3 - "$work" <<'PY'
import json, sys
one = {"input": "The quick brown fox jumps over the lazy dog near the river bank"}
many = {"input": ["sentence %d about the weather and the markets" % i for i in range(64)]}
for name, body in (("1", one), ("64", many)):
    with open(f"{sys.argv[1]}/post{name}.lua", "w") as f:
        f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                f'wrk.body = {json.dumps(json.dumps(body))}\n')
PY
"$capi" "$model" "$seconds" >"$work/capi.jsonl"
cat "$work/capi.jsonl"
printf '%-8s %-6s %12s %10s %10s %14s %8s\n' threads texts requests/s p50 p99 capi_req/s ratio
for threads in 1 2; do
  start_serve --threads "$threads"
  for texts in 1 64; do
    wrk -t2 -c8 -d"${seconds}s" --latency -s "$work/post$texts.lua" "$url/v1/embeddings" >"$work/wrk.log"
    rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.log")
    p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.log")
    p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.log")
    capi_rps=$(/usr/bin/python3 -c "import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if json.loads(l)['texts_per_request'] == $texts][0]['requests_per_s'])" "$work/capi.jsonl")
    printf '%-8s %-6s %12s %10s %10s %14s %8s\n' "$threads" "$texts" "$rps" "$p50" "$p99" "$capi_rps" \
      "$(/usr/bin/python3 -c "print(f'{$rps / $capi_rps:.3f}')")"
    grep -qE 'Non-2xx|Socket errors' "$work/wrk.log" && { echo "errors in the run" >&2; exit 1; }
  done
  kill -TERM "$pid"; wait "$pid"
done
echo "wrk -t2 -c8, $(nproc) CPUs, $(date -u +%Y-%m-%d)"
