package elbv2sim

// consistency.go: eventual consistency for every caller: Consistency, the
// shared record of the target groups created and of when each client may
// see them, on the virtual clock.

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// ConsistencyOptions configure a [Consistency]. The zero value hides
// nothing.
type ConsistencyOptions struct {
	// Delay is how long after its creation a target group stays invisible
	// to every client that shares the Consistency (the one that created it
	// included), on the virtual clock. Zero: visible at once, unless
	// ClientDelay names the client.
	Delay time.Duration
	// ClientDelay overrides Delay for the clients it names (by
	// Options.Name, for example "lbc"): each caller converges at its own
	// instant, as ELBv2's eventual consistency lets one caller see a new
	// target group while another does not yet. Nil: Delay for every
	// client.
	ClientDelay map[string]time.Duration
}

// Consistency models ELBv2's eventual consistency for every [Client] that
// shares it (through Options.Consistency), as the callers of one account
// and region share one service: a target group created through any of
// them is invisible to each of them, until its delay (ConsistencyOptions)
// has passed on the virtual clock since the create reached the service.
// An invisible target group fails the calls that name it, by ARN or by
// name, with TargetGroupNotFound, and is left out of listings; once a
// client sees it, it keeps seeing it. A create that finds the target
// group there already (the idempotent create) hides nothing, and a
// deleted target group is forgotten. A Consistency is safe for concurrent
// use; a nil one hides nothing.
type Consistency struct {
	delay  time.Duration
	delays map[string]time.Duration

	mu      sync.Mutex
	created map[string]time.Time // target group ARN -> creation
	names   map[string]string    // target group name -> ARN
}

// NewConsistency returns a Consistency. It fails with an [*OptionsError]
// for a negative delay.
func NewConsistency(o ConsistencyOptions) (*Consistency, error) {
	if o.Delay < 0 {
		return nil, &OptionsError{Pkg: "elbv2sim", Op: "new consistency", Field: "Delay", Reason: fmt.Sprintf("%v is negative", o.Delay)}
	}
	delays := make(map[string]time.Duration, len(o.ClientDelay))
	for _, name := range slices.Sorted(maps.Keys(o.ClientDelay)) {
		d := o.ClientDelay[name]
		if d < 0 {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new consistency", Field: "ClientDelay", Reason: fmt.Sprintf("client %q: %v is negative", name, d)}
		}
		delays[name] = d
	}
	return &Consistency{delay: o.Delay, delays: delays, created: map[string]time.Time{}, names: map[string]string{}}, nil
}

// Delay returns how long a new target group stays invisible to the client
// named client.
func (s *Consistency) Delay(client string) time.Duration {
	if s == nil {
		return 0
	}
	if d, ok := s.delays[client]; ok {
		return d
	}
	return s.delay
}

// VisibleAt returns when the target group arn becomes visible to the
// client named client, and false when the Consistency does not hide it
// (not created through a client that shares it, or deleted since).
func (s *Consistency) VisibleAt(client, arn string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.created[arn]
	if !ok {
		return time.Time{}, false
	}
	return at.Add(s.Delay(client)), true
}

// record notes a target group created at virtual time at.
func (s *Consistency) record(arn, name string, at time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created[arn] = at
	if name != "" {
		s.names[name] = arn
	}
}

// forget drops a deleted target group.
func (s *Consistency) forget(arn string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.created, arn)
	for n, a := range s.names {
		if a == arn {
			delete(s.names, n)
		}
	}
}

// hidden reports whether the target group arn is invisible to client at
// now.
func (s *Consistency) hidden(client, arn string, now time.Time) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.created[arn]
	return ok && now.Before(at.Add(s.Delay(client)))
}

// hiddenName reports whether the target group named name is invisible to
// client at now.
func (s *Consistency) hiddenName(client, name string, now time.Time) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	arn, ok := s.names[name]
	s.mu.Unlock()
	return ok && s.hidden(client, arn, now)
}
