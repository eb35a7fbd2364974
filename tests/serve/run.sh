#!/usr/bin/env bash
# `swe serve`'s tests: the node:test suites (real openai and LangChain clients, TEI requests, bad
# requests and hostile clients, index writes under kill -9 and concurrency, SIGTERM's drain), then a
# bounded load test with wrk (30 s; 0 errors; p50/p99 and RSS before/after printed) and an
# overload run that must give 429s, not failures. 127.0.0.1, ports 18000-18999 only.
# usage: tests/serve/run.sh [SECONDS]   (the load test's length, default 30)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-30}"
source tests/serve/lib.sh

node --test --test-reporter=spec tests/serve/*.test.mjs

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

echo "== load: ${seconds} s of single-text requests, 8 connections, --threads 2"
start_serve --threads 2
cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"input": "The quick brown fox jumps over the lazy dog near the river bank", "model": "swe"}'
LUA
curl -s -H 'Content-Type: application/json' -d '{"input": "warm up"}' "$url/v1/embeddings" >/dev/null
rss_before=$(rss_kb "$pid")
wrk -t2 -c8 -d"${seconds}s" --latency -s "$work/post.lua" "$url/v1/embeddings" | tee "$work/wrk.log"
rss_after=$(rss_kb "$pid")
echo "RSS before ${rss_before} kB, after ${rss_after} kB"
if grep -qE 'Non-2xx|Socket errors' "$work/wrk.log"; then echo "load test: errors"; exit 1; fi
(( rss_after < rss_before + 20000 )) || { echo "RSS grew by more than 20 MB"; exit 1; }
errors=$(curl -s "$url/metrics" | awk '/^swe_request_errors_total\{route="\/v1\/embeddings"\}/ {print $2}')
[[ "${errors:-0}" == 0 ]] || { echo "the server counted $errors errors"; exit 1; }
kill -TERM "$pid"; wait "$pid"

echo "== overload: 64 connections of 64-text requests against --threads 1 --queue 4: 429s, no failures"
start_serve --threads 1 --queue 4
/usr/bin/python3 -c 'import json; print("wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.body = " + json.dumps(json.dumps({"input": ["sentence %d about the weather and the markets" % i for i in range(64)]})))' >"$work/over.lua"
wrk -t2 -c64 -d5s -s "$work/over.lua" "$url/v1/embeddings" | tee "$work/over.log"
metrics="$(curl -s "$url/metrics")"
rejected=$(awk '/^swe_queue_rejected_total/ {print $2}' <<<"$metrics")
ok=$(awk '/^swe_requests_total\{route="\/v1\/embeddings",code="200"\}/ {print $2}' <<<"$metrics")
other=$(grep '^swe_requests_total{route="/v1/embeddings"' <<<"$metrics" | grep -vE 'code="(200|429)"' || true)
echo "200: $ok, 429: $rejected"
(( rejected > 0 && ok > 0 )) && [[ -z "$other" ]] && ! grep -q 'Socket errors' "$work/over.log" ||
  { echo "overload: expected 200s and 429s only"; exit 1; }
kill -TERM "$pid"; wait "$pid"
echo "serve tests: ok"
