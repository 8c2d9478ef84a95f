package helmgov_test

import (
	"context"
	"testing"
)

func contextWithCause(t *testing.T) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(t.Context())
	t.Cleanup(func() { cancel(nil) })
	return ctx, cancel
}
