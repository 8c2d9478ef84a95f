package helmgov

// This file exposes unexported helpers to the package's external tests.

// PlainReason is plainReason, for TestPlainReason.
var PlainReason = plainReason

// LookupValue is lookupValue, for the corpus tests' reading of a values
// file at a path.
var LookupValue = lookupValue
