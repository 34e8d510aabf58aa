// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// allowList is where push notifications may go: the operator's host names
// ("hooks.example.com", "*.example.com") and networks ("203.0.113.0/24",
// "10.1.2.3"). A host named by the list may resolve to any address but a
// loopback, link-local, unspecified or multicast one; an address in a
// listed network is allowed whatever it is (so 127.0.0.1/32 allows a local
// webhook). Everything else is refused, checked on the address dialled.
type allowList struct {
	hosts    []string // lower case; "*.example.com" matches any subdomain
	prefixes []netip.Prefix
}

// ErrPushRefused: a push URL is not one the allow-list lets the gateway reach.
var ErrPushRefused = errors.New("gateway: push target not allowed")

func newAllowList(entries []string) (*allowList, error) {
	a := &allowList{}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			a.prefixes = append(a.prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(e); err == nil {
			a.prefixes = append(a.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		host := strings.TrimPrefix(e, "*.")
		if strings.ContainsAny(e, "/:@ ") || host == "" || strings.Contains(host, "*") {
			return nil, fmt.Errorf("%w: push allow-list entry %q is not a host name, a *.domain, an address or a network (CIDR)", ErrInvalidOptions, e)
		}
		a.hosts = append(a.hosts, e)
	}
	return a, nil
}

func (a *allowList) empty() bool { return len(a.hosts) == 0 && len(a.prefixes) == 0 }

func (a *allowList) hostListed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range a.hosts {
		if h == host || (strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:])) {
			return true
		}
	}
	return false
}

// special addresses are reached only through a listed network.
func special(ip netip.Addr) bool {
	return ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsInterfaceLocalMulticast()
}

// allows reports whether ip may be dialled for host.
func (a *allowList) allows(host string, ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return a.hostListed(host) && !special(ip)
}

// checkURL refuses a push URL that is not http(s), or whose host is
// neither listed nor resolves within a listed network (resolving it now;
// the dial checks the address again).
func (a *allowList) checkURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return fmt.Errorf("%w: %q is not an http(s) URL without credentials", ErrPushRefused, raw)
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !a.allows(host, ip) {
			return fmt.Errorf("%w: %s is not in gateway.push.allow", ErrPushRefused, ip)
		}
		return nil
	}
	if a.hostListed(host) {
		return nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("%w: %s is not in gateway.push.allow and does not resolve: %v", ErrPushRefused, host, err)
	}
	for _, ip := range ips {
		if !a.allows(host, ip) {
			return fmt.Errorf("%w: %s resolves to %s, which gateway.push.allow does not allow", ErrPushRefused, host, ip)
		}
	}
	return nil
}

// dial resolves addr's host and dials the first address the list allows
// for it: the address checked is the address connected to (no DNS
// rebinding between the check and the dial).
func (a *allowList) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	d := net.Dialer{}
	var refused []string
	for _, ip := range ips {
		if !a.allows(host, ip) {
			refused = append(refused, ip.String())
			continue
		}
		return d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
	}
	return nil, fmt.Errorf("%w: %s (%s) is not in gateway.push.allow", ErrPushRefused, host, strings.Join(refused, ", "))
}
