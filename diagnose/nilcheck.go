package diagnose

// This file is the typed-nil check of the clients Diagnose is handed:
// internal/nilcheck's, under diagnose's names.

import "github.com/qstools/tgmigrate/internal/nilcheck"

// isNil reports whether v is nil or a typed nil (nilcheck.IsNil).
func isNil(v any) bool { return nilcheck.IsNil(v) }

// nilReason is an [InputError] Reason for a nil v (nilcheck.Reason).
func nilReason(v any) string { return nilcheck.Reason(v) }
