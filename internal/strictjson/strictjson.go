package strictjson

// strictjson.go: Decode, the one strict decode of a versioned document,
// and Error, what it refused.

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Kind says which check refused a document.
type Kind int

// The kinds of an [Error].
const (
	// NotJSON: the document is not JSON at all.
	NotJSON Kind = iota + 1
	// NoVersion: it has no schemaVersion.
	NoVersion
	// WrongVersion: its schemaVersion is not the one this build reads
	// (Error.Got).
	WrongVersion
	// Undecodable: it does not decode into the type, an unknown field
	// included.
	Undecodable
)

// Error is a document Decode refused. Callers turn it into their own
// typed error, with their own wording.
type Error struct {
	// Kind is the check that refused it.
	Kind Kind
	// Got is the schemaVersion found, for WrongVersion.
	Got int
	// Err is the decoder's error, for NotJSON and Undecodable.
	Err error
}

// Error says which check refused the document.
func (e *Error) Error() string {
	switch e.Kind {
	case NotJSON:
		return fmt.Sprintf("not JSON: %v", e.Err)
	case NoVersion:
		return "no schemaVersion"
	case WrongVersion:
		return fmt.Sprintf("schemaVersion %d", e.Got)
	}
	return fmt.Sprintf("cannot decode: %v", e.Err)
}

// Unwrap returns the decoder's error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Decode checks that data's schemaVersion is want, then decodes data into
// v (a pointer), refusing unknown fields. It returns an *Error.
func Decode(data []byte, want int, v any) error {
	var probe struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return &Error{Kind: NotJSON, Err: err}
	}
	switch {
	case probe.SchemaVersion == nil:
		return &Error{Kind: NoVersion}
	case *probe.SchemaVersion != want:
		return &Error{Kind: WrongVersion, Got: *probe.SchemaVersion}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &Error{Kind: Undecodable, Err: err}
	}
	return nil
}

// Version is "none" for NoVersion and the version found otherwise: how a
// message names what the document carried.
func (e *Error) Version() string {
	if e.Kind == NoVersion {
		return "none"
	}
	return fmt.Sprint(e.Got)
}
