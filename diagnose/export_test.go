package diagnose

// export_test.go: what the external tests reach inside: an option that
// keeps every listed object whole, to compare with the projection.

import "github.com/qstools/tgmigrate/internal/read"

// WithoutProjection keeps every listed object whole (no projection.go),
// so that a test can compare the reports made with and without it.
func WithoutProjection() Option { return func(cfg *config) { cfg.project = read.Projection{} } }
