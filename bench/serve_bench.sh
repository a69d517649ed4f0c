#!/usr/bin/env bash
# flakeid-serve under wrk (Debian package wrk), on this machine: requests per second with
# keep-alive for single IDs, IDs per second for batches, and the latency percentiles
# (p50, p99, p99.9). The service and wrk share the machine's cores, as they would on a
# one-box deployment; docs/serve.md has the figures of the 2-core development machine.
#
#   bash bench/serve_bench.sh [path/to/flakeid-serve] [seconds per run, default 10] [baseline]
#
# With a baseline (another build of flakeid-serve, started with the arguments in $BASELINE_ARGS,
# none by default; docs/serve.md's baseline on cpp-httplib ran with BASELINE_ARGS="--threads 16"),
# each row is measured on both, one after the other in the same run, and the last column is the
# ratio of their requests per second.
#
# Build flakeid-serve in Release first, e.g.
#   cmake -S . -B build/rel -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLAKEID_BUILD_TESTS=OFF \
#         -DFLAKEID_BUILD_EXAMPLES=OFF && ninja -C build/rel flakeid_serve
set -euo pipefail
serve=${1:-build/rel/tools/flakeid-serve}
seconds=${2:-10}
baseline=${3:-}
command -v wrk >/dev/null || { echo "serve_bench: wrk is not installed (Debian: wrk)" >&2; exit 1; }
for p in "$serve" $baseline; do
  [[ -x "$p" ]] || { echo "serve_bench: no flakeid-serve at $p" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/ids.json" <<'JSON'
{"generators": {
  "fixed": {"kind": "snowflake", "worker": 1},
  "chain": {"kind": "chain", "store": "memory:", "key": "bench", "step": 100000}}}
JSON
# wrk prints p99.9 only through a script.
cat > "$work/p999.lua" <<'LUA'
done = function(summary, latency, requests)
  io.write(string.format("p50 %.0f us, p99 %.0f us, p99.9 %.0f us\n", latency:percentile(50),
                         latency:percentile(99), latency:percentile(99.9)))
end
LUA
pids=()
start() {  # start <variable> <program> <log> [args...]: sets the variable to its port
  local var=$1 program=$2 log=$3
  shift 3
  "$program" --config "$work/ids.json" --listen 127.0.0.1:0 "$@" > /dev/null 2> "$log" &
  pids+=($!)
  for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
  printf -v "$var" '%s' "$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$log")"
  [[ -n "${!var}" ]] || { cat "$log" >&2; exit 1; }
}
start port "$serve" "$work/serve.log"
# shellcheck disable=SC2086
[[ -z "$baseline" ]] || start base_port "$baseline" "$work/baseline.log" ${BASELINE_ARGS:-}

rate() {  # rate <port> <connections> <path>: "requests/s|p50 ... line"
  local out
  out=$(wrk -t1 -c"$2" -d"${seconds}s" -s "$work/p999.lua" "http://127.0.0.1:$1$3")
  echo "$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")|$(grep '^p50' <<<"$out")"
}
run() {  # run <label> <connections> <path> <IDs per request>
  local r rps ratio=""
  r=$(rate "$port" "$2" "$3")
  rps=${r%%|*}
  if [[ -n "$baseline" ]]; then
    local b
    b=$(rate "$base_port" "$2" "$3")
    ratio=$(awk -v a="$rps" -v b="${b%%|*}" 'BEGIN {printf " %.0f | %.2fx |", b, a / b}')
  fi
  printf '| %s | %s | %.0f | %.0f | %s |%s\n' "$1" "$2" "$rps" "$(awk -v r="$rps" -v n="$4" \
         'BEGIN {print r * n}')" "${r#*|}" "$ratio"
}
if [[ -n "$baseline" ]]; then
  echo "| request | connections | requests/s | IDs/s | latency | baseline requests/s | ratio |"
  echo "|---|---:|---:|---:|---|---:|---:|"
else
  echo "| request | connections | requests/s | IDs/s | latency |"
  echo "|---|---:|---:|---:|---|"
fi
run "snowflake, single ID" 8 /api/snowflake/get/fixed 1
run "snowflake, single ID" 16 /api/snowflake/get/fixed 1
run "chain, single ID" 8 /api/segment/get/chain 1
run "chain, single ID" 16 /api/segment/get/chain 1
run "snowflake, batches of 1000" 8 "/api/snowflake/get/fixed?count=1000" 1000
run "chain, batches of 1000" 8 "/api/segment/get/chain?count=1000" 1000
