package journal

// encode.go holds the journal's JSON: its schema version, EncodeState and
// DecodeState.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// StateSchemaVersion is the version of the journal's JSON. [DecodeState]
// rejects any other.
const StateSchemaVersion = 1

// EncodeState returns the state's JSON, indented. It validates first and
// returns an *InputError for an invalid state.
func EncodeState(s *State) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, &InputError{Op: "encode state", Field: "state", Reason: err.Error()}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cutover: encode state: %w", err)
	}
	return append(b, '\n'), nil
}

// DecodeState parses a state's JSON. An unknown schemaVersion, malformed
// JSON, an unknown field or a state that fails [State.Validate] gives a
// *CorruptJournalError naming where (a short name of the source, used in
// messages). Unknown fields are refused rather than dropped: a field this
// build does not know might record something a rollback must undo.
func DecodeState(where string, data []byte) (*State, error) {
	var probe struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, &CorruptJournalError{Journal: where, Reason: "not JSON", Err: err}
	}
	if probe.SchemaVersion == nil {
		return nil, &CorruptJournalError{Journal: where, Reason: "no schemaVersion"}
	}
	if *probe.SchemaVersion != StateSchemaVersion {
		return nil, &CorruptJournalError{Journal: where,
			Reason: "unknown schemaVersion " + strconv.Itoa(*probe.SchemaVersion) + " (this build reads " + strconv.Itoa(StateSchemaVersion) + ")"}
	}
	var s State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, &CorruptJournalError{Journal: where, Reason: "cannot decode", Err: err}
	}
	if err := s.Validate(); err != nil {
		return nil, &CorruptJournalError{Journal: where, Reason: err.Error()}
	}
	return &s, nil
}
