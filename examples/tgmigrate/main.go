// Command tgmigrate is the command-line face of the tgmigrate SDK: diagnose,
// plan, execute and roll back the move of hand-made ALB target groups to
// LBC-managed TargetGroupBindings, bind, govern Helm charts, and run the whole
// story on the embedded simulator.
//
// It is built only on the public packages; read it as an example of
// embedding them.
//
// Exit codes: 0 success; 1 findings at or above --fail-on; 2 a usage,
// configuration or input error (one line on stderr, no stack trace); 3 an
// operation that started and failed (the journal says how to resume or roll back).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
