// Package cutover plans, executes and rolls back the zero-downtime move of a
// target group from hand-registered node targets to LBC-managed pod targets.
//
// It is the only package whose [ELBv2API] can change AWS.
package cutover
