package diagnose

// stringers.go holds the String methods of the report's values a user
// prints with %v: NextCall and Finding, each one line.

import (
	"fmt"
	"strings"
)

// String returns the next call as one line: the operation, then what it
// names, for example "cutover.PlanCutover
// targetGroup=arn:aws:elasticloadbalancing:...:targetgroup/web/0123
// strategy=in-place service=prod/shop/web:http".
func (c NextCall) String() string {
	line := nextLine(c)
	if c.TargetGroupARN.IsZero() {
		return line
	}
	op, rest, _ := strings.Cut(line, " ")
	return strings.TrimSpace(op + " targetGroup=" + c.TargetGroupARN.String() + " " + rest)
}

// String returns the finding as one line: its severity, code and subject
// (the target group's ARN, or the cluster), and its message, for example
// "high StaticNodeTarget arn:aws:...:targetgroup/web/0123: 4 of 4 targets
// are node IPs ...".
func (f Finding) String() string {
	subject := "cluster " + f.Cluster
	if !f.TargetGroupARN.IsZero() {
		subject = f.TargetGroupARN.String()
	}
	return fmt.Sprintf("%s %s %s: %s", f.Severity, f.Code, subject, strings.Join(strings.Fields(f.Message), " "))
}
