package tgbind

// name.go: Name, the deterministic DNS-1123 name of a binding derived from
// its Service, port and target group, and MaxNameLength.

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// MaxNameLength is the longest name [Name] returns: a DNS-1123 label. The
// LBC's pod readiness gate puts the binding's name in a condition type
// (target-health.elbv2.k8s.aws/<name>), whose name part is a label too.
const MaxNameLength = 63

// hashLength is how many hex digits of SHA-256 a truncated name ends with.
const hashLength = 8

// Name derives a binding's name from its parts:
// "<service>-<port>-<target group name>", lowercased, with every character
// outside [a-z0-9] turned into a hyphen, runs of hyphens collapsed and
// hyphens trimmed from both ends. A result longer than [MaxNameLength] is cut
// and ends with "-" and the first 8 hex digits of the SHA-256 of the whole
// sanitized name, so the same inputs always give the same name and long
// inputs that share a prefix stay distinct.
func Name(service string, port intstr.IntOrString, targetGroupName string) string {
	full := sanitizeLabel(service + "-" + port.String() + "-" + targetGroupName)
	if full == "" {
		full = "tgb"
	}
	if len(full) <= MaxNameLength {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	prefix := strings.TrimRight(full[:MaxNameLength-hashLength-1], "-")
	return prefix + "-" + hex.EncodeToString(sum[:])[:hashLength]
}

// sanitizeLabel lowercases s and maps it onto [a-z0-9-], collapsing runs of
// hyphens and trimming them from the ends.
func sanitizeLabel(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
			hyphen = false
			continue
		}
		if !hyphen {
			b.WriteByte('-')
			hyphen = true
		}
	}
	return strings.Trim(b.String(), "-")
}
