package reports

// Exit codes of `mcp-conform run` (DESIGN.md "Exit codes").
const (
	// ExitOK: no failure, no error, the run was carried out.
	ExitOK = 0
	// ExitFail: at least one fail not covered by the baseline, or a stale baseline entry.
	ExitFail = 1
	// ExitUsage: bad flags or arguments.
	ExitUsage = 2
	// ExitError: the run could not be carried out, or a result is error.
	ExitError = 3
)

// ExitCode computes the process exit code of a finished run: ExitFail when any result is fail
// (or warn, with strict) or staleBaseline is non-zero; otherwise ExitError when the run was
// aborted, checked nothing at all, or any result is error or notrun; otherwise ExitOK. xfail,
// info, na
// and untestable never change it.
func ExitCode(r *Run, strict bool, staleBaseline int) int {
	failed, errored := staleBaseline > 0, r.Aborted != "" || len(r.Results) == 0
	for _, res := range r.Results {
		switch res.Verdict {
		case Fail:
			failed = true
		case Warn:
			failed = failed || strict
		case Error, NotRun:
			errored = true
		}
	}
	switch {
	case failed:
		return ExitFail
	case errored:
		return ExitError
	}
	return ExitOK
}
