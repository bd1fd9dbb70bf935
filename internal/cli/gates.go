package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOutputFiles checks each (flag, path) pair of pairs whose path is set with
// checkOutputPath, before anything runs or renders: exit code 2 with the flag and the reason
// for the first that cannot be written, -1 when all can.
func checkOutputFiles(stderr io.Writer, pairs ...string) int {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		if err := checkOutputPath(pairs[i+1]); err != nil {
			return usageError(stderr, "%s %s: %v", pairs[i], pairs[i+1], err)
		}
	}
	return -1
}

// checkOutputPath proves, without creating anything, that a file an output flag names
// (--write-baseline, --sarif, report's --html and --junit) can be written at the end: it is
// not a folder, and its folder exists and takes a new file, or the nearest folder above it
// that exists does (writeFileAtomic creates the missing ones).
func checkOutputPath(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("is a folder, not a file")
	}
	dir := filepath.Dir(path)
	for {
		st, err := os.Stat(dir)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a folder", dir)
		case err == nil:
			f, err := os.CreateTemp(dir, ".mcp-conform-probe-*")
			if err != nil {
				return fmt.Errorf("cannot write in %s: %w", dir, err)
			}
			name := f.Name()
			f.Close()
			return os.Remove(name)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return fmt.Errorf("no folder of %s exists", path)
		}
		dir = up
	}
}
