package harness

import (
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestParseMessageMembersAliasesTheFrame: the members are slices of the frame's own bytes, not
// copies (a 4 MiB frame judged for the whole run is held once), and appending to one never
// writes into the frame.
func TestParseMessageMembersAliasesTheFrame(t *testing.T) {
	raw := []byte(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"xxxx"}}`)
	msg, members, err := ParseMessageMembers(raw)
	require.NoError(t, err)
	require.Equal(t, KindRequest, msg.Kind)
	p := members["params"]
	require.JSONEq(t, `{"pad":"xxxx"}`, string(p))
	start, end := uintptr(unsafe.Pointer(&raw[0])), uintptr(unsafe.Pointer(&raw[len(raw)-1]))
	at := uintptr(unsafe.Pointer(&p[0]))
	require.True(t, at >= start && at <= end, "params is a slice of the frame")
	_ = append(members["id"], '9')
	require.Equal(t, `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"xxxx"}}`, string(raw))
}

// TestParseMessageMembersTellsWhatIsNotAnObject: the problems named for what is no one JSON
// object are unchanged by the aliasing decode.
func TestParseMessageMembersTellsWhatIsNotAnObject(t *testing.T) {
	for raw, problem := range map[string]string{
		`null`:            "not a JSON object",
		`[1]`:             "not a JSON object",
		`{"a":`:           "not a JSON object",
		`{"a":1} {"b":2}`: "trailing data after the JSON object",
		`{"a":1}x`:        "trailing data after the JSON object",
	} {
		msg, members, err := ParseMessageMembers([]byte(raw))
		require.ErrorIs(t, err, ErrNotJSON, raw)
		require.Nil(t, members, raw)
		require.Equal(t, problem, msg.Problem, raw)
	}
	_, members, err := ParseMessageMembers([]byte("{\"a\":1}\n"))
	require.NoError(t, err)
	require.Equal(t, json.RawMessage(`1`), members["a"])
}
