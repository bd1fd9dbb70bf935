package schemas

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPinsAreSortedAndComplete(t *testing.T) {
	want := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	require.Equal(t, want, Revisions())
	pins := Pins()
	require.Len(t, pins, len(want))
	require.True(t, sort.SliceIsSorted(pins, func(i, j int) bool { return pins[i].Revision < pins[j].Revision }))
	for i, p := range pins {
		require.Equal(t, want[i], p.Revision)
		require.Equal(t, "b0f60ba5409db7a6582440a7b473cc0398890f15", p.Commit)
		require.Equal(t, "schema/"+p.Revision+"/schema.json", p.Path)
		require.Len(t, p.SHA256, 64)
		got, ok := PinFor(p.Revision)
		require.True(t, ok)
		require.Equal(t, p, got)
	}
	_, ok := PinFor("2099-01-01")
	require.False(t, ok, "an unpinned revision has no pin")
	pins[0].SHA256 = "changed"
	require.NotEqual(t, "changed", Pins()[0].SHA256, "Pins returns a copy")
}

// The pins must agree with the SHA256SUMS and SOURCE files shipped beside the schemas, and
// with the bytes of the files themselves.
func TestPinsMatchReferenceChecksums(t *testing.T) {
	dir := schemaDir(t)
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	require.NoError(t, err)
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 {
			sums[fields[1]] = fields[0]
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, sums, len(Pins()))
	src, err := os.ReadFile(filepath.Join(dir, "SOURCE"))
	require.NoError(t, err)
	for _, p := range Pins() {
		require.Equal(t, sums[p.Path], p.SHA256, "pin of %s", p.Revision)
		require.Contains(t, string(src), p.Commit)
		b, err := os.ReadFile(filepath.Join(dir, p.Revision, "schema.json"))
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		require.Equal(t, p.SHA256, hex.EncodeToString(sum[:]), "file of %s", p.Revision)
	}
}
