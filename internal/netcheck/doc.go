// Package netcheck holds the network judgements more than one package
// makes, once: whether a route table makes a subnet public (a default
// route to an internet gateway), whether it gives it a NAT gateway, which
// route table governs a subnet, and whether a security group's ingress
// rules let a source group reach a port. diagnose (PublicSubnetNode),
// cutover (the plan's security-group check) and subnets (the readiness of
// the move to private subnets) call it; none of them re-implements it.
//
// # Files
//
//   - doc.go: this comment.
//   - routes.go: [RoutesToIGW], [RoutesToNAT], [RouteTables] (the table
//     of each subnet: its explicit association, else its VPC's main table).
//   - securitygroups.go: [Allows] and [PermString], the ingress-rule
//     evaluation.
package netcheck
