package keyroute_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	keyroute "github.com/keyroute/keyroute/ffi/go"
)

func mustRouter(t *testing.T, spec string) *keyroute.Router {
	t.Helper()
	r, err := keyroute.FromJSON([]byte(spec))
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func ringSpec(ids ...string) string {
	nodes := make([]string, len(ids))
	for i, id := range ids {
		nodes[i] = strconv.Quote(id)
		nodes[i] = `{"id":` + nodes[i] + `}`
	}
	return `{"algorithm":"ring","nodes":[` + strings.Join(nodes, ",") + `]}`
}

func TestVersion(t *testing.T) {
	if !keyroute.Compatible() {
		t.Fatalf("library %s does not serve header %s", keyroute.Version(), keyroute.HeaderVersion)
	}
	if want := os.Getenv("KEYROUTE_EXPECT_VERSION"); want != "" && keyroute.Version() != want {
		t.Fatalf("library %s, expected %s", keyroute.Version(), want)
	}
}

// The generated table agrees with the library's own names, code for code.
func TestCodesMatchTheLibrary(t *testing.T) {
	codes := keyroute.Codes()
	if len(codes) < 30 {
		t.Fatalf("only %d codes", len(codes))
	}
	for _, c := range codes {
		if got := keyroute.StatusName(uint32(c)); got != c.Name() || got == "" {
			t.Errorf("code %d: the library says %q, the table %q", c, got, c.Name())
		}
		if c.Category() == "" || c.Description() == "" {
			t.Errorf("code %v has no category or description", c)
		}
		err := error(&keyroute.Error{Code: c, Message: "m"})
		if !errors.Is(fmt.Errorf("wrapped: %w", err), &keyroute.Error{Code: c}) {
			t.Errorf("errors.Is misses %v through a wrap", c)
		}
	}
	if keyroute.StatusName(1000) != "" || keyroute.Code(1000).Name() != "" {
		t.Error("1000 is no code")
	}
	if keyroute.StatusName(0) != "ok" {
		t.Error("0 is ok")
	}
	if keyroute.CodeInvalidSpec.String() != "invalid_spec (2)" {
		t.Error(keyroute.CodeInvalidSpec.String())
	}
}

// Each kind the API can produce from Go, raised through it and matched by errors.Is.
func TestErrorKinds(t *testing.T) {
	ring := mustRouter(t, ringSpec("a", "b", "c"))
	jump := mustRouter(t, `{"algorithm":"jump","params":{"key_hash":"u64be"},"nodes":[{"id":"a"},{"id":"b"}]}`)
	slots := mustRouter(t, `{"algorithm":"slots","nodes":[{"id":"a"},{"id":"b"}]}`)
	build := func(spec string) error { _, err := keyroute.FromJSON([]byte(spec)); return err }
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"invalid json", build(`{`), keyroute.ErrInvalidJSON},
		{"invalid spec", build(`{"algorithm":"ring"}`), keyroute.ErrInvalidSpec},
		{"unknown algorithm", build(`{"algorithm":"nope","nodes":[{"id":"a"}]}`), keyroute.ErrUnknownAlgorithm},
		{"empty topology", build(`{"algorithm":"ring","nodes":[]}`), keyroute.ErrEmptyTopology},
		{"duplicate id", build(ringSpec("a", "a")), keyroute.ErrDuplicateNodeID},
		{"zero total weight", build(`{"algorithm":"ring","nodes":[{"id":"a","weight":0}]}`), keyroute.ErrZeroTotalWeight},
		{"invalid node id", build(ringSpec("")), keyroute.ErrInvalidNodeID},
		{"invalid utf8 spec", build("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"\xff\"}]}"), keyroute.ErrInvalidUTF8},
		{"table size", build(`{"algorithm":"maglev","params":{"table_size":100},"nodes":[{"id":"a"}]}`), keyroute.ErrTableSizeNotPrime},
		{"too many nodes", func() error {
			_, err := keyroute.FromJSONWithLimits([]byte(ringSpec("a", "b", "c")), []byte(`{"max_nodes":2}`))
			return err
		}(), keyroute.ErrTooManyNodes},
		{"spec too large", func() error {
			_, err := keyroute.FromJSONWithLimits([]byte(ringSpec("a", "b", "c")), []byte(`{"max_spec_bytes":10}`))
			return err
		}(), keyroute.ErrSpecTooLarge},
		{"invalid key", func() error { _, err := jump.Route([]byte("short")); return err }(), keyroute.ErrInvalidKey},
		{"replicas unsupported", func() error { _, err := jump.Replicas(make([]byte, 8), 1); return err }(), keyroute.ErrReplicasUnsupported},
		{"replicas exceed nodes", func() error { _, err := ring.Replicas([]byte("k"), 4); return err }(), keyroute.ErrReplicasExceedNodes},
		{"negative replicas", func() error { _, err := ring.Replicas([]byte("k"), -1); return err }(), keyroute.ErrInvalidParameter},
		{"lone surrogate", func() error { _, err := ring.RouteUTF16([]uint16{0xd800}); return err }(), keyroute.ErrInvalidUTF8},
		{"route hash", func() error { _, err := slots.RouteHash(1); return err }(), keyroute.ErrRouteHashUnsupported},
		{"buffer", ring.RouteBatchInto(make([]uint32, 1), []string{"a", "b"}), keyroute.ErrBufferTooSmall},
		{"spread r=0", func() error { _, err := ring.Spread([]byte("k"), 0, 1); return err }(), keyroute.ErrInvalidParameter},
		{"progress", func() error { _, err := keyroute.NewTransition(ring, ring, 1.5); return err }(), keyroute.ErrInvalidParameter},
	}
	for _, c := range cases {
		var kerr *keyroute.Error
		if !errors.Is(c.err, c.want) || !errors.As(c.err, &kerr) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
			continue
		}
		if kerr.Message == "" && c.name != "buffer" {
			t.Errorf("%s: no message", c.name)
		}
		other := keyroute.ErrInternal
		if errors.Is(c.err, other) {
			t.Errorf("%s: %v also matches %v", c.name, c.err, other)
		}
	}
}

func TestRouteAgreesEverywhere(t *testing.T) {
	r := mustRouter(t, `{"algorithm":"ring","nodes":[{"id":"a","zone":"z1"},{"id":"b","zone":"z2","weight":2},{"id":"c","zone":"z1"},{"id":"d"}]}`)
	rng := rand.New(rand.NewSource(1))
	keys := make([]string, 5000)
	byteKeys := make([][]byte, len(keys))
	for i := range keys {
		b := make([]byte, rng.Intn(40))
		rng.Read(b)
		if i%7 == 0 {
			b = nil // empty keys inside a batch
		}
		keys[i], byteKeys[i] = string(b), b
	}
	batch, err := r.RouteBatch(keys)
	if err != nil {
		t.Fatal(err)
	}
	batchBytes, err := r.RouteBatchBytes(byteKeys)
	if err != nil {
		t.Fatal(err)
	}
	into := make([]uint32, len(keys)+3)
	if err := r.RouteBatchInto(into, keys); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		one, err := r.Route(byteKeys[i])
		if err != nil {
			t.Fatal(err)
		}
		s, _ := r.RouteString(k)
		id, _ := r.RouteID(k)
		if one != batch[i] || one != batchBytes[i] || one != int(into[i]) || one != s || id != r.NodeID(one) {
			t.Fatalf("key %d: route %d, batch %d, bytes batch %d, into %d, string %d, id %s", i, one, batch[i], batchBytes[i], into[i], s, id)
		}
		h, err := r.KeyHash(byteKeys[i])
		if err != nil {
			t.Fatal(err)
		}
		if byHash, _ := r.RouteHash(h); byHash != one {
			t.Fatalf("key %d: by hash %d, route %d", i, byHash, one)
		}
		reps, err := r.Replicas(byteKeys[i], 3)
		if err != nil || reps[0] != one || reps[1] == reps[0] || reps[2] == reps[1] || reps[2] == reps[0] {
			t.Fatalf("key %d: replicas %v (%v), owner %d", i, reps, err, one)
		}
		if sp, err := r.Spread(byteKeys[i], 2, 1); err != nil || (sp != reps[0] && sp != reps[1]) {
			t.Fatalf("spread %d (%v), replicas %v", sp, err, reps)
		}
	}
	if empty, err := r.RouteBatch(nil); err != nil || len(empty) != 0 {
		t.Fatal(empty, err)
	}
	if _, ok, err := r.Slot([]byte("k")); ok || err != nil {
		t.Fatal("a ring has no slots")
	}
	// UTF-16 routes as the text's UTF-8.
	if u, _ := r.RouteUTF16([]uint16{0xd83d, 0xde00}); u != func() int { i, _ := r.RouteString("\U0001F600"); return i }() {
		t.Fatal("RouteUTF16 differs from the UTF-8 key")
	}
}

func TestNewMatchesFromJSON(t *testing.T) {
	a, err := keyroute.New(keyroute.Spec{Algorithm: "ring", Version: 7, Params: map[string]any{"points_per_weight": 40},
		Nodes: []keyroute.Node{{ID: "a", Zone: "z"}, {ID: "b", Weight: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := mustRouter(t, `{"algorithm":"ring","version":7,"params":{"points_per_weight":40},"nodes":[{"id":"a","zone":"z"},{"id":"b","weight":3}]}`)
	fa, _ := a.Fingerprint()
	fb, _ := b.Fingerprint()
	ca, _ := a.CanonicalJSON()
	if fa != fb || fa == 0 || !strings.Contains(ca, `"points_per_weight":40`) {
		t.Fatalf("fingerprints %x %x, canonical %s", fa, fb, ca)
	}
	if v, _ := a.SpecVersion(); v != 7 {
		t.Fatal("version", v)
	}
	caps, err := a.Capabilities()
	if err != nil || !caps.Replicas || !caps.RouteHash || caps.Weights != "honoured" || caps.PointsPerWeight != 40 || caps.Slots != 0 {
		t.Fatalf("%+v %v", caps, err)
	}
	if _, err := keyroute.New(keyroute.Spec{Algorithm: "ring"}); !errors.Is(err, keyroute.ErrEmptyTopology) {
		t.Fatal(err)
	}
	if a.NodeCount() != 2 || a.NodeID(1) != "b" || len(a.NodeIDs()) != 2 {
		t.Fatal(a.NodeIDs())
	}
}

func TestTransition(t *testing.T) {
	from := mustRouter(t, ringSpec("a", "b", "c"))
	to := mustRouter(t, ringSpec("a", "b", "c", "d"))
	tr, err := keyroute.NewTransition(from, to, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if got := strings.Join(tr.NodeIDs(), ","); got != "a,b,c,d" || tr.NodeCount() != 4 {
		t.Fatal(got)
	}
	cut := map[string]bool{}
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		if err := tr.SetProgress(p); err != nil {
			t.Fatal(err)
		}
		if got, _ := tr.Progress(); got != p {
			t.Fatal(got, p)
		}
		for i := 0; i < 2000; i++ {
			key := []byte("k" + strconv.Itoa(i))
			owner, err := tr.Route(key)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := from.Route(key)
			b, _ := to.Route(key)
			pl, _ := tr.RouteWithFallback(key)
			done, _ := tr.HasCutOver(key)
			switch {
			case pl.Owner != owner:
				t.Fatal("RouteWithFallback disagrees with Route")
			case p == 0 && tr.NodeID(owner) != from.NodeID(a), p == 1 && tr.NodeID(owner) != to.NodeID(b):
				t.Fatalf("progress %v: key %s on %s", p, key, tr.NodeID(owner))
			case pl.HasPrevious && (tr.NodeID(pl.Previous) != from.NodeID(a) || !done):
				t.Fatal("a moved key's fallback is not its owner in A")
			case cut[string(key)] && !done:
				t.Fatal("a key went back")
			}
			cut[string(key)] = done
		}
	}
	if err := tr.SetProgress(math.NaN()); !errors.Is(err, keyroute.ErrInvalidParameter) {
		t.Fatal(err)
	}
	if p, _ := tr.Progress(); p != 1 {
		t.Fatal("a refused progress changed it", p)
	}
	tr.Close()
	if _, err := tr.Route([]byte("k")); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
}

func TestClose(t *testing.T) {
	r, err := keyroute.FromJSON([]byte(ringSpec("a", "b")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Close() != nil || r.Close() != nil {
		t.Fatal("Close is idempotent")
	}
	if _, err := r.Route([]byte("k")); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if _, err := r.RouteBatch([]string{"k"}); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if _, err := keyroute.NewTransition(r, r, 0); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if r.String() != "keyroute.Router(closed)" {
		t.Fatal(r.String())
	}
	var nilRouter *keyroute.Router
	if nilRouter.Close() != nil {
		t.Fatal("a nil router closes")
	}
}

// raceClose runs call 2,000 times on each of 4 goroutines while closeFn closes its handle: every
// call must either succeed or return ErrClosed (a Close never frees memory a call is using).
func raceClose(t *testing.T, call func() error, closeFn func()) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				err := call()
				if err == keyroute.ErrClosed {
					return
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	closeFn()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// A Close that races with routing goroutines never frees memory in use: each call either
// routes or returns ErrClosed.
func TestCloseRacesWithCalls(t *testing.T) {
	for round := 0; round < 20; round++ {
		r, err := keyroute.FromJSON([]byte(ringSpec("a", "b", "c")))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := r.Route([]byte("key"))
		raceClose(t, func() error {
			got, err := r.Route([]byte("key"))
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("route %d, want %d", got, want)
			}
			_, err = r.RouteBatch([]string{"key", "other"})
			return err
		}, func() { r.Close() })
	}
}

func vmRSS(t *testing.T) int {
	text, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status on this system") // Linux reads it; the leak check is Linux-only
	}
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.Atoi(strings.Fields(line)[1])
			return kb
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// Routers that are closed, and routers left to the finalizer, release their C memory: after a
// warm-up of 2,000 of each, VmRSS stays flat over 2,000 more of each (leaked, they would hold
// about 40 MB). The churn stays on one OS thread, so that the C allocator's arenas are warm.
func TestNoLeaks(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	spec := []byte(ringSpec("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"))
	churn := func(n int) {
		for i := 0; i < 2*n; i++ {
			r, err := keyroute.FromJSON(spec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Route([]byte("k")); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				r.Close()
			}
			if i%500 == 0 {
				runtime_GC()
			}
		}
		runtime_GC()
	}
	churn(2000)
	before := vmRSS(t)
	churn(2000)
	after := vmRSS(t)
	t.Logf("VmRSS %d kB after a warm-up of 4,000 routers, %d kB after 4,000 more", before, after)
	if after-before > 12*1024 {
		t.Fatalf("VmRSS grew by %d kB over 4,000 routers", after-before)
	}
}

type redisConsistentHash interface{ Get(string) string }

// go-redis's RingOptions.NewConsistentHash, as a Ring calls it: again with the live shards on
// every rebalance.
type ringOptions struct {
	NewConsistentHash func(shards []string) redisConsistentHash
}

func TestConsistentHash(t *testing.T) {
	opt := ringOptions{NewConsistentHash: func(shards []string) redisConsistentHash {
		return keyroute.NewConsistentHash("ring", shards)
	}}
	all := []string{"shard1", "shard2", "shard3", "shard4"}
	full := opt.NewConsistentHash(all)
	r := mustRouter(t, ringSpec(all...))
	down := opt.NewConsistentHash([]string{"shard1", "shard2", "shard4"}) // shard3 failed its health check
	moved := 0
	for i := 0; i < 10000; i++ {
		key := "key:" + strconv.Itoa(i)
		want, _ := r.RouteID(key)
		got := full.Get(key)
		if got != want {
			t.Fatalf("%s: Get %s, router %s", key, got, want)
		}
		if after := down.Get(key); after != got {
			if got != "shard3" {
				t.Fatalf("%s moved from %s to %s, though only shard3 left", key, got, after)
			}
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("no key of shard3 moved")
	}
	none := keyroute.NewConsistentHash("ring", nil)
	if none.Get("k") != "" || !errors.Is(none.Err(), keyroute.ErrEmptyTopology) {
		t.Fatal(none.Err())
	}
	if h := keyroute.NewConsistentHash("nope", all); h.Get("k") != "" || !errors.Is(h.Err(), keyroute.ErrUnknownAlgorithm) {
		t.Fatal(h.Err())
	}
	if h := keyroute.ConsistentHashFromRouter(r); h.Get("key:1") != full.Get("key:1") || h.Err() != nil {
		t.Fatal("ConsistentHashFromRouter")
	}
}

type memcacheServerSelector interface {
	PickServer(key string) (net.Addr, error)
	Each(func(net.Addr) error) error
}

func TestServerSelector(t *testing.T) {
	// A preset that reads host and port: the address is host:port, whatever the id.
	spy := mustRouter(t, `{"algorithm":"spymemcached","nodes":[{"id":"one","host":"127.0.0.1","port":11211},{"id":"two","host":"127.0.0.2","port":11212}]}`)
	s, err := keyroute.NewServerSelector(spy)
	if err != nil {
		t.Fatal(err)
	}
	var sel memcacheServerSelector = s
	var seen []string
	_ = sel.Each(func(a net.Addr) error { seen = append(seen, a.String()); return nil })
	if strings.Join(seen, " ") != "127.0.0.1:11211 127.0.0.2:11212" {
		t.Fatal(seen)
	}
	stop := errors.New("stop")
	if sel.Each(func(net.Addr) error { return stop }) != stop {
		t.Fatal("Each returns f's error")
	}
	for i := 0; i < 1000; i++ {
		key := "k" + strconv.Itoa(i)
		a, err := sel.PickServer(key)
		n, _ := spy.RouteString(key)
		if err != nil || a.String() != seen[n] {
			t.Fatalf("%s: %v %v, route %d", key, a, err, n)
		}
	}
	// Ids as addresses; a Unix socket; SetRouter swaps.
	ids := mustRouter(t, ringSpec("127.0.0.1:1", "/tmp/memcached.sock"))
	if err := s.SetRouter(ids); err != nil {
		t.Fatal(err)
	}
	if addrs := s.Addrs(); addrs[0].Network() != "tcp" || addrs[1].Network() != "unix" || s.Router() != ids {
		t.Fatal(addrs)
	}
	bad := mustRouter(t, ringSpec("cache-a"))
	if _, err := keyroute.NewServerSelector(bad); !errors.Is(err, keyroute.ErrInvalidParameter) {
		t.Fatal(err)
	}
	// Keys gomemcache allows route as their bytes.
	var buf bytes.Buffer
	buf.WriteString("user:42")
	if a, _ := s.PickServer(buf.String()); a == nil {
		t.Fatal("no address")
	}
}
