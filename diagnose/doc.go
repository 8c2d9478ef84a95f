// Package diagnose finds what is wrong with a fleet's target groups before
// anyone touches production: ghost targets, target groups that still pin node
// IPs, who owns each target group, and what to do next.
//
// It is read-only by construction: it takes an [ELBv2API] that holds only
// Describe* operations, an optional read-only [EC2API], and controller-runtime
// client.Reader values for the clusters.
package diagnose
