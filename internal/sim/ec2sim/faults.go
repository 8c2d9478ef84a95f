package ec2sim

// faults.go: fault injection on the Client: Fail, FailNext, Clear.

import (
	"fmt"
	"slices"
)

// opFaults are the faults armed for one operation.
type opFaults struct {
	// next are the next-N faults, consumed in the order they were armed.
	next []nextFault
	// always fails every call when set, once next is exhausted.
	always error
}

type nextFault struct {
	left int
	err  error
}

func checkFault(op, fn string, err error) error {
	if !slices.Contains(Ops, op) {
		return &OptionsError{Pkg: "ec2sim", Op: fn, Field: "op", Reason: fmt.Sprintf("unknown operation %q", op)}
	}
	if err == nil {
		return &OptionsError{Pkg: "ec2sim", Op: fn, Field: "err", Reason: "required"}
	}
	return nil
}

// Fail makes every call of op fail with err, before it reaches the model
// (so it has no effect), until [Client.Clear]. Use the ready-made errors
// ([ErrUnauthorized], [ErrThrottled], [ErrUnavailable], [ErrInternal]) or
// a *smithy.GenericAPIError with an EC2 code. It replaces an earlier Fail of
// op; faults armed by [Client.FailNext] fire first. It fails with an
// [*OptionsError] for an unknown op or a nil err.
func (c *Client) Fail(op string, err error) error {
	if c == nil {
		return ErrNilClient
	}
	if e := checkFault(op, "fail", err); e != nil {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opLocked(op).always = err
	return nil
}

// FailNext makes the next n calls of op fail with err, before they reach
// the model. Several FailNext of one op fire in the order they were armed,
// before any [Client.Fail]. It fails with an [*OptionsError] for an unknown
// op, n < 1 or a nil err.
func (c *Client) FailNext(op string, n int, err error) error {
	if c == nil {
		return ErrNilClient
	}
	if e := checkFault(op, "fail next", err); e != nil {
		return e
	}
	if n < 1 {
		return &OptionsError{Pkg: "ec2sim", Op: "fail next", Field: "n", Reason: fmt.Sprintf("%d is not positive", n)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.opLocked(op)
	f.next = append(f.next, nextFault{left: n, err: err})
	return nil
}

// Clear disarms every fault of op; an empty op clears every operation's.
func (c *Client) Clear(op string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if op == "" {
		c.faults = map[string]*opFaults{}
		return
	}
	delete(c.faults, op)
}

func (c *Client) opLocked(op string) *opFaults {
	f, ok := c.faults[op]
	if !ok {
		f = &opFaults{}
		c.faults[op] = f
	}
	return f
}

// faultLocked consumes the fault a call of op gets, if any.
func (c *Client) faultLocked(op string) error {
	f, ok := c.faults[op]
	if !ok {
		return nil
	}
	if len(f.next) > 0 {
		err := f.next[0].err
		if f.next[0].left--; f.next[0].left == 0 {
			f.next = f.next[1:]
		}
		return err
	}
	return f.always
}
