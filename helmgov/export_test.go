package helmgov

// This file exposes unexported helpers to the package's external tests.

// PlainReason is plainReason, for TestPlainReason.
var PlainReason = plainReason
