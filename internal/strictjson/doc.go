// Package strictjson decodes the project's versioned documents (a cutover
// plan, a cutover journal's state, a campaign plan): the schemaVersion
// checked first, then a decode that refuses unknown fields, so that a
// field this build does not know is never dropped in silence.
//
// # Files
//
//   - doc.go: this comment.
//   - strictjson.go: Decode and its Error.
//
// Tests: strictjson_test.go.
package strictjson
