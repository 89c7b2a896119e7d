package keyroute

// ConsistentHash routes go-redis Ring keys to shards with keyroute: it has the method of
// go-redis's ConsistentHash interface (Get(key string) string), without importing go-redis.
// go-redis calls RingOptions.NewConsistentHash again with the live shards on every
// health-check rebalance, so the Ring's keys follow keyroute's router as shards come and go.
// Give it to a Ring as
//
//	ring := redis.NewRing(&redis.RingOptions{
//		Addrs: map[string]string{"shard1": "10.0.0.1:6379", "shard2": "10.0.0.2:6379"},
//		NewConsistentHash: func(shards []string) redis.ConsistentHash {
//			return keyroute.NewConsistentHash("ring", shards)
//		},
//	})
//
// A ConsistentHash whose router could not be built (no shards, or an algorithm name that is
// not one) gives "" for every key, which go-redis reports as all shards down; Err says why.
// Superseded ones are released by their finalizer.
type ConsistentHash struct {
	router *Router
	err    error
}

// NewConsistentHash builds a ConsistentHash over the shard names with an algorithm or preset
// that needs no node fields beyond the id ("ring", "jump", "rendezvous", "maglev", …) and its
// default parameters.
func NewConsistentHash(algorithm string, shards []string) *ConsistentHash {
	nodes := make([]Node, len(shards))
	for i, s := range shards {
		nodes[i] = Node{ID: s}
	}
	r, err := New(Spec{Algorithm: algorithm, Nodes: nodes})
	return &ConsistentHash{router: r, err: err}
}

// ConsistentHashFromRouter uses r (its node ids are the shard names); keep r open while the
// ConsistentHash is in use.
func ConsistentHashFromRouter(r *Router) *ConsistentHash {
	return &ConsistentHash{router: r}
}

// Get gives the name of the shard key belongs to, or "" when there is none.
func (h *ConsistentHash) Get(key string) string {
	if h.router == nil {
		return ""
	}
	i, err := h.router.RouteString(key)
	if err != nil {
		return ""
	}
	return h.router.ids[i]
}

// Err is why the router could not be built, or nil.
func (h *ConsistentHash) Err() error { return h.err }
