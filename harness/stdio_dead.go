package harness

// IsDead reports whether the server can no longer answer: it exited, or closed its stdout
// (after the ShutdownGrace the monitor allows for the other half). Pending requests have then
// been failed with ErrServerExited.
func (s *Stdio) IsDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}
