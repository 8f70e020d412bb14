package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// TestGenerateGolden pins the bytes: benches, fixtures and stored catalogues are named by seed and
// size, so a change to the generator that alters its output must be seen and made on purpose.
func TestGenerateGolden(t *testing.T) {
	for _, tc := range []struct {
		n    int
		seed int64
		want string
	}{
		{0, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{200, 7, "72435c89d475d3e77d9ae493d64e06121a95d110075f60449d518ff32d629258"},
		{1000, 1, "ab7ae32ff5094411c3e89ef27e8f98c3132e4a0322c2e8f3f0d1c7a3e695a140"},
		{1000, 42, "4dd21b611b29761b05627d35a8a59a5ced118ed0bf10defc14e4575698685edb"},
	} {
		t.Run(fmt.Sprintf("n=%d,seed=%d", tc.n, tc.seed), func(t *testing.T) {
			sum := sha256.Sum256(generated(t, tc.n, tc.seed))
			if got := hex.EncodeToString(sum[:]); got != tc.want {
				t.Errorf("sha256 = %s, want %s: the output for this seed and size changed", got, tc.want)
			}
		})
	}
}
