// Captures groupcache's ring: for each topology, a real consistenthash.Map
// (consistenthash.New(replicas, nil), the CRC-32 ring groupcache.HTTPPool builds) with the
// peers added in order, and every key of peers/keys.json through Map.Get. Prints one vector
// document per line for peers/write_docs.py.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/golang/groupcache/consistenthash"
	"github.com/keyroute/keyroute/conformance/peers/go/vectors"
)

type spec struct {
	Algorithm string         `json:"algorithm"`
	Params    map[string]int `json:"params,omitempty"`
	Nodes     []node         `json:"nodes"`
}

type node struct {
	ID string `json:"id"`
}

type topology struct {
	suffix, what string
	replicas     int
	peers        []string
}

// Two peer names of the same length whose CRC-32s collide after the same prefix, so every
// point of one equals a point of the other ("0"+a and "0"+b collide, and a CRC's difference
// over equal lengths does not depend on the shared prefix): the peer added last owns them all.
const tieA, tieB = "peer-09685295", "peer-12060020"

func main() {
	keys := vectors.ReadKeys(os.Args[1])
	version := os.Args[2]

	urls := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("http://10.0.%d.%d:8000", i/10, i%10+1)
		}
		return out
	}
	topologies := []topology{
		{"1", "1 peer, 50 replicas (HTTPPool's default)", 50, urls(1)},
		{"3", "3 peers, 50 replicas", 50, urls(3)},
		{"4", "the 3-peer topology and a fourth peer last, 50 replicas", 50, urls(4)},
		{"60", "60 peers, 50 replicas", 50, urls(60)},
		{"replicas-3", "3 peers, 3 replicas", 3, urls(3)},
		{"replicas-160", "5 peers, 160 replicas", 160, urls(5)},
		{"ties", "peers " + tieA + " and " + tieB + ", whose points all collide, and a third; 10 replicas: " +
			"the peer added last owns every shared point", 10, []string{tieA, tieB, "peer-c"}},
	}
	for _, t := range topologies {
		m := consistenthash.New(t.replicas, nil)
		m.Add(t.peers...)
		var cases []vectors.Case
		for _, k := range keys {
			cases = append(cases, vectors.Case{ID: k.ID, Hex: k.Hex, Node: m.Get(string(k.Bytes))})
		}
		nodes := make([]node, len(t.peers))
		for i, p := range t.peers {
			nodes[i] = node{p}
		}
		var params map[string]int
		if t.replicas != 50 {
			params = map[string]int{"replicas": t.replicas}
		}
		vectors.Print(vectors.Document{
			ID: "groupcache-" + t.suffix,
			Description: fmt.Sprintf("groupcache %s consistenthash.New(%d, nil) (CRC-32), %s: Add(%s), node ids the "+
				"peer names; every key of peers/keys.json (as a Go string) through Map.Get. Captured with %s.",
				version, t.replicas, t.what, vectors.Shown(t.peers, 5), runtime.Version()),
			Provenance: vectors.Provenance{Kind: "peer", Peer: "groupcache",
				Version:    version + " (Debian golang-github-golang-groupcache-dev)",
				CapturedBy: "conformance/peers/groupcache/capture.sh"},
			Spec:  spec{Algorithm: "groupcache", Params: params, Nodes: nodes},
			Cases: cases,
		})
	}
}
