package journal

// encode.go holds the journal's JSON: its schema version, EncodeState and
// DecodeState.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/qstools/tgmigrate/internal/strictjson"
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
	var s State
	if err := strictjson.Decode(data, StateSchemaVersion, &s); err != nil {
		var se *strictjson.Error
		errors.As(err, &se)
		switch se.Kind {
		case strictjson.NotJSON:
			return nil, &CorruptJournalError{Journal: where, Reason: "not JSON", Err: se.Err}
		case strictjson.NoVersion:
			return nil, &CorruptJournalError{Journal: where, Reason: "no schemaVersion"}
		case strictjson.WrongVersion:
			return nil, &CorruptJournalError{Journal: where,
				Reason: "unknown schemaVersion " + strconv.Itoa(se.Got) + " (this build reads " + strconv.Itoa(StateSchemaVersion) + ")"}
		}
		return nil, &CorruptJournalError{Journal: where, Reason: "cannot decode", Err: se.Err}
	}
	if err := s.Validate(); err != nil {
		return nil, &CorruptJournalError{Journal: where, Reason: err.Error()}
	}
	return &s, nil
}
