package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

// TestInterruptLeavesNoChild: Ctrl-C (SIGINT) in the middle of a run stops it with exit 3 and
// the server process is gone afterwards. The server announces its pid through a FIFO, so the
// test waits on that signal rather than on time.
func TestInterruptLeavesNoChild(t *testing.T) {
	schemasEnv(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcp-conform")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/mcp-conform").CombinedOutput()
	require.NoError(t, err, "%s", out)
	fifo := filepath.Join(dir, "pid")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	cmd := exec.Command(bin, "run", "--", "sh", "-c", "echo $$ > "+fifo+"; exec sleep 600")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })

	pidc := make(chan int, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the server opens it for writing
		if err != nil {
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		pid, _ := strconv.Atoi(strings.TrimSpace(line))
		pidc <- pid
	}()
	var pid int
	select {
	case pid = <-pidc:
	case <-time.After(30 * time.Second):
		t.Fatal("the server never started")
	}
	require.NotZero(t, pid)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("mcp-conform did not stop within 20s of SIGINT; stderr:\n%s", stderr.String())
	}
	require.Equal(t, reports.ExitError, cmd.ProcessState.ExitCode(), stderr.String())
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "server process %d survived the interrupt", pid)
}
