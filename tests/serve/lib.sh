# Sourced from the repository root by tests/serve/run.sh and bench/serve_bench.sh: the binary and the
# model they serve, a work folder removed (and background jobs killed) on exit, and start_serve.
swe=build/native/bin/swe
model=models/swe-en-use-lite-large-para.swe
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# Starts `swe serve` with "$@" on a free port in 18000-18999 (127.0.0.1); sets $pid and $url.
start_serve() {
  for _ in $(seq 10); do
    local port=$((18000 + RANDOM % 1000))
    "$swe" serve "$model" --port "$port" "$@" 2>"$work/serve.log" &
    pid=$!
    url="http://127.0.0.1:$port"
    for _ in $(seq 100); do
      grep -q 'listening on' "$work/serve.log" && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    wait "$pid" 2>/dev/null || true
  done
  echo "swe serve did not start: $(cat "$work/serve.log")" >&2
  exit 1
}
