package keyroute

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
)

// ServerSelector picks memcached servers with a Router, for gomemcache:
// memcache.NewFromSelector(selector) gives a client that stores each key on the server keyroute
// routes it to, where gomemcache's own ServerList takes crc32(key) % len(servers) and so moves
// most keys when a server is added. It has gomemcache's ServerSelector methods (PickServer,
// Each) without importing gomemcache. Safe for concurrent use; SetRouter swaps the topology
// atomically while the client runs.
type ServerSelector struct {
	state atomic.Pointer[selectorState]
}

type selectorState struct {
	router *Router
	addrs  []net.Addr
}

// NewServerSelector makes a selector over r's nodes. A node's address is its host and port
// when the spec gives both (the presets that read them), else its id: "host:port" for TCP, or
// a path holding a "/" for a Unix socket, as gomemcache's ServerList reads its servers. The
// selector uses r; keep r open while the selector is in use.
func NewServerSelector(r *Router) (*ServerSelector, error) {
	s := new(ServerSelector)
	if err := s.SetRouter(r); err != nil {
		return nil, err
	}
	return s, nil
}

// SetRouter switches the selector to another topology, atomically: picks that follow use r.
// The previous router is not closed.
func (s *ServerSelector) SetRouter(r *Router) error {
	addrs, err := nodeAddrs(r)
	if err != nil {
		return err
	}
	s.state.Store(&selectorState{router: r, addrs: addrs})
	return nil
}

// Router is the router the selector picks with.
func (s *ServerSelector) Router() *Router { return s.state.Load().router }

// PickServer gives the address of the server key is routed to.
func (s *ServerSelector) PickServer(key string) (net.Addr, error) {
	st := s.state.Load()
	i, err := st.router.RouteString(key)
	if err != nil {
		return nil, err
	}
	return st.addrs[i], nil
}

// Each calls f for every server, in the spec's node order, stopping at the first error.
func (s *ServerSelector) Each(f func(net.Addr) error) error {
	for _, a := range s.state.Load().addrs {
		if err := f(a); err != nil {
			return err
		}
	}
	return nil
}

// Addrs are the servers' addresses in the spec's node order (a copy).
func (s *ServerSelector) Addrs() []net.Addr {
	return append([]net.Addr(nil), s.state.Load().addrs...)
}

// nodeAddrs resolves every node's address from the router's canonical spec.
func nodeAddrs(r *Router) ([]net.Addr, error) {
	text, err := r.CanonicalJSON()
	if err != nil {
		return nil, err
	}
	var spec struct {
		Nodes []struct {
			ID   string  `json:"id"`
			Host *string `json:"host"`
			Port *int    `json:"port"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(text), &spec); err != nil {
		return nil, &Error{Code: CodeInternal, Message: "the canonical spec does not parse: " + err.Error()}
	}
	addrs := make([]net.Addr, len(spec.Nodes))
	for i, n := range spec.Nodes {
		server := n.ID
		if n.Host != nil && n.Port != nil {
			server = net.JoinHostPort(*n.Host, strconv.Itoa(*n.Port))
		}
		if strings.Contains(server, "/") {
			addrs[i], err = net.ResolveUnixAddr("unix", server)
		} else {
			addrs[i], err = net.ResolveTCPAddr("tcp", server)
		}
		if err != nil {
			return nil, &Error{Code: CodeInvalidParameter, Message: "node " + strconv.Quote(n.ID) + " has no memcached address: " + err.Error()}
		}
	}
	return addrs, nil
}
