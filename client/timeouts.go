package client

import (
	"strings"
	"time"
)

// timeoutFlag names the flag whose value bounded a wait of waited: --timeout or
// --startup-timeout when waited is within a fifth of it (the closer one), "" when neither
// (a wait the scenario derived otherwise).
func (o Options) timeoutFlag(waited time.Duration) string {
	best, bestOff := "", time.Duration(-1)
	for _, c := range []struct {
		flag string
		d    time.Duration
	}{{"--timeout", o.Timeout}, {"--startup-timeout", o.StartupTimeout}} {
		if c.d <= 0 {
			continue
		}
		off := waited - c.d
		if off < 0 {
			off = -off
		}
		if off <= c.d/5 && (bestOff < 0 || off < bestOff) {
			best, bestOff = c.flag, off
		}
	}
	return best
}

// noResponse says that no response came, with err's reason: "no response: " + err, or err
// alone when it already begins with "no response".
func noResponse(err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, "no response") {
		return msg
	}
	return "no response: " + err.Error()
}
