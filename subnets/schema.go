package subnets

// schema.go: ReadinessSchema, the embedded JSON Schema of the readiness
// report (schema/readiness.v1.json).

import (
	_ "embed"
	"slices"
)

//go:embed schema/readiness.v1.json
var readinessSchema []byte

// ReadinessSchema returns the JSON Schema (draft 2020-12) that
// [Readiness.JSON] output validates against, for schema version
// [ReadinessSchemaVersion]. The file is subnets/schema/readiness.v1.json
// in the repository.
func ReadinessSchema() []byte { return slices.Clone(readinessSchema) }
