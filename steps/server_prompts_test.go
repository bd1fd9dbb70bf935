package steps

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSetDiff(t *testing.T) {
	assert.Empty(t, setDiff(map[string]string{"a": "1"}, map[string]string{"a": "1"}))
	assert.Equal(t, `missing "a"; added "c"; changed "b"`, setDiff(map[string]string{"a": "1", "b": "2"}, map[string]string{"b": "3", "c": "1"}))
}
