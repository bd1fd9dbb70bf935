package testutil

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// SARIFFinding is one finding of the SARIF multitool's validator: its rule (JSON1002,
// SARIF1002, ...), effective level ("error", "warning", "note", "none") and message.
type SARIFFinding struct {
	Rule, Level, Message string
}

// multitoolPlatform names the npm platform package of @microsoft/sarif-multitool for this OS.
var multitoolPlatform = map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}

// ValidateSARIF runs `Sarif.Multitool validate FILE -o OUT` (npm @microsoft/sarif-multitool,
// installed by `npm ci --prefix fixtures`) and returns the findings in OUT. The multitool exits
// 0 even on an invalid file, so the findings are the verdict: callers assert that none has level
// "error". The platform binary is run directly (the npm wrapper goes through a shell), with
// DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 so a machine without ICU can run it. A missing
// multitool, a run that fails or does not finish within two minutes, or an OUT that says the
// tool itself failed, fails the test.
func ValidateSARIF(t testing.TB, file string) []SARIFFinding {
	t.Helper()
	root := repoRoot(t)
	pkg := "sarif-multitool-" + multitoolPlatform[runtime.GOOS]
	bin := filepath.Join(root, "fixtures", "node_modules", "@microsoft", pkg, "Sarif.Multitool")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("the SARIF multitool is not installed (%v); run: npm ci --prefix fixtures", err)
	}
	if runtime.GOOS != "windows" && st.Mode()&0o100 == 0 {
		// The package ships the binary without its execute bit and sets it in a postinstall
		// script, which npm may be told not to run: run an executable copy instead.
		bin = executableCopy(t, bin)
	}
	out := filepath.Join(t.TempDir(), "validation.sarif")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "validate", file, "-o", out)
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1", "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("sarif-multitool validate %s: %v (deadline: %v)\n%s", file, err, ctx.Err(), log.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("sarif-multitool wrote no output: %v\n%s", err, log.String())
	}
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string `json:"id"`
						DefaultConfiguration *struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
			} `json:"invocations"`
			Results []struct {
				RuleID    string  `json:"ruleId"`
				RuleIndex *int    `json:"ruleIndex"`
				Level     *string `json:"level"`
				Message   struct {
					Text      string   `json:"text"`
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("sarif-multitool output %s is not JSON: %v", out, err)
	}
	if len(doc.Runs) != 1 || len(doc.Runs[0].Invocations) == 0 || !doc.Runs[0].Invocations[0].ExecutionSuccessful {
		t.Fatalf("sarif-multitool did not run to completion:\n%s\n%s", log.String(), data)
	}
	run := doc.Runs[0]
	var findings []SARIFFinding
	for _, r := range run.Results {
		// A result's level is its own, else its rule's default level, else "warning" (SARIF
		// 2.1.0 §3.27.10): the multitool leaves it to the rule for its warnings.
		level := "warning"
		if r.Level != nil {
			level = *r.Level
		} else if i := r.RuleIndex; i != nil && *i >= 0 && *i < len(run.Tool.Driver.Rules) {
			if dc := run.Tool.Driver.Rules[*i].DefaultConfiguration; dc != nil && dc.Level != "" {
				level = dc.Level
			}
		}
		msg := r.Message.Text
		if msg == "" {
			msg = r.Message.ID
			for _, a := range r.Message.Arguments {
				msg += " | " + a
			}
		}
		findings = append(findings, SARIFFinding{Rule: r.RuleID, Level: level, Message: msg})
	}
	return findings
}

// executableCopy copies the file at path into a temporary folder with mode 0755.
func executableCopy(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// repoRoot is the folder of this module's go.mod, found upwards from the working directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(data, []byte("module github.com/mcp-conform/mcp-conform\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("the mcp-conform module root (go.mod) is not above the working directory")
		}
		dir = parent
	}
}
