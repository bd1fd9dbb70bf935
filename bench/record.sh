#!/usr/bin/env bash
# bench/record.sh: regenerates judge/testdata/ts-modern-stdio.frames.json.gz, the recorded real
# run that BenchmarkJudgeRecordedRun validates: the frames mcp-conform exchanged with the
# TypeScript SDK 2.x test server over stdio (both eras), as its results.json writes them.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${MCP_CONFORM_SCHEMAS:?set MCP_CONFORM_SCHEMAS to the absolute path of the pinned official schemas}"
export MCP_CONFORM_SCHEMAS
if [ ! -f fixtures/node_modules/.package-lock.json ]; then
  npm ci --prefix fixtures --no-audit --no-fund --loglevel=error
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go run ./cmd/mcp-conform run --out "$out" -- node fixtures/servers/ts-modern/server.mjs >/dev/null || true
node -e "process.stdout.write(JSON.stringify(require('$out/results.json').frames))" | gzip -9n > judge/testdata/ts-modern-stdio.frames.json.gz
ls -l judge/testdata/ts-modern-stdio.frames.json.gz
