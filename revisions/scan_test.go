package revisions

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// revisionDate matches a date a revision could have (MCP's first revision is from 2024; Go's
// time layout 2006-01-02 is not one); a match followed by "T" is a timestamp.
var revisionDate = regexp.MustCompile(`20[2-9][0-9]-[0-9]{2}-[0-9]{2}`)

// TestNoRevisionDatesOutside enforces DESIGN "Revisions": no Go code outside this package
// spells a revision date. It scans the string literals of the module's non-test .go files
// (comments may cite revisions) and names file:line of each offender. Test data in `_test.go`
// files is excepted, as DESIGN says. The reference fixture's break table
// (fixtures/refserver/breaks*.go) is not: its side effects are keyed by era ("rule@modern")
// and its checks ask the table for the versions they send.
func TestNoRevisionDatesOutside(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	var bad []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == "revisions", rel == "fixtures/sdkservers", d.Name() == "node_modules",
				rel != "." && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		file := fset.AddFile(rel, fset.Base(), len(src))
		var s scanner.Scanner
		s.Init(file, src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING {
				continue
			}
			text := lit
			if u, err := strconv.Unquote(lit); err == nil {
				text = u
			}
			for _, loc := range revisionDate.FindAllStringIndex(text, -1) {
				if loc[1] < len(text) && text[loc[1]] == 'T' {
					continue
				}
				bad = append(bad, fset.Position(pos).String()+": "+text[loc[0]:loc[1]])
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, bad, "revision dates spelled outside package revisions (ask the table instead)")
}
