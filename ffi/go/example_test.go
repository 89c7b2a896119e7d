package keyroute_test

import (
	"errors"
	"fmt"

	keyroute "github.com/keyroute/keyroute/ffi/go"
)

const spec = `{"algorithm": "ring", "nodes": [{"id": "cache-a"}, {"id": "cache-b"}, {"id": "cache-c"}]}`

func ExampleFromJSON() {
	r, err := keyroute.FromJSON([]byte(spec))
	if err != nil {
		panic(err)
	}
	defer r.Close()
	id, _ := r.RouteID("user:42")
	fmt.Println("user:42 lives on", id)
	// Output:
	// user:42 lives on cache-a
}

func ExampleNew() {
	r, err := keyroute.New(keyroute.Spec{
		Algorithm: "ring",
		Nodes:     []keyroute.Node{{ID: "cache-a"}, {ID: "cache-b", Weight: 2}, {ID: "cache-c"}},
	})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	i, _ := r.Route([]byte("user:42"))
	fmt.Println(i, r.NodeID(i))
	// Output:
	// 0 cache-a
}

func ExampleRouter_RouteBatch() {
	r, _ := keyroute.FromJSON([]byte(spec))
	defer r.Close()
	nodes, _ := r.RouteBatch([]string{"user:1", "user:2", "user:3", "user:4"})
	fmt.Println(nodes)
	// Output:
	// [0 1 0 1]
}

func ExampleRouter_Replicas() {
	r, _ := keyroute.FromJSON([]byte(spec))
	defer r.Close()
	replicas, _ := r.Replicas([]byte("user:42"), 2)
	for rank, i := range replicas {
		fmt.Printf("replica %d: %s\n", rank, r.NodeID(i))
	}
	// Output:
	// replica 0: cache-a
	// replica 1: cache-c
}

func ExampleRouter_Slot() {
	r, err := keyroute.New(keyroute.Spec{Algorithm: "redis-cluster", Nodes: []keyroute.Node{
		{ID: "node-0", Slots: [][2]uint32{{0, 8191}}},
		{ID: "node-1", Slots: [][2]uint32{{8192, 16383}}},
	}})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	slot, ok, _ := r.Slot([]byte("{user:42}:cart"))
	id, _ := r.RouteID("{user:42}:profile")
	fmt.Println(slot, ok, id)
	// Output:
	// 15880 true node-1
}

func ExampleNewTransition() {
	from, _ := keyroute.FromJSON([]byte(spec))
	defer from.Close()
	to, _ := keyroute.FromJSON([]byte(`{"algorithm": "ring", "nodes": [{"id": "cache-a"}, {"id": "cache-b"}, {"id": "cache-c"}, {"id": "cache-d"}]}`))
	defer to.Close()
	// Halfway: about half of the keys that move (a quarter of all) have cut over to cache-d.
	t, _ := keyroute.NewTransition(from, to, 0.5)
	defer t.Close()
	cutOver := 0
	for i := 0; i < 1000; i++ {
		p, _ := t.RouteWithFallback([]byte(fmt.Sprintf("user:%d", i)))
		if p.HasPrevious {
			cutOver++ // read t.NodeID(p.Previous) on a miss at t.NodeID(p.Owner)
		}
	}
	fmt.Println(t.NodeIDs(), "cut over:", cutOver)
	// Output:
	// [cache-a cache-b cache-c cache-d] cut over: 137
}

func ExampleLiveView() {
	lv, _ := keyroute.NewLiveView(nil)
	defer lv.Close()
	version, _ := lv.Publish([]byte(`{"version": 1, "spec": ` + spec + `}`))
	id, from, _ := lv.RouteString("user:42")
	fmt.Println(version, id, from)

	// A snapshot keeps its view while a newer one is published.
	old, _ := lv.Load()
	defer old.Close()
	_, _ = lv.Publish([]byte(`{"version": 2, "spec": {"algorithm": "ring", "nodes": [{"id": "cache-a"}, {"id": "cache-d"}]}}`))
	_, err := lv.Publish([]byte(`{"version": 2, "spec": ` + spec + `}`))
	fmt.Println(errors.Is(err, keyroute.ErrStaleVersion))
	id, from, _ = lv.RouteString("user:2")
	fmt.Println(old.Version(), old.NodeIDs(), "now:", id, from)
	// Output:
	// 1 cache-a 1
	// true
	// 1 [cache-a cache-b cache-c] now: cache-d 2
}

func ExampleError() {
	_, err := keyroute.FromJSON([]byte(`{"algorithm": "ring", "nodes": []}`))
	fmt.Println(errors.Is(err, keyroute.ErrEmptyTopology), errors.Is(err, keyroute.ErrInvalidSpec))
	var kerr *keyroute.Error
	if errors.As(err, &kerr) {
		fmt.Println(kerr.Code.Name(), uint32(kerr.Code), kerr.Code.Category())
	}
	// Output:
	// true false
	// empty_topology 4 value
}

func ExampleNewServerSelector() {
	r, _ := keyroute.FromJSON([]byte(`{"algorithm": "ring", "nodes": [{"id": "10.0.0.1:11211"}, {"id": "10.0.0.2:11211"}, {"id": "10.0.0.3:11211"}]}`))
	defer r.Close()
	selector, _ := keyroute.NewServerSelector(r)
	// client := memcache.NewFromSelector(selector)
	addr, _ := selector.PickServer("user:42")
	fmt.Println(addr)
	// Output:
	// 10.0.0.1:11211
}

func ExampleNewConsistentHash() {
	// RingOptions.NewConsistentHash: func(shards []string) redis.ConsistentHash {
	//         return keyroute.NewConsistentHash("ring", shards)
	// },
	h := keyroute.NewConsistentHash("ring", []string{"shard1", "shard2", "shard3"})
	fmt.Println(h.Get("user:42"), h.Err())
	// Output:
	// shard3 <nil>
}
