package strictjson

// strictjson_test.go: Decode's checks, each with its Kind.

import (
	"errors"
	"testing"
)

func TestDecode(t *testing.T) {
	type doc struct {
		SchemaVersion int    `json:"schemaVersion"`
		Name          string `json:"name"`
	}
	tests := []struct {
		name, data string
		kind       Kind
		got        int
	}{
		{"ok", `{"schemaVersion":1,"name":"a"}`, 0, 0},
		{"not JSON", `{`, NotJSON, 0},
		{"no version", `{"name":"a"}`, NoVersion, 0},
		{"wrong version", `{"schemaVersion":2}`, WrongVersion, 2},
		{"unknown field", `{"schemaVersion":1,"extra":true}`, Undecodable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Decode([]byte(tt.data), 1, &d)
			if tt.kind == 0 {
				if err != nil || d.Name != "a" {
					t.Fatalf("Decode: %v, %+v; want no error and name a", err, d)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) || se.Kind != tt.kind || se.Got != tt.got {
				t.Fatalf("Decode: %#v; want kind %d, got %d", err, tt.kind, tt.got)
			}
		})
	}
}
