#!/usr/bin/env bash
# The one command that runs mcp-conform's tests: vet, the lint of action.yml and the workflows,
# then every Go test of the product module
# (unit, CLI acceptance, reference-fixture and real-server integration tests) with the race
# detector. It installs the npm packages of the integration subjects when they are missing and
# points MCP_CONFORM_SCHEMAS at ../shared/spec/schema when that folder exists and the variable
# is unset.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${MCP_CONFORM_SCHEMAS:-}" ] && [ -d ../shared/spec/schema ]; then
  MCP_CONFORM_SCHEMAS="$(cd ../shared/spec/schema && pwd)"
  export MCP_CONFORM_SCHEMAS
fi
if [ -z "${MCP_CONFORM_SCHEMAS:-}" ]; then
  echo "scripts/test.sh: set MCP_CONFORM_SCHEMAS to the absolute path of a folder holding <revision>/schema.json" >&2
  exit 2
fi
case "$MCP_CONFORM_SCHEMAS" in
  /*) ;;
  *) MCP_CONFORM_SCHEMAS="$(cd "$MCP_CONFORM_SCHEMAS" && pwd)"; export MCP_CONFORM_SCHEMAS ;;
esac

if [ ! -f fixtures/node_modules/.package-lock.json ] || [ fixtures/package-lock.json -nt fixtures/node_modules/.package-lock.json ]; then
  npm ci --prefix fixtures --no-audit --no-fund --loglevel=error
fi

go vet ./...
(cd fixtures/sdkservers && go vet ./...)
./scripts/lint-workflows.sh
# Everything under the race detector except the tests made of whole-suite runs of a broken or
# relayed reference: the break table (the suite once per fixture break, several hundred runs),
# the 22 shuffled reruns that show verdicts independent of concurrency, the run behind the CR LF
# relay, the results.json of broken runs and the demo (both transports at every revision, as
# TestReferencePasses runs them under -race), which the race detector would slow past the CI
# budget. The concurrent, shuffled reference runs (TestReferencePasses) keep the runner under
# -race.
wholeSuiteTables='^(TestReferenceBreaks|TestReferenceVerdictsIndependentOfConcurrency|TestReferenceBehindCRLFRelay|TestRealResultsValidateAgainstResultsSchema|TestDemoPassesAndWritesResults)$'
# The tables run beside the race part of every package but integration, in a process group of
# their own (each part alone left a third of two cores idle). Integration, whose real servers
# pace their progress and cancellation in wall time, runs under -race after both, on a quiet
# machine: beside the tables a Node server was starved of the CPU (CANC-001 on ts-sessions saw
# its cancellation handled after the tool had finished; LEG-004 on ts-sse got no version to
# compare). Each of the tables' runs takes one scenario at a time, 16 runs at once. The tables'
# output is printed after the race part's; any part failing fails the script.
tables_log=$(mktemp)
setsid go test -count=1 -parallel 16 -timeout 60m -run "$wholeSuiteTables" "$@" ./runner ./internal/cli >"$tables_log" 2>&1 &
tables=$!
trap 'kill -- -"$tables" 2>/dev/null || true; rm -f "$tables_log"' EXIT
mapfile -t packages < <(go list ./... | grep -v '/integration$')
status=0
go test -race -count=1 -parallel 8 -timeout 60m -skip "$wholeSuiteTables" "$@" "${packages[@]}" || status=1
wait "$tables" || status=1
cat "$tables_log"
go test -race -count=1 -parallel 8 -timeout 60m "$@" ./integration || status=1
exit "$status"
