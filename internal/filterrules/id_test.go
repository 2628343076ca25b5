package filterrules

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const validID = "65f0c0ffee0000000000000a"

func TestIsID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{validID, true},
		{"E7B4B57C000000000000000A", true},
		{"", false},
		{validID[:23], false},
		{validID + "0", false},
		{"65f0c0ffee00000000000g0a", false},
		{"65f0c0ffee000000000000 a", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IsID(tt.id), "IsID(%q)", tt.id)
	}
}

// TestIsIDProperty: a string is an ID exactly when it has 24 bytes and each
// is a hexadecimal digit. Seeded; many strings, each one byte away from an
// ID or not.
func TestIsIDProperty(t *testing.T) {
	t.Parallel()
	const hexDigits = "0123456789abcdefABCDEF"
	rng := rand.New(rand.NewPCG(17, 6))
	for range 5000 {
		b := make([]byte, 24)
		for i := range b {
			b[i] = hexDigits[rng.IntN(len(hexDigits))]
		}
		require.True(t, IsID(string(b)), "%q", b)
		i, c := rng.IntN(len(b)), byte(rng.IntN(256))
		b[i] = c
		want := strings.IndexByte(hexDigits, c) >= 0
		assert.Equal(t, want, IsID(string(b)), "%q", b)
		assert.False(t, IsID(string(b[:rng.IntN(24)])), "shorter than 24")
		assert.False(t, IsID(string(b)+"0"), "longer than 24")
	}
}
