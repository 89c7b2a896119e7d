// Captures groupcache's ring: for each topology, a real consistenthash.Map
// (consistenthash.New(replicas, nil), the CRC-32 ring groupcache.HTTPPool builds) with the
// peers added in order, and every key of peers/keys.json through Map.Get. Prints one vector
// document per line for peers/write_docs.py.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/golang/groupcache/consistenthash"
)

type keyEntry struct {
	Hex  string `json:"hex"`
	Tags string `json:"tags"`
}

// A vector file, its fields in the corpus's order.
type document struct {
	ID          string     `json:"id"`
	Description string     `json:"description"`
	Provenance  provenance `json:"provenance"`
	Spec        spec       `json:"spec"`
	Cases       []vcase    `json:"cases"`
}

type provenance struct {
	Kind       string `json:"kind"`
	Peer       string `json:"peer"`
	Version    string `json:"version"`
	CapturedBy string `json:"captured_by"`
}

type spec struct {
	Algorithm string         `json:"algorithm"`
	Params    map[string]int `json:"params,omitempty"`
	Nodes     []node         `json:"nodes"`
}

type node struct {
	ID string `json:"id"`
}

type vcase struct {
	ID   string `json:"id"`
	Hex  string `json:"hex"`
	Node string `json:"node"`
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
	var keys struct {
		Keys []keyEntry `json:"keys"`
	}
	raw, err := os.ReadFile(os.Args[1])
	check(err)
	check(json.Unmarshal(raw, &keys))
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
		var cases []vcase
		for i, k := range keys.Keys {
			key, err := hex.DecodeString(k.Hex)
			check(err)
			cases = append(cases, vcase{ID: fmt.Sprintf("%s-%03d", k.Tags, i), Hex: k.Hex, Node: m.Get(string(key))})
		}
		nodes := make([]node, len(t.peers))
		for i, p := range t.peers {
			nodes[i] = node{p}
		}
		var params map[string]int
		if t.replicas != 50 {
			params = map[string]int{"replicas": t.replicas}
		}
		shown, more := t.peers, ""
		if len(shown) > 5 {
			shown, more = shown[:5], " …"
		}
		doc := document{
			ID: "groupcache-" + t.suffix,
			Description: fmt.Sprintf("groupcache %s consistenthash.New(%d, nil) (CRC-32), %s: Add(%s%s), node ids the "+
				"peer names; every key of peers/keys.json (as a Go string) through Map.Get. Captured with %s.",
				version, t.replicas, t.what, quoted(shown), more, runtime.Version()),
			Provenance: provenance{Kind: "peer", Peer: "groupcache",
				Version:    version + " (Debian golang-github-golang-groupcache-dev)",
				CapturedBy: "conformance/peers/groupcache/capture.sh"},
			Spec:  spec{Algorithm: "groupcache", Params: params, Nodes: nodes},
			Cases: cases,
		}
		out, err := json.Marshal(doc)
		check(err)
		fmt.Println(string(out))
	}
}

func quoted(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
