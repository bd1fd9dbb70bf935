package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkBaselinePath proves, before the run and without creating anything, that the file
// --write-baseline names can be written at the end: it is not a folder, and its folder exists
// and takes a new file, or the nearest folder above it that exists does (writeFileAtomic
// creates the missing ones).
func checkBaselinePath(path string) error {
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
