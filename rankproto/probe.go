package rankproto

import (
	"fmt"
	"strings"
)

// ProbeAnswer is what probe.sh reports about a node.
type ProbeAnswer struct {
	Arch, Home string
	Tag        string   // the cache directory's tag; "" when it has none
	States     []string // per path: its SHA-256, "absent", "nosha" or "unsafe ..."
}

// States of a probed path other than its SHA-256.
const (
	StateAbsent = "absent"
	StateNoSHA  = "nosha"
)

// QuickProbeLines is how many lines follow quick.sh's "probe", and
// answer a held session's probe: probe.sh's for the cached copy alone.
const QuickProbeLines = 4

// ParseProbe reads probe.sh's answer about n paths.
func ParseProbe(out []byte, n int) (ProbeAnswer, error) {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3+n {
		return ProbeAnswer{}, fmt.Errorf("probing the node: unexpected answer %q (is the login shell printing something?)", out)
	}
	a := ProbeAnswer{Arch: lines[0], Home: lines[1], States: lines[3:]}
	if ValidTag(lines[2]) {
		a.Tag = lines[2]
	}
	return a, nil
}

// ValidTag accepts what cachetag.sh makes: 16 lowercase hex digits.
func ValidTag(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// IsUnsafe says whether a script's answer is priv's "unsafe ...".
func IsUnsafe(answer string) bool { return strings.HasPrefix(answer, "unsafe ") }

// UnsafeCacheError turns the scripts' "unsafe OWNER UID MODE TYPE PATH"
// into the one-line refusal a user reads: which path, why it matters,
// the fix.
func UnsafeCacheError(state string) error {
	f := strings.SplitN(state, " ", 6)
	if len(f) != 6 {
		return fmt.Errorf("the cached ioswarm is not private to you (%s); remove ~/.cache/ioswarm and run again", state)
	}
	owner, uid, mode, typ, p := f[1], f[2], f[3], f[4], f[5]
	why := fmt.Sprintf("is owned by uid %s, not by you (uid %s)", owner, uid)
	fix := fmt.Sprintf("remove it (rm -rf %s)", QuoteSh(p))
	switch {
	case typ == "l":
		why = "is a symbolic link"
	case owner == uid:
		why = fmt.Sprintf("has mode %s: group or others may write to it", mode)
		fix = fmt.Sprintf("make it private (chmod go-w %s) or remove it (rm -rf %s)", QuoteSh(p), QuoteSh(p))
	}
	return fmt.Errorf("refusing the ioswarm cache: %s %s, so another user could change what runs as you; "+
		"%s and run again", p, why, fix)
}
