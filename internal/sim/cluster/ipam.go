package cluster

// ipam.go: address management: subnets, freed addresses and their reuse, the
// public IP pool.

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// subnet hands out the addresses of one subnet in order. Without reuse
// every address is handed out once; with it (Options.IPReuse) a freed
// address comes back once its cool-down has passed, before any address
// never used, to the holders the reuse allows.
type subnet struct {
	id     string
	zone   string
	public bool
	prefix netip.Prefix
	next   netip.Addr
	last   netip.Addr
	// freed are the addresses given back, oldest first.
	freed []freedAddr
}

// freedAddr is an address given back at a time.
type freedAddr struct {
	ip string
	at time.Time
}

// release gives ip back at now, for reuse.
func (s *subnet) release(ip string, now time.Time) {
	s.freed = append(s.freed, freedAddr{ip: ip, at: now})
}

// allocFor hands out an address to a holder (a node or a pod) at now: the
// oldest freed address whose cool-down has passed when reuse allows that
// holder, else the next never used.
func (s *subnet) allocFor(holder timing.Holder, now time.Time, reuse timing.IPReuse) (string, error) {
	if reuse.Enabled && (reuse.To == "" || reuse.To == timing.HolderAny || reuse.To == holder) {
		for i, f := range s.freed {
			if !now.Before(f.at.Add(reuse.CoolDown)) {
				s.freed = slices.Delete(s.freed, i, i+1)
				return f.ip, nil
			}
		}
	}
	return s.alloc()
}

func newSubnet(id, zone string, public bool, p netip.Prefix) *subnet {
	first := p.Masked().Addr()
	// AWS reserves the first four addresses and the last one of a subnet.
	next := first
	for range 4 {
		next = next.Next()
	}
	last := lastAddr(p)
	return &subnet{id: id, zone: zone, public: public, prefix: p, next: next, last: last.Prev()}
}

func (s *subnet) alloc() (string, error) {
	if !s.next.IsValid() || s.last.Less(s.next) {
		return "", fmt.Errorf("cluster: subnet %s (%s): %w", s.id, s.prefix, ErrExhausted)
	}
	a := s.next
	s.next = s.next.Next()
	return a.String(), nil
}

// free is how many addresses of the subnet no one holds now: those never
// handed out and those given back.
func (s *subnet) free() int {
	n := len(s.freed)
	if s.next.IsValid() && !s.last.Less(s.next) {
		n += int(addrValue(s.last)-addrValue(s.next)) + 1
	}
	return n
}

// addrValue is an IPv4 address as a number.
func addrValue(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func lastAddr(p netip.Prefix) netip.Addr {
	host := uint32(1)<<(32-p.Bits()) - 1
	v := addrValue(p.Masked().Addr()) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// splitPrefix returns the i-th of the 2^extra equal parts of p.
func splitPrefix(p netip.Prefix, extra, i int) netip.Prefix {
	bits := p.Bits() + extra
	v := addrValue(p.Masked().Addr()) + uint32(i)<<(32-bits)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), bits)
}

// publicPool hands out public IPv4 addresses for ExternalIPs from the
// documentation ranges (RFC 5737), never twice.
type publicPool struct {
	ranges []netip.Prefix
	i      int
	next   netip.Addr
}

func newPublicPool() *publicPool {
	r := []netip.Prefix{
		netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"),
		netip.MustParsePrefix("192.0.2.0/24"),
	}
	return &publicPool{ranges: r, next: r[0].Addr().Next()}
}

func (p *publicPool) alloc() (string, error) {
	for p.i < len(p.ranges) {
		r := p.ranges[p.i]
		if p.next.IsValid() && r.Contains(p.next) && p.next != lastAddr(r) {
			a := p.next
			p.next = p.next.Next()
			return a.String(), nil
		}
		p.i++
		if p.i < len(p.ranges) {
			p.next = p.ranges[p.i].Addr().Next()
		}
	}
	return "", fmt.Errorf("cluster: public addresses: %w", ErrExhausted)
}
