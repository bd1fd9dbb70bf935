package schemas

import (
	"sort"
	"sync"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// Set resolves and compiles the pinned schemas on demand: each revision is loaded from its
// Source and compiled at most once, on the first call to Validator for it, and the result
// (or the error) is kept. A Set is safe for concurrent use.
type Set struct {
	src Source
	mu  sync.Mutex
	m   map[string]*setEntry
}

type setEntry struct {
	ready chan struct{} // closed once v, from and err are set
	v     *Validator
	from  string
	err   error
}

// Loaded describes a compiled revision: its pin and where its file came from (see
// Source.Load).
type Loaded struct {
	Pin  Pin
	From string
}

// NewSet returns an empty Set that loads from src.
func NewSet(src Source) *Set {
	return &Set{src: src, m: map[string]*setEntry{}}
}

// Source returns the Source the Set loads from.
func (s *Set) Source() Source { return s.src }

// Validator returns the compiled schema of revision rev, loading and compiling it on first
// use. Errors: *UnavailableError when the file cannot be obtained or fails its checksum
// (errors.Is(err, ErrChecksum)), or a compilation error; they are memoised like successes.
func (s *Set) Validator(rev string) (*Validator, error) {
	s.mu.Lock()
	e := s.m[rev]
	owner := e == nil
	if owner {
		e = &setEntry{ready: make(chan struct{})}
		s.m[rev] = e
	}
	s.mu.Unlock()
	if owner {
		func() {
			defer close(e.ready)
			data, from, err := s.src.Load(rev)
			if err != nil {
				e.err = err
				return
			}
			e.v, e.err = Compile(rev, data)
			e.from = from
		}()
	}
	<-e.ready
	return e.v, e.err
}

// Loaded returns the revisions compiled successfully so far (not those still compiling), sorted by revision, with their
// pins and origins (for the report header).
func (s *Set) Loaded() []Loaded {
	s.mu.Lock()
	entries := make(map[string]*setEntry, len(s.m))
	for r, e := range s.m {
		entries[r] = e
	}
	s.mu.Unlock()
	var out []Loaded
	for r, e := range entries {
		select {
		case <-e.ready:
		default:
			continue // still compiling
		}
		if e.v != nil {
			p, _ := PinFor(r)
			out = append(out, Loaded{Pin: p, From: e.from})
		}
	}
	sort.Slice(out, func(i, j int) bool { return revisions.Before(out[i].Pin.Revision, out[j].Pin.Revision) })
	return out
}
