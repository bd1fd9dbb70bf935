#!/usr/bin/env bash
# shellcheck disable=SC2016 # jq programs and literal test values are single-quoted on purpose
# Lints this repository's GitHub Actions files. Usage: scripts/lint-workflows.sh [--no-run]
#
#  1. actionlint v1.7.12 (go run; go.mod is not touched) on both workflows, with shellcheck on their
#     run: scripts when shellcheck is on PATH. ci.yml uses the local action (uses: ./), so
#     actionlint also parses action.yml and checks the inputs and outputs used against it.
#  2. action.yml itself, which actionlint does not lint (it lints workflows only): strict keys,
#     every expression names a declared input or an earlier step, no ${{ }} inside a run: script,
#     uses: pinned to a major tag, and shellcheck on every run: script. The checker (actioncheck,
#     below) is built in a temporary module on go.yaml.in/yaml/v3.
#  3. Unless --no-run: the action's bash steps run here as the runner runs them (uses: steps such
#     as setup-go and upload-artifact are skipped) against the reference server, and the outputs,
#     argv splitting, header redaction, usage errors, the final exit code, and mcp-conform's
#     GitHub annotations (on stderr, never stdout) and job summary (once) are checked.
#
# Needs Go, jq, the Go module proxy (first run) and the MCP schemas: MCP_CONFORM_SCHEMAS, else
# ../shared/spec/schema when it exists, else mcp-conform downloads the pinned files.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
actionlint=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
workflows=(.github/workflows/ci.yml .github/workflows/conformance.yml)

run_action=true
case "${1:-}" in
  --no-run) run_action=false ;;
  "") ;;
  *) echo "usage: scripts/lint-workflows.sh [--no-run]" >&2; exit 2 ;;
esac
command -v jq >/dev/null 2>&1 || { echo "lint-workflows: jq is required" >&2; exit 2; }

tmp=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "lint-workflows: FAIL: $*" >&2
  exit 1
}

# 1. actionlint
if command -v shellcheck >/dev/null 2>&1; then
  echo "lint-workflows: actionlint (with $(shellcheck --version | sed -n 's/^version: /shellcheck /p'))"
else
  echo "lint-workflows: WARNING: shellcheck not on PATH: run: scripts are NOT checked (apt-get install shellcheck)" >&2
fi
GOFLAGS='' go run "$actionlint" "${workflows[@]}"

# 2. action.yml
mkdir -p "$tmp/actioncheck" "$tmp/scripts"
cat >"$tmp/actioncheck/go.mod" <<'EOF_MOD'
module actioncheck

go 1.26

require go.yaml.in/yaml/v3 v3.0.5
EOF_MOD
grep '^go.yaml.in/yaml/v3 v3.0.5[ /]' go.sum >"$tmp/actioncheck/go.sum"
cat >"$tmp/actioncheck/main.go" <<'ACTIONCHECK_GO'
// Command actioncheck validates a composite action's action.yml (actionlint lints workflows, not
// action metadata) and runs its bash steps locally the way the GitHub runner does, skipping
// `uses:` steps. Written by scripts/lint-workflows.sh into a temporary module.
//
//	actioncheck check ACTION_YML SCRIPT_DIR
//	actioncheck run ACTION_YML REPORT_JSON [NAME=VALUE]...
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"go.yaml.in/yaml/v3"
)

var (
	idRE      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	exprRE    = regexp.MustCompile(`\$\{\{(.*?)\}\}`)
	inputRE   = regexp.MustCompile(`\binputs\.([A-Za-z0-9_-]+)`)
	stepOutRE = regexp.MustCompile(`\bsteps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)
	refRE     = regexp.MustCompile(`^\s*([a-z]+)\.([A-Za-z0-9_-]+)(?:\.outputs\.([A-Za-z0-9_-]+))?\s*$`)
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: actioncheck check ACTION_YML SCRIPT_DIR | run ACTION_YML REPORT_JSON [NAME=VALUE]...")
		os.Exit(2)
	}
	a, err := load(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch os.Args[1] {
	case "check":
		errs := a.check()
		if len(errs) == 0 {
			err = a.writeScripts(os.Args[3])
		}
		for _, e := range errs {
			fmt.Fprintln(os.Stderr, e)
		}
		if len(errs) > 0 || err != nil {
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			os.Exit(1)
		}
	case "run":
		if err := a.run(os.Args[3], os.Args[4:]); err != nil {
			fmt.Fprintln(os.Stderr, "actioncheck:", err)
			os.Exit(2)
		}
	default:
		fmt.Fprintln(os.Stderr, "actioncheck: unknown command", os.Args[1])
		os.Exit(2)
	}
}

type step struct {
	node                     *yaml.Node
	id, name, run, uses, ifc string
	shell, workdir           string
	env                      [][2]string
}

type action struct {
	path    string
	root    *yaml.Node
	inputs  map[string]*yaml.Node
	order   []string
	outputs map[string]*yaml.Node
	steps   []step
}

// pairs returns the key/value nodes of a mapping node.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

func get(n *yaml.Node, key string) *yaml.Node {
	for _, kv := range pairs(n) {
		if kv[0].Value == key {
			return kv[1]
		}
	}
	return nil
}

func load(path string) (*action, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a YAML mapping", path)
	}
	a := &action{path: path, root: doc.Content[0], inputs: map[string]*yaml.Node{}, outputs: map[string]*yaml.Node{}}
	for _, kv := range pairs(get(a.root, "inputs")) {
		a.inputs[kv[0].Value] = kv[1]
		a.order = append(a.order, kv[0].Value)
	}
	for _, kv := range pairs(get(a.root, "outputs")) {
		a.outputs[kv[0].Value] = kv[1]
	}
	if steps := get(get(a.root, "runs"), "steps"); steps != nil {
		for _, n := range steps.Content {
			s := step{node: n}
			for _, kv := range pairs(n) {
				switch kv[0].Value {
				case "id":
					s.id = kv[1].Value
				case "name":
					s.name = kv[1].Value
				case "run":
					s.run = kv[1].Value
				case "uses":
					s.uses = kv[1].Value
				case "if":
					s.ifc = kv[1].Value
				case "shell":
					s.shell = kv[1].Value
				case "working-directory":
					s.workdir = kv[1].Value
				case "env":
					for _, e := range pairs(kv[1]) {
						s.env = append(s.env, [2]string{e[0].Value, e[1].Value})
					}
				}
			}
			a.steps = append(a.steps, s)
		}
	}
	return a, nil
}

func (a *action) errf(n *yaml.Node, format string, args ...any) string {
	line := 0
	if n != nil {
		line = n.Line
	}
	return fmt.Sprintf("%s:%d: %s", a.path, line, fmt.Sprintf(format, args...))
}

// checkKeys reports keys of mapping n outside allowed and missing required ones.
func (a *action) checkKeys(n *yaml.Node, what string, allowed, required []string) []string {
	var errs []string
	if n == nil || n.Kind != yaml.MappingNode {
		return []string{a.errf(n, "%s must be a mapping", what)}
	}
	seen := map[string]bool{}
	for _, kv := range pairs(n) {
		k := kv[0].Value
		if seen[k] {
			errs = append(errs, a.errf(kv[0], "%s: duplicate key %q", what, k))
		}
		seen[k] = true
		ok := false
		for _, al := range allowed {
			ok = ok || al == k
		}
		if !ok {
			errs = append(errs, a.errf(kv[0], "%s: unexpected key %q (allowed: %s)", what, k, strings.Join(allowed, ", ")))
		}
	}
	for _, r := range required {
		if !seen[r] {
			errs = append(errs, a.errf(n, "%s: missing required key %q", what, r))
		}
	}
	return errs
}

// check validates the metadata of a composite action and its expressions.
func (a *action) check() []string {
	errs := a.checkKeys(a.root, "action", []string{"name", "author", "description", "inputs", "outputs", "runs", "branding"}, []string{"name", "description", "runs"})
	for _, name := range a.order {
		n := a.inputs[name]
		errs = append(errs, a.checkKeys(n, "input "+name, []string{"description", "required", "default", "deprecationMessage"}, []string{"description"})...)
		if d := get(n, "default"); d != nil && strings.Contains(d.Value, "${{") {
			errs = append(errs, a.errf(d, "input %s: default must be a literal (actioncheck cannot evaluate it)", name))
		}
	}
	for _, kv := range pairs(get(a.root, "outputs")) {
		errs = append(errs, a.checkKeys(kv[1], "output "+kv[0].Value, []string{"description", "value"}, []string{"description", "value"})...)
	}
	runs := get(a.root, "runs")
	errs = append(errs, a.checkKeys(runs, "runs", []string{"using", "steps"}, []string{"using", "steps"})...)
	if u := get(runs, "using"); u != nil && u.Value != "composite" {
		errs = append(errs, a.errf(u, "runs.using is %q, want composite", u.Value))
	}
	if len(a.steps) == 0 {
		errs = append(errs, a.errf(runs, "runs.steps is empty"))
	}
	ids := map[string]int{}
	for i, s := range a.steps {
		what := fmt.Sprintf("step %d", i+1)
		errs = append(errs, a.checkKeys(s.node, what, []string{"id", "name", "if", "run", "shell", "env", "working-directory", "uses", "with", "continue-on-error"}, []string{"name"})...)
		switch {
		case (s.run == "") == (s.uses == ""):
			errs = append(errs, a.errf(s.node, "%s: needs exactly one of run and uses", what))
		case s.run != "" && s.shell != "bash":
			errs = append(errs, a.errf(s.node, "%s: a run step needs shell: bash", what))
		case s.run != "" && strings.Contains(s.run, "${{"):
			errs = append(errs, a.errf(get(s.node, "run"), "%s: ${{ }} inside run: puts a value into the shell code; pass it through env", what))
		case s.uses != "" && !strings.HasPrefix(s.uses, "./") && !regexp.MustCompile(`^[\w.-]+/[\w./-]+@v\d+$`).MatchString(s.uses):
			errs = append(errs, a.errf(get(s.node, "uses"), "%s: pin %q to a major version tag (owner/repo@vN)", what, s.uses))
		}
		if s.id != "" {
			if !idRE.MatchString(s.id) {
				errs = append(errs, a.errf(get(s.node, "id"), "%s: invalid id %q", what, s.id))
			}
			if _, dup := ids[s.id]; dup {
				errs = append(errs, a.errf(get(s.node, "id"), "%s: duplicate id %q", what, s.id))
			}
			ids[s.id] = i
		}
	}
	// Every expression may only name declared inputs and the outputs of earlier steps.
	var walk func(n *yaml.Node, stepIndex int)
	walk = func(n *yaml.Node, stepIndex int) {
		if n.Kind == yaml.ScalarNode {
			text := n.Value
			exprs := exprRE.FindAllStringSubmatch(text, -1)
			var bodies []string
			for _, m := range exprs {
				bodies = append(bodies, m[1])
			}
			if n.Tag == "!!str" && len(exprs) == 0 && stepIndex >= 0 && a.isIf(n, stepIndex) {
				bodies = append(bodies, text)
			}
			for _, body := range bodies {
				for _, m := range inputRE.FindAllStringSubmatch(body, -1) {
					if _, ok := a.inputs[m[1]]; !ok {
						errs = append(errs, a.errf(n, "expression names undeclared input %q", m[1]))
					}
				}
				for _, m := range stepOutRE.FindAllStringSubmatch(body, -1) {
					j, ok := ids[m[1]]
					if !ok {
						errs = append(errs, a.errf(n, "expression names unknown step %q", m[1]))
					} else if stepIndex >= 0 && j >= stepIndex {
						errs = append(errs, a.errf(n, "expression reads step %q, which runs later", m[1]))
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c, stepIndex)
		}
	}
	for i, s := range a.steps {
		walk(s.node, i)
	}
	if o := get(a.root, "outputs"); o != nil {
		walk(o, -1)
	}
	return errs
}

// isIf reports whether scalar n is the `if:` value of step i (an expression without ${{ }}).
func (a *action) isIf(n *yaml.Node, i int) bool {
	return get(a.steps[i].node, "if") == n
}

// writeScripts writes each run step's script to dir for shellcheck.
func (a *action) writeScripts(dir string) error {
	for i, s := range a.steps {
		if s.run == "" {
			continue
		}
		id := s.id
		if id == "" {
			id = "step"
		}
		name := fmt.Sprintf("%02d-%s.sh", i+1, id)
		text := "# shellcheck shell=bash\n# " + a.path + ": step " + fmt.Sprint(i+1) + " (" + s.name + ")\n" + s.run
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// run executes the run steps in order as the runner does (bash --noprofile --norc -eo pipefail),
// with the inputs given as NAME=VALUE, and writes to report the exit code of the first failing
// step, the action's outputs, each step's outputs, the skipped uses: steps and the step summary.
func (a *action) run(report string, args []string) error {
	inputs := map[string]string{}
	for _, name := range a.order {
		if d := get(a.inputs[name], "default"); d != nil {
			inputs[name] = d.Value
		}
	}
	for _, arg := range args {
		k, v, ok := strings.Cut(arg, "=")
		if !ok {
			return fmt.Errorf("input %q: want NAME=VALUE", arg)
		}
		if _, known := a.inputs[k]; !known {
			return fmt.Errorf("unknown input %q", k)
		}
		inputs[k] = v
	}
	workspace, err := os.Getwd()
	if err != nil {
		return err
	}
	actionPath, err := filepath.Abs(filepath.Dir(a.path))
	if err != nil {
		return err
	}
	temp, err := os.MkdirTemp("", "actioncheck-runner-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(temp)
	summary := filepath.Join(temp, "step-summary.md")
	ctxVals := map[string]string{
		"github.action_path":       actionPath,
		"github.action_ref":        "",
		"github.action_repository": "",
		"github.workspace":         workspace,
		"runner.temp":              temp,
		"runner.os":                "Linux",
	}
	stepOut := map[string]map[string]string{}
	eval := func(s string) (string, error) {
		var evalErr error
		res := exprRE.ReplaceAllStringFunc(s, func(m string) string {
			m2 := refRE.FindStringSubmatch(exprRE.FindStringSubmatch(m)[1])
			switch {
			case m2 == nil:
				evalErr = fmt.Errorf("cannot evaluate %s (only plain context references)", m)
			case m2[1] == "inputs" && m2[3] == "":
				return inputs[m2[2]]
			case m2[1] == "steps" && m2[3] != "":
				return stepOut[m2[2]][m2[3]]
			default:
				if v, ok := ctxVals[m2[1]+"."+m2[2]]; ok && m2[3] == "" {
					return v
				}
				evalErr = fmt.Errorf("cannot evaluate %s", m)
			}
			return ""
		})
		return res, evalErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	result := struct {
		ExitCode int                          `json:"exitCode"`
		Failed   string                       `json:"failedStep,omitempty"`
		Outputs  map[string]string            `json:"outputs"`
		Steps    map[string]map[string]string `json:"steps"`
		Skipped  []string                     `json:"skipped"`
		Summary  string                       `json:"stepSummary"`
	}{Outputs: map[string]string{}, Steps: stepOut, Skipped: []string{}}
	for i, s := range a.steps {
		label := s.name
		if s.uses != "" {
			result.Skipped = append(result.Skipped, label+" (uses "+s.uses+")")
			fmt.Fprintf(os.Stderr, "actioncheck: step %d %q: skipped (uses %s)\n", i+1, label, s.uses)
			continue
		}
		if s.ifc != "" {
			return fmt.Errorf("step %d %q: cannot evaluate if: %s", i+1, label, s.ifc)
		}
		fmt.Fprintf(os.Stderr, "actioncheck: step %d %q\n", i+1, label)
		env := os.Environ()
		for _, kv := range s.env {
			v, err := eval(kv[1])
			if err != nil {
				return fmt.Errorf("step %d env %s: %v", i+1, kv[0], err)
			}
			env = append(env, kv[0]+"="+v)
		}
		outFile := filepath.Join(temp, fmt.Sprintf("output-%d", i+1))
		script := filepath.Join(temp, fmt.Sprintf("step-%d.sh", i+1))
		if err := os.WriteFile(outFile, nil, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(script, []byte(s.run), 0o644); err != nil {
			return err
		}
		env = append(env, "GITHUB_OUTPUT="+outFile, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_ACTION_PATH="+actionPath,
			"GITHUB_WORKSPACE="+workspace, "RUNNER_TEMP="+temp, "RUNNER_OS=Linux", "GITHUB_ACTIONS=true")
		cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Env = env
		cmd.Dir = workspace
		if s.workdir != "" {
			if cmd.Dir, err = eval(s.workdir); err != nil {
				return err
			}
		}
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		runErr := cmd.Run()
		outs, err := parseOutputs(outFile)
		if err != nil {
			return fmt.Errorf("step %d: GITHUB_OUTPUT: %v", i+1, err)
		}
		if s.id != "" {
			stepOut[s.id] = outs
		}
		if runErr != nil {
			var ee *exec.ExitError
			if !errors.As(runErr, &ee) || ctx.Err() != nil {
				return fmt.Errorf("step %d: %v", i+1, runErr)
			}
			result.ExitCode, result.Failed = ee.ExitCode(), label
			break
		}
	}
	for name, n := range a.outputs {
		v, err := eval(get(n, "value").Value)
		if err != nil {
			return fmt.Errorf("output %s: %v", name, err)
		}
		result.Outputs[name] = v
	}
	if b, err := os.ReadFile(summary); err == nil {
		result.Summary = string(b)
	}
	data, err := json.MarshalIndent(result, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(report, append(data, '\n'), 0o644)
}

// parseOutputs reads a GITHUB_OUTPUT file: NAME=VALUE lines and NAME<<DELIM heredocs.
func parseOutputs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				val = append(val, sc.Text())
			}
			if !closed {
				return nil, fmt.Errorf("%s: heredoc %s not closed", name, delim)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("bad line %q", line)
		}
		out[name] = val
	}
	return out, sc.Err()
}
ACTIONCHECK_GO
(
  cd "$tmp/actioncheck"
  [ -z "$(gofmt -l .)" ] || fail "actioncheck (in this script) is not gofmt-formatted"
  GOFLAGS='' GOWORK=off go vet .
  GOFLAGS='' GOWORK=off go build -o "$tmp/actioncheck.bin" .
)
ac="$tmp/actioncheck.bin"
echo "lint-workflows: action.yml"
"$ac" check action.yml "$tmp/scripts"
if command -v shellcheck >/dev/null 2>&1; then
  shellcheck --severity=style "$tmp"/scripts/*.sh
fi

if ! $run_action; then
  echo "lint-workflows: ok (action not run: --no-run)"
  exit 0
fi

# 3. The action's steps, run locally.
if [ -z "${MCP_CONFORM_SCHEMAS:-}" ] && [ -d ../shared/spec/schema ]; then
  MCP_CONFORM_SCHEMAS="$(cd ../shared/spec/schema && pwd)"
  export MCP_CONFORM_SCHEMAS
fi
ref="$tmp/reference"
go build -o "$ref" ./fixtures/servers/reference
ws="$tmp/ws"
tab=$(printf '\t')
mkdir -p "$ws/sub"

# run_case NAME INPUT=VALUE... runs the action in $ws with those inputs; the runner's report
# (exitCode, outputs, stepSummary) is $tmp/NAME.json, the steps' stdout $tmp/NAME.out, their
# stderr $tmp/NAME.err and both $tmp/NAME.log.
run_case() {
  local name=$1 ok=true
  shift
  echo "lint-workflows: action case $name"
  (cd "$ws" && "$ac" run "$root/action.yml" "$tmp/$name.json" "$@") >"$tmp/$name.out" 2>"$tmp/$name.err" || ok=false
  cat "$tmp/$name.out" "$tmp/$name.err" >"$tmp/$name.log"
  if ! $ok; then
    cat "$tmp/$name.log" >&2
    fail "case $name: the action could not be run"
  fi
}

# annotation NAME REGEX: an annotation matching REGEX is on the steps' stderr and no workflow
# command of mcp-conform's (title= other than the action's own "mcp-conform") is on stdout.
annotation() {
  grep -Eq -- "$2" "$tmp/$1.err" || { cat "$tmp/$1.log" >&2; fail "case $1: no annotation matching $2 on stderr"; }
  if grep -E '^::(error|warning|notice) ' "$tmp/$1.out" | grep -vq 'title=mcp-conform::'; then
    fail "case $1: an annotation went to stdout"
  fi
}

# expect NAME FILE JQ_EXPR [ARGS...]: the jq expression must hold on FILE (extra args go to jq).
expect() {
  local name=$1 file=$2 expr=$3
  shift 3
  if ! jq -e "$@" "$expr" "$file" >/dev/null; then
    sed -n '1,400p' "$tmp/$name.log" >&2
    jq . "$tmp/$name.json" >&2 || true
    fail "case $name: $(basename "$file"): expected $expr"
  fi
}

run_case pass "command=$ref" "args=--rule META- --rule MSG-014" working-directory=sub out=rep
expect pass "$tmp/pass.json" '.exitCode == 0 and .outputs["exit-code"] == "0" and .outputs.fail == "0" and .outputs.warn == "0" and (.outputs.pass | tonumber) > 0'
expect pass "$tmp/pass.json" '.outputs["report-path"] == $dir' --arg dir "$ws/sub/rep"
expect pass "$tmp/pass.json" '.stepSummary | contains("### mcp-conform: exit 0") and (split("### mcp-conform") | length) == 2'
if grep -Eq '^::(error|warning) ' "$tmp/pass.err" "$tmp/pass.out"; then
  fail "case pass: a clean run was annotated"
fi
expect pass "$ws/sub/rep/results.json" '.target.command == [$ref]' --arg ref "$ref"

run_case fail "command=  $ref${tab}
-break  

  META-001  
" "args=--rule
META-"
expect fail "$tmp/fail.json" '.exitCode == 1 and .failedStep == $last and .outputs["exit-code"] == "1" and .outputs.fail == "1"' \
  --arg last "Fail on mcp-conform's exit code"
expect fail "$tmp/fail.json" '.stepSummary | contains("| META-001 | 2026-07-28 | stdio | fail |") and (split("### mcp-conform: exit 1") | length) == 2'
annotation fail '^::error title=META-001 MUST%3A [^:]*::.+ \[2026-07-28 stdio(, 2025-11-25 stdio)?\] Spec: https://modelcontextprotocol\.io/'
expect fail "$ws/mcp-conform-report/results.json" '.target.command == [$ref, "-break", "META-001"]' --arg ref "$ref"

# --strict: a broken SHOULD rule is an ::error annotation and a JUnit failure, as it fails the run.
run_case strict "command=$ref -break LFEAT-005" "args=--strict --rule LFEAT-005" out=strict
expect strict "$tmp/strict.json" '.exitCode == 1 and .outputs.warn == "1" and (.stepSummary | test("\\| LFEAT-005 \\| [0-9-]+ \\| stdio \\| warn \\(strict: fails\\) \\|"))'
annotation strict '^::error title=LFEAT-005 SHOULD%3A '
grep -Eq '<testsuites [^>]*failures="1"' "$ws/strict/junit.xml" || fail "case strict: junit.xml does not count the warn as a failure"

# Nothing is expanded or unquoted: one argument per line keeps blanks, $, *, ~ and quotes.
literal='META-001 $HOME * ~ "q" \x'
run_case literal "command=$ref
-break
$literal" out=literal
expect literal "$tmp/literal.json" '.exitCode == 3 and .outputs["exit-code"] == "3"'
expect literal "$ws/literal/results.json" '.target.command == [$ref, "-break", $lit]' --arg ref "$ref" --arg lit "$literal"
run_case quotes "command=$ref -break 'META-001'" out=quotes
expect quotes "$ws/quotes/results.json" '.target.command == [$ref, "-break", $q]' --arg ref "$ref" --arg q "'META-001'"

# Streamable HTTP with a header whose value must reach neither the log nor the report. The
# server's first stderr line says where it listens; read it through a FIFO with a deadline.
mkfifo "$tmp/server.fifo"
"$ref" -transport http -listen 127.0.0.1:0 >/dev/null 2>"$tmp/server.fifo" &
server_pid=$!
exec 4<"$tmp/server.fifo"
IFS= read -r -t 30 line <&4 || fail "the reference server did not say where it listens"
cat <&4 >"$tmp/server.log" &
exec 4<&-
url=${line##* }
case $url in http://127.0.0.1:*/mcp) ;; *) fail "unexpected listen line: $line" ;; esac
run_case http "url=$url" "headers=X-Lint-Secret: s3cr3t-value
" "args=--rule META- --rule HDR-" out=http
expect http "$tmp/http.json" '.exitCode == 0 and .outputs.fail == "0" and (.outputs.pass | tonumber) > 0'
expect http "$ws/http/results.json" '.target.url == $url and .target.headerNames == ["X-Lint-Secret"]' --arg url "$url"
if grep -q 's3cr3t-value' "$tmp/http.log" "$ws/http/results.json"; then
  fail "case http: a header value reached the log or results.json"
fi
grep -qF -- '--header X-Lint-Secret:\ \*\*\*' "$tmp/http.log" || fail "case http: the redacted header is not in the log"

# Usage errors: both or neither of command and url; no run, exit 2 after the (empty) upload.
run_case both "command=$ref" "url=$url" out=both
expect both "$tmp/both.json" '.exitCode == 2 and .outputs["exit-code"] == "2" and .outputs.pass == ""'
[ ! -e "$ws/both/results.json" ] || fail "case both: mcp-conform ran"
run_case neither out=neither
expect neither "$tmp/neither.json" '.exitCode == 2 and .outputs["exit-code"] == "2"'

# Baselines: the broken rule becomes xfail and the run passes; --write-baseline writes a file
# that the upload step's file list names.
printf 'expected-failures:\n  - rule: META-001\n    reason: broken on purpose by lint-workflows.sh\n' >"$ws/baseline.yml"
run_case baseline "command=$ref -break META-001" "args=--rule META-" baseline=baseline.yml out=baseline
expect baseline "$tmp/baseline.json" '.exitCode == 0 and .outputs.fail == "0"'
expect baseline "$ws/baseline/results.json" '.summary.xfail >= 1'
run_case stale "command=$ref" "args=--rule META-" baseline=baseline.yml out=stale
expect stale "$tmp/stale.json" '.exitCode == 1 and .outputs.fail == "0" and (.stepSummary | contains("Stale baseline entries") and contains("- META-001"))'
annotation stale '^::error file=baseline\.yml,line=2,title=Stale baseline entry META-001::The rule passes now'
run_case write "command=$ref -break META-001" "args=--rule META-" write-baseline=written.yml out=write
expect write "$tmp/write.json" '.exitCode == 1 and (.steps.run.files | split("\n")) == [$d + "/results.json", $d + "/junit.xml", $d + "/report.html", $d + "/results.sarif", $d + "/badge.svg", $w]' \
  --arg d "$ws/write" --arg w "$ws/written.yml"
grep -q 'rule: META-001' "$ws/written.yml" || fail "case write: META-001 is not in the written baseline"
expect write "$ws/write/results.sarif" '.version == "2.1.0" and ([.runs[0].results[] | select(.level == "error") | .ruleId] | unique) == ["META-001"]'
grep -q 'MCP MUST: ' "$ws/write/badge.svg" || fail "case write: badge.svg has no MUST pass rate"
for f in results.json junit.xml report.html results.sarif badge.svg; do
  [ -s "$ws/write/$f" ] || fail "case write: $f was not written, so it cannot be uploaded"
done

echo "lint-workflows: ok"
