package diagnose

// This file embeds the report's JSON Schema (ReportSchema).

import (
	_ "embed"
	"slices"
)

//go:embed schema/report.v1.json
var reportSchema []byte

// ReportSchema returns the JSON Schema (draft 2020-12) that [Report.JSON]
// output validates against, for schema version [SchemaVersion]. The file is
// diagnose/schema/report.v1.json in the repository.
func ReportSchema() []byte { return slices.Clone(reportSchema) }
