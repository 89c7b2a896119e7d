// Package vectors is what the Go peer captures share: peers/keys.json, and vector documents
// printed one per line for peers/write_docs.py, their fields in the corpus's order.
package vectors

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Key is one key of peers/keys.json with its case id.
type Key struct {
	ID    string
	Hex   string
	Bytes []byte
}

// Document is a vector file.
type Document struct {
	ID          string      `json:"id"`
	Description string      `json:"description"`
	Provenance  Provenance  `json:"provenance"`
	Spec        interface{} `json:"spec"`
	Cases       []Case      `json:"cases"`
}

// Provenance says which peer wrote a file.
type Provenance struct {
	Kind       string `json:"kind"`
	Peer       string `json:"peer"`
	Version    string `json:"version"`
	CapturedBy string `json:"captured_by"`
}

// Case is one key and the node the peer gave it, or the error it refused it with.
type Case struct {
	ID    string `json:"id"`
	Hex   string `json:"hex"`
	Node  string `json:"node,omitempty"`
	Error string `json:"error,omitempty"`
	Code  int    `json:"code,omitempty"`
}

// ReadKeys reads peers/keys.json; each case id is "<tags>-<index>", as every capture gives it.
func ReadKeys(path string) []Key {
	var file struct {
		Keys []struct {
			Hex  string `json:"hex"`
			Tags string `json:"tags"`
		} `json:"keys"`
	}
	raw, err := os.ReadFile(path)
	Check(err)
	Check(json.Unmarshal(raw, &file))
	keys := make([]Key, len(file.Keys))
	for i, k := range file.Keys {
		b, err := hex.DecodeString(k.Hex)
		Check(err)
		keys[i] = Key{ID: fmt.Sprintf("%s-%03d", k.Tags, i), Hex: k.Hex, Bytes: b}
	}
	return keys
}

// Print writes one document as a line of JSON.
func Print(doc Document) {
	out, err := json.Marshal(doc)
	Check(err)
	fmt.Println(string(out))
}

// Shown is the first `most` strings, quoted and joined, with " …" when there are more.
func Shown(s []string, most int) string {
	more := ""
	if len(s) > most {
		s, more = s[:most], " …"
	}
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ") + more
}

// Check stops the capture on an error.
func Check(err error) {
	if err != nil {
		panic(err)
	}
}
