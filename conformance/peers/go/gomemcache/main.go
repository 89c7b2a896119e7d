// Captures where gomemcache's Client puts keys: for each topology, a real memcache.Client over
// a real memcache.ServerList, and every key of peers/keys.json through Client.Get. The client
// refuses a malformed key before it picks a server (ErrMalformedKey: a refused case); otherwise
// the selector below asks the real ServerList for the server and ends the call there, so no
// connection is made. Prints one vector document per line for peers/write_docs.py.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/keyroute/keyroute/conformance/peers/go/vectors"
)

// picked ends a Client call once the real ServerList has chosen a server.
type picked struct{ addr net.Addr }

func (p picked) Error() string { return "picked " + p.addr.String() }

type stopAtPick struct{ list *memcache.ServerList }

func (s stopAtPick) PickServer(key string) (net.Addr, error) {
	addr, err := s.list.PickServer(key)
	if err != nil {
		return nil, err
	}
	return nil, picked{addr}
}

func (s stopAtPick) Each(f func(net.Addr) error) error { return s.list.Each(f) }

type node struct {
	ID     string `json:"id"`
	Weight int    `json:"weight,omitempty"`
}

type spec struct {
	Algorithm string `json:"algorithm"`
	Nodes     []node `json:"nodes"`
}

type topology struct {
	suffix, what string
	// The strings given to SetServers, in order; a string repeated in a row is one node
	// whose weight is the number of repeats.
	servers []string
}

func main() {
	keys := vectors.ReadKeys(os.Args[1])
	version := os.Args[2]

	sixty := make([]string, 60)
	for i := range sixty {
		sixty[i] = fmt.Sprintf("10.0.%d.%d:11211", i/10, i%10+1)
	}
	topologies := []topology{
		{"1", "1 server", []string{"10.0.0.1:11211"}},
		{"3", "3 servers", []string{"10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"}},
		{"4", "the 3-server topology and a fourth server last",
			[]string{"10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211", "10.0.0.4:11211"}},
		{"weighted", "servers listed 1, 2 and 3 times in a row (weights 1, 2, 3)",
			[]string{"10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.2:11211", "10.0.0.3:11211", "10.0.0.3:11211", "10.0.0.3:11211"}},
		{"60", "60 servers", sixty},
		{"forms", "server strings in each form gomemcache takes: IPv4, bracketed IPv6, a UNIX socket path",
			[]string{"127.0.0.1:11211", "[::1]:11212", "/var/run/memcached/memcached.sock"}},
	}
	for _, t := range topologies {
		var list memcache.ServerList
		vectors.Check(list.SetServers(t.servers...))
		client := memcache.NewFromSelector(stopAtPick{&list})
		// The address each server string resolves to, back to the string (the node id).
		ids := map[string]string{}
		var nodes []node
		for i, s := range t.servers {
			var addr net.Addr
			var err error
			if strings.Contains(s, "/") {
				addr, err = net.ResolveUnixAddr("unix", s)
			} else {
				addr, err = net.ResolveTCPAddr("tcp", s)
			}
			vectors.Check(err)
			ids[addr.Network()+" "+addr.String()] = s
			if i > 0 && t.servers[i-1] == s {
				nodes[len(nodes)-1].Weight++
			} else {
				nodes = append(nodes, node{ID: s, Weight: 1})
			}
		}
		for i := range nodes {
			if nodes[i].Weight == 1 {
				nodes[i].Weight = 0 // the default, left out
			}
		}
		var cases []vectors.Case
		for _, k := range keys {
			c := vectors.Case{ID: k.ID, Hex: k.Hex}
			_, err := client.Get(string(k.Bytes))
			var p picked
			switch {
			case errors.Is(err, memcache.ErrMalformedKey):
				c.Error, c.Code = "invalid_key", 16
			case errors.As(err, &p):
				id, ok := ids[p.addr.Network()+" "+p.addr.String()]
				if !ok {
					panic("a server the topology does not hold: " + p.addr.String())
				}
				c.Node = id
			default:
				panic(fmt.Sprintf("key %s: unexpected answer %v", k.Hex, err))
			}
			cases = append(cases, c)
		}
		vectors.Print(vectors.Document{
			ID: "gomemcache-" + t.suffix,
			Description: fmt.Sprintf("gomemcache %s memcache.Client over a memcache.ServerList, %s: SetServers(%s), "+
				"node ids the server strings (a server listed w times in a row is one node of weight w); every key of "+
				"peers/keys.json (as a Go string) through Client.Get, which refuses malformed keys (ErrMalformedKey) "+
				"before the ServerList picks a server. Captured with %s.",
				version, t.what, vectors.Shown(t.servers, 6), runtime.Version()),
			Provenance: vectors.Provenance{Kind: "peer", Peer: "gomemcache",
				Version:    version + " (Debian golang-github-bradfitz-gomemcache-dev)",
				CapturedBy: "conformance/peers/gomemcache/capture.sh"},
			Spec:  spec{Algorithm: "gomemcache", Nodes: nodes},
			Cases: cases,
		})
	}
}
