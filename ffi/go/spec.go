package keyroute

import "encoding/json"

// Spec is a topology spec as Go values (conformance/VECTORS.md): what New builds a router from.
// It marshals to the spec's JSON.
type Spec struct {
	// Algorithm is a native algorithm ("ring", "jump", "rendezvous", "maglev", "slots",
	// "multi-probe", "modulo") or a peer preset ("libmemcached", "spymemcached", "guava", …).
	Algorithm string `json:"algorithm"`
	// Params are the algorithm's parameters ({"points_per_weight": 40}); nil for the defaults.
	Params map[string]any `json:"params,omitempty"`
	// Version is the view's version (0: none).
	Version uint64 `json:"version,omitempty"`
	// Nodes are the nodes; routes are indices into this list.
	Nodes []Node `json:"nodes"`
}

// Node is one node of a Spec.
type Node struct {
	// ID is the node's unique id: what routes report.
	ID string `json:"id"`
	// Weight is the node's integer weight; 0 means the default, 1 (a node of weight 0 is
	// written with FromJSON).
	Weight uint32 `json:"weight,omitempty"`
	// Zone, when set, makes replica lists spread over distinct zones first.
	Zone string `json:"zone,omitempty"`
	// Host and Port are read by the presets that build point names from them (libmemcached,
	// spymemcached, twemproxy).
	Host string `json:"host,omitempty"`
	// Port is the node's port (see Host).
	Port uint16 `json:"port,omitempty"`
	// Name is the peer's own name for the node where a preset uses one.
	Name string `json:"name,omitempty"`
	// Slots are inclusive slot ranges [first, last] of an explicit slot table.
	Slots [][2]uint32 `json:"slots,omitempty"`
}

// New builds a router from a Spec, exactly as FromJSON from the equivalent JSON.
func New(spec Spec) (*Router, error) {
	if spec.Nodes == nil {
		spec.Nodes = []Node{}
	}
	text, err := json.Marshal(spec)
	if err != nil {
		return nil, &Error{Code: CodeInvalidSpec, Message: err.Error()}
	}
	return FromJSON(text)
}
