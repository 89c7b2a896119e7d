package keyroute_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	keyroute "github.com/keyroute/keyroute/ffi/go"
)

// Waits poll with this deadline; no timing is asserted.
const waitFor = 30 * time.Second

func viewDoc(version int, spec string) []byte {
	return []byte(`{"version":` + strconv.Itoa(version) + `,"spec":` + spec + `}`)
}

func mustLiveView(t *testing.T, limits []byte) *keyroute.LiveView {
	t.Helper()
	lv, err := keyroute.NewLiveView(limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lv.Close() })
	return lv
}

func mustLoad(t *testing.T, lv *keyroute.LiveView) *keyroute.View {
	t.Helper()
	v, err := lv.Load()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// waitUntil polls cond until it holds, failing the test after waitFor.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > waitFor {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func waitVersion(t *testing.T, lv *keyroute.LiveView, want uint64) {
	t.Helper()
	waitUntil(t, "version "+strconv.FormatUint(want, 10), func() bool {
		v, err := lv.Version()
		return err == nil && v == want
	})
}

func TestLiveViewPublishAndRefusals(t *testing.T) {
	lv := mustLiveView(t, nil)
	if _, err := lv.Version(); !errors.Is(err, keyroute.ErrNoView) {
		t.Fatalf("no view yet: %v", err)
	}
	if _, _, err := lv.RouteString("k"); !errors.Is(err, keyroute.ErrNoView) {
		t.Fatalf("no view yet: %v", err)
	}
	if _, err := lv.Load(); !errors.Is(err, keyroute.ErrNoView) {
		t.Fatalf("no view yet: %v", err)
	}
	if s, err := lv.Status(); err != nil || s.HasView || s.Refusals != 0 || s.LastRefusal != nil {
		t.Fatalf("status before a view: %+v, %v", s, err)
	}
	if v, err := lv.Publish(viewDoc(1, ringSpec("a", "b", "c"))); err != nil || v != 1 {
		t.Fatalf("publish 1: %d, %v", v, err)
	}
	// Each refused with its own kind; the view stays at 1.
	refused := []struct {
		doc  string
		kind error
	}{
		{string(viewDoc(1, ringSpec("a", "b"))), keyroute.ErrStaleVersion},
		{string(viewDoc(2, ringSpec("a", "a"))), keyroute.ErrDuplicateNodeID},
		{`{"version":3,"spec":`, keyroute.ErrInvalidJSON},
		{string(viewDoc(0, ringSpec("a"))), keyroute.ErrInvalidView},
		{`{"version":9,"fingerprint":"0123456789abcdef","spec":` + ringSpec("a") + `}`, keyroute.ErrFingerprintMismatch},
	}
	for _, r := range refused {
		if _, err := lv.Publish([]byte(r.doc)); !errors.Is(err, r.kind) {
			t.Fatalf("%s: %v, want %v", r.doc, err, r.kind)
		}
	}
	if v, err := lv.Version(); err != nil || v != 1 {
		t.Fatalf("the view stays: %d, %v", v, err)
	}
	s, err := lv.Status()
	if err != nil || !s.HasView || s.Version != 1 || s.Refusals != 5 || s.Rollout || len(s.Fingerprint) != 16 {
		t.Fatalf("status: %+v, %v", s, err)
	}
	if s.LastRefusal == nil || s.LastRefusal.Code != keyroute.CodeFingerprintMismatch || s.LastRefusal.Version != 9 ||
		!errors.Is(s.LastRefusal.Err(), keyroute.ErrFingerprintMismatch) || time.Since(s.LastRefusal.At) > time.Hour {
		t.Fatalf("last refusal: %+v", s.LastRefusal)
	}
	if time.Since(s.AppliedAt) > time.Hour || s.AppliedAt.After(time.Now()) {
		t.Fatalf("applied at %v", s.AppliedAt)
	}
	if _, err := keyroute.NewLiveView([]byte(`{"max_nodes":`)); !errors.Is(err, keyroute.ErrInvalidJSON) {
		t.Fatalf("bad limits: %v", err)
	}
	// Limits apply: two nodes at most.
	small := mustLiveView(t, []byte(`{"max_nodes":2}`))
	if _, err := small.Publish(viewDoc(1, ringSpec("a", "b", "c"))); !errors.Is(err, keyroute.ErrTooManyNodes) {
		t.Fatalf("limits: %v", err)
	}
}

// Routes through the live view and through a snapshot equal a plain Router's, by id; a
// snapshot outlives the publish of a newer view with its ids, version and fingerprint.
func TestLiveViewRoutesAndSnapshots(t *testing.T) {
	specA, specB := ringSpec("a", "b", "c"), ringSpec("a", "b", "c", "d")
	a, b := mustRouter(t, specA), mustRouter(t, specB)
	lv := mustLiveView(t, nil)
	if _, err := lv.Publish(viewDoc(1, specA)); err != nil {
		t.Fatal(err)
	}
	v1 := mustLoad(t, lv)
	fp, _ := a.Fingerprint()
	if v1.Version() != 1 || v1.Fingerprint() != fp || v1.FingerprintText() != fmt.Sprintf("%016x", fp) ||
		strings.Join(v1.NodeIDs(), ",") != "a,b,c" || v1.NodeCount() != 3 {
		t.Fatalf("snapshot: %v %v", v1, v1.NodeIDs())
	}
	if v1.String() != "keyroute.View(version 1, 3 nodes, "+v1.FingerprintText()+")" {
		t.Fatal(v1.String())
	}
	if p, rollout, err := v1.Progress(); err != nil || rollout || p != 0 {
		t.Fatalf("a plain view's progress: %v %v %v", p, rollout, err)
	}
	if time.Since(v1.AppliedAt()) > time.Hour {
		t.Fatalf("applied at %v", v1.AppliedAt())
	}
	for i := 0; i < 1000; i++ {
		key := "key:" + strconv.Itoa(i)
		want, _ := a.RouteID(key)
		id, version, err := lv.RouteString(key)
		if err != nil || id != want || version != 1 {
			t.Fatalf("%s: %s %d %v, want %s", key, id, version, err, want)
		}
		if id, _, _ := lv.Route([]byte(key)); id != want {
			t.Fatalf("%s by bytes: %s", key, id)
		}
		if got, err := v1.RouteID(key); err != nil || got != want {
			t.Fatalf("%s in the snapshot: %s %v", key, got, err)
		}
		n, err := v1.Route([]byte(key))
		if err != nil || v1.NodeID(n) != want {
			t.Fatalf("%s: %d %v", key, n, err)
		}
		e, err := v1.Ends([]byte(key))
		if err != nil || e.Rollout || e.From != want || e.To != want {
			t.Fatalf("%s: ends %+v %v", key, e, err)
		}
		p, err := v1.RouteWithFallback([]byte(key))
		if err != nil || p.HasPrevious || v1.NodeID(p.Owner) != want || p.Previous != p.Owner {
			t.Fatalf("%s: %+v %v", key, p, err)
		}
	}
	doc, err := v1.DocumentJSON()
	if err != nil || !strings.Contains(doc, v1.FingerprintText()) {
		t.Fatalf("document: %s %v", doc, err)
	}
	if _, err := lv.Publish(viewDoc(2, specB)); err != nil {
		t.Fatal(err)
	}
	// The held snapshot still answers as view 1; the live view as view 2.
	if v1.Version() != 1 || v1.NodeCount() != 3 {
		t.Fatalf("the snapshot moved: %v", v1)
	}
	for i := 0; i < 1000; i++ {
		key := "key:" + strconv.Itoa(i)
		want, _ := b.RouteID(key)
		if id, version, err := lv.RouteString(key); err != nil || id != want || version != 2 {
			t.Fatalf("%s: %s %d %v, want %s", key, id, version, err, want)
		}
		old, _ := a.RouteID(key)
		if got, _ := v1.RouteID(key); got != old {
			t.Fatalf("%s in the old snapshot: %s, want %s", key, got, old)
		}
	}
	// The document reads back, in another live view, to the same view.
	other := mustLiveView(t, nil)
	if v, err := other.Publish([]byte(doc)); err != nil || v != 1 {
		t.Fatalf("read back: %d %v", v, err)
	}
	if again := mustLoad(t, other); again.Fingerprint() != v1.Fingerprint() {
		t.Fatalf("fingerprints differ: %v %v", again, v1)
	}
}

// A rollout at 0.5 routes as a Transition at 0.5 (by id), with the same fallback, and its ends
// are the owners under A and under B.
func TestViewRollout(t *testing.T) {
	specA, specB := ringSpec("a", "b", "c"), ringSpec("a", "b", "c", "d")
	a, b := mustRouter(t, specA), mustRouter(t, specB)
	tr, err := keyroute.NewTransition(a, b, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	lv := mustLiveView(t, nil)
	if _, err := lv.Publish([]byte(`{"version":3,"spec":` + specA + `,"rollout":{"to":` + specB + `,"progress":0.5}}`)); err != nil {
		t.Fatal(err)
	}
	v := mustLoad(t, lv)
	if p, rollout, err := v.Progress(); err != nil || !rollout || p != 0.5 {
		t.Fatalf("progress %v %v %v", p, rollout, err)
	}
	if s, _ := lv.Status(); !s.Rollout || s.Progress != 0.5 {
		t.Fatalf("status %+v", s)
	}
	moved := 0
	for i := 0; i < 1000; i++ {
		key := []byte("key:" + strconv.Itoa(i))
		pv, err := v.RouteWithFallback(key)
		if err != nil {
			t.Fatal(err)
		}
		pt, _ := tr.RouteWithFallback(key)
		if v.NodeID(pv.Owner) != tr.NodeID(pt.Owner) || pv.HasPrevious != pt.HasPrevious {
			t.Fatalf("%s: %+v against %+v", key, pv, pt)
		}
		if pv.HasPrevious {
			moved++
			if v.NodeID(pv.Previous) != tr.NodeID(pt.Previous) {
				t.Fatalf("%s: previous %+v against %+v", key, pv, pt)
			}
		}
		e, err := v.Ends(key)
		inA, _ := a.RouteID(string(key))
		inB, _ := b.RouteID(string(key))
		if err != nil || !e.Rollout || e.From != inA || e.To != inB {
			t.Fatalf("%s: ends %+v (%s, %s) %v", key, e, inA, inB, err)
		}
	}
	if moved == 0 || moved > 250 {
		t.Fatalf("%d of 1000 keys cut over", moved)
	}
}

// Snapshots and routes stay whole while another goroutine publishes (run under -race too):
// each view's ids carry its round, so an index read against another view's ids shows.
func TestLiveViewSnapshotsWhilePublishing(t *testing.T) {
	spec := func(n int) string {
		ids := make([]string, 3+n%4)
		for i := range ids {
			ids[i] = fmt.Sprintf("v%d-%d", n%4, i)
		}
		return ringSpec(ids...)
	}
	lv := mustLiveView(t, nil)
	if _, err := lv.Publish(viewDoc(1, spec(1))); err != nil {
		t.Fatal(err)
	}
	var done sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for g := 0; g < 3; g++ {
		done.Add(1)
		go func() {
			defer done.Done()
			var last uint64
			for rounds := 0; ; rounds++ {
				select {
				case <-stop:
					if rounds > 50 {
						return
					}
				default:
				}
				v, err := lv.Load()
				if err != nil {
					errs <- err
					return
				}
				prefix := fmt.Sprintf("v%d-", v.Version()%4)
				for k := 0; k < 20; k++ {
					id, err := v.RouteID(strconv.Itoa(k))
					if err != nil || !strings.HasPrefix(id, prefix) {
						errs <- fmt.Errorf("snapshot %v routed %d to %s (%v)", v, k, id, err)
						return
					}
				}
				v.Close()
				id, version, err := lv.RouteString("k")
				if err != nil || version < last || !strings.HasPrefix(id, fmt.Sprintf("v%d-", version%4)) {
					errs <- fmt.Errorf("route: %s from version %d after %d (%v)", id, version, last, err)
					return
				}
				last = version
			}
		}()
	}
	for n := 2; n < 200; n++ {
		if _, err := lv.Publish(viewDoc(n, spec(n))); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	done.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// A Close racing with routing goroutines never frees memory in use, and every call after it
// returns ErrClosed.
func TestLiveViewCloseRaces(t *testing.T) {
	for round := 0; round < 20; round++ {
		lv, err := keyroute.NewLiveView(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lv.Publish(viewDoc(1, ringSpec("a", "b", "c"))); err != nil {
			t.Fatal(err)
		}
		raceClose(t, func() error {
			_, _, err := lv.RouteString("key")
			return err
		}, func() { lv.Close() })
	}
}

func TestViewClose(t *testing.T) {
	lv := mustLiveView(t, nil)
	if _, err := lv.Publish(viewDoc(1, ringSpec("a", "b"))); err != nil {
		t.Fatal(err)
	}
	v, err := lv.Load()
	if err != nil {
		t.Fatal(err)
	}
	if lv.String() != "keyroute.LiveView(version 1)" {
		t.Fatal(lv.String())
	}
	lv.Close()
	// The snapshot outlives its live view.
	if _, err := v.RouteID("k"); err != nil {
		t.Fatal(err)
	}
	if v.Close() != nil || v.Close() != nil {
		t.Fatal("Close is idempotent")
	}
	if _, err := v.Route([]byte("k")); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if _, err := v.RouteID("k"); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if _, err := v.RouteWithFallback([]byte("k")); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if _, err := v.Ends([]byte("k")); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if _, _, err := v.Progress(); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if _, err := v.DocumentJSON(); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if v.Version() != 1 || v.NodeCount() != 2 {
		t.Fatal("what was read stays")
	}
	for _, err := range []error{
		func() error { _, err := lv.Publish(viewDoc(2, ringSpec("a"))); return err }(),
		func() error { _, _, err := lv.Route([]byte("k")); return err }(),
		func() error { _, err := lv.Version(); return err }(),
		func() error { _, err := lv.Load(); return err }(),
		func() error { _, err := lv.Status(); return err }(),
		func() error { _, err := keyroute.Watch("/nowhere", lv, keyroute.WatchOptions{}); return err }(),
	} {
		if err != keyroute.ErrClosed {
			t.Fatalf("after Close: %v", err)
		}
	}
	if lv.String() != "keyroute.LiveView(closed)" || lv.Close() != nil {
		t.Fatal(lv.String())
	}
	var nilView *keyroute.View
	var nilLive *keyroute.LiveView
	var nilWatch *keyroute.Watcher
	if nilView.Close() != nil || nilLive.Close() != nil || nilWatch.Close() != nil {
		t.Fatal("nil handles close")
	}
}

// writeAtomic replaces path with text: a temporary file beside it, then a rename.
func writeAtomic(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path+".tmp", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// events records what a watch's OnEvent saw (it runs on the watch's thread).
type events struct {
	mu      sync.Mutex
	list    []keyroute.ViewEvent
	self    *keyroute.Watcher
	selfErr []error
}

func (e *events) on(ev keyroute.ViewEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
	if e.self != nil {
		e.selfErr = append(e.selfErr, e.self.Stop(), e.self.Close())
	}
}

func (e *events) count(applied bool) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.list {
		if ev.Applied == applied {
			n++
		}
	}
	return n
}

func (e *events) last() keyroute.ViewEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.list[len(e.list)-1]
}

// statusHas polls the fleet status of url until cond holds of it.
func waitStatus(t *testing.T, url, what string, cond func(keyroute.FleetStatus) bool) keyroute.FleetStatus {
	t.Helper()
	var s keyroute.FleetStatus
	waitUntil(t, what, func() bool {
		var err error
		s, err = keyroute.ReadFleetStatus(url, 30*time.Second)
		return err == nil && cond(s)
	})
	return s
}

func instance(s keyroute.FleetStatus, id string) *keyroute.InstanceStatus {
	for i := range s.Instances {
		if s.Instances[i].Instance == id {
			return &s.Instances[i]
		}
	}
	return nil
}

func TestWatchFile(t *testing.T) {
	specA, specB := ringSpec("a", "b", "c"), ringSpec("a", "b", "c", "d")
	dir := t.TempDir()
	path := filepath.Join(dir, "view.json")
	url := "file://" + path
	writeAtomic(t, path, string(viewDoc(1, specA)))
	lv := mustLiveView(t, nil)
	e := &events{}
	opts := keyroute.WatchOptions{PollInterval: 50 * time.Millisecond, Census: keyroute.CensusOn, Instance: "go-file-1", OnEvent: e.on}

	// Bad input, each with its kind.
	if _, err := keyroute.Watch("ftp://x/y", lv, opts); !errors.Is(err, keyroute.ErrUnknownSource) {
		t.Fatalf("ftp: %v", err)
	}
	bad := opts
	bad.CensusTTL = 500 * time.Millisecond
	if _, err := keyroute.Watch(url, lv, bad); !errors.Is(err, keyroute.ErrInvalidParameter) {
		t.Fatalf("ttl: %v", err)
	}
	bad = opts
	bad.Census = 7
	if _, err := keyroute.Watch(url, lv, bad); !errors.Is(err, keyroute.ErrInvalidParameter) {
		t.Fatalf("census 7: %v", err)
	}
	bad = opts
	bad.Instance = "no spaces"
	if _, err := keyroute.Watch(url, lv, bad); !errors.Is(err, keyroute.ErrInvalidParameter) {
		t.Fatalf("instance: %v", err)
	}

	w, err := keyroute.Watch(url, lv, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Instance() != "go-file-1" {
		t.Fatal(w.Instance())
	}
	waitVersion(t, lv, 1)
	waitUntil(t, "the first event", func() bool { return e.count(true) >= 1 })
	first := e.last()
	if !first.Applied || first.Version != 1 || first.View == nil || first.View.Version() != 1 ||
		first.Fingerprint != first.View.Fingerprint() || first.Err() != nil {
		t.Fatalf("first event %+v", first)
	}

	// The view follows the file; a broken document is refused and the view stays.
	writeAtomic(t, path, string(viewDoc(2, specB)))
	waitVersion(t, lv, 2)
	writeAtomic(t, path, string(viewDoc(3, ringSpec("a", "a"))))
	waitUntil(t, "a refusal", func() bool { return e.count(false) >= 1 })
	if r := e.last(); r.Applied || r.Code != keyroute.CodeDuplicateNodeID || r.Version != 3 || r.View != nil ||
		!errors.Is(r.Err(), keyroute.ErrDuplicateNodeID) {
		t.Fatalf("refusal event %+v", r)
	}
	if v, _ := lv.Version(); v != 2 {
		t.Fatalf("the view moved to %d", v)
	}
	if id, version, err := lv.RouteString("k"); err != nil || version != 2 || id == "" {
		t.Fatalf("route %s %d %v", id, version, err)
	}

	// The census on the file source: the instance refused version 3. Publishing is a
	// compare-and-swap against the version the file holds.
	waitStatus(t, url, "go-file-1 refused", func(s keyroute.FleetStatus) bool {
		i := instance(s, "go-file-1")
		return i != nil && i.Standing == "refused"
	})
	if _, err := keyroute.PublishView(url, viewDoc(4, specA), 2); !errors.Is(err, keyroute.ErrVersionConflict) {
		t.Fatalf("expecting 2: %v", err)
	}
	if _, err := keyroute.PublishView(url, viewDoc(3, specA), 3); !errors.Is(err, keyroute.ErrStaleVersion) {
		t.Fatalf("stale: %v", err)
	}
	if v, err := keyroute.PublishView(url, viewDoc(4, specA), 3); err != nil || v != 4 {
		t.Fatalf("publish 4: %d %v", v, err)
	}
	waitVersion(t, lv, 4)
	s := waitStatus(t, url, "go-file-1 in sync", func(s keyroute.FleetStatus) bool {
		i := instance(s, "go-file-1")
		return i != nil && i.Standing == "sync"
	})
	i := instance(s, "go-file-1")
	if s.Version != 4 || !s.Converged() || s.Count("sync") != 1 || i.ViewVersion != 4 || !i.HasView ||
		i.Fingerprint != s.Fingerprint || i.PID != os.Getpid() || i.Surface != "go" || i.Refusals < 1 ||
		i.Refusal == nil || i.Refusal.Code != keyroute.CodeDuplicateNodeID || s.Deadline != 30*time.Second {
		t.Fatalf("fleet status %+v, instance %+v", s, i)
	}

	// OnEvent cannot stop or close its own watch.
	e.mu.Lock()
	e.self = w
	e.mu.Unlock()
	writeAtomic(t, path, string(viewDoc(5, specB)))
	waitVersion(t, lv, 5)
	waitUntil(t, "the event of version 5", func() bool { return e.count(true) >= 4 })
	e.mu.Lock()
	e.self = nil
	selfErr := e.selfErr
	e.mu.Unlock()
	if len(selfErr) != 2 || !errors.Is(selfErr[0], keyroute.ErrInvalidParameter) || !errors.Is(selfErr[1], keyroute.ErrInvalidParameter) {
		t.Fatalf("stop and close from OnEvent: %v", selfErr)
	}
	if first.View.Version() != 1 {
		t.Fatal("the event's view moved")
	}

	// Stop: the watch ends, leaves the census, and the live view keeps view 5.
	if running, err := w.Running(); err != nil || !running {
		t.Fatalf("running %v %v", running, err)
	}
	if w.Stop() != nil || w.Stop() != nil {
		t.Fatal("Stop is idempotent")
	}
	if running, err := w.Running(); err != nil || running {
		t.Fatalf("running after Stop: %v %v", running, err)
	}
	waitStatus(t, url, "go-file-1 gone", func(s keyroute.FleetStatus) bool { return instance(s, "go-file-1") == nil })
	seen := e.count(true)
	writeAtomic(t, path, string(viewDoc(6, specA)))
	time.Sleep(200 * time.Millisecond) // four poll intervals: a running watch would apply 6
	if v, _ := lv.Version(); v != 5 || e.count(true) != seen {
		t.Fatalf("a stopped watch applied: version %d, %d events", v, e.count(true))
	}
	if w.Close() != nil || w.Close() != nil {
		t.Fatal("Close is idempotent")
	}
	if _, err := w.Running(); err != keyroute.ErrClosed {
		t.Fatal(err)
	}
	if err := w.Stop(); err != keyroute.ErrClosed {
		t.Fatal(err)
	}

	// Polling only, no callback, no census: the view follows the file, and the watch outlives
	// the Go live view handle (it holds its own reference).
	lv2, err := keyroute.NewLiveView(nil)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := keyroute.Watch(dir, lv2, keyroute.WatchOptions{PollOnly: true, PollInterval: 20 * time.Millisecond, Census: keyroute.CensusOff})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if w2.Instance() != "" {
		t.Fatal(w2.Instance())
	}
	waitVersion(t, lv2, 6)
	lv2.Close()
	if running, _ := w2.Running(); !running {
		t.Fatal("the watch stopped with its live view's handle")
	}
	if _, err := keyroute.ReadFleetStatus(url, -time.Second); !errors.Is(err, keyroute.ErrInvalidParameter) {
		t.Fatalf("negative deadline: %v", err)
	}
	if _, err := keyroute.ReadFleetStatus("ftp://x/y", time.Second); !errors.Is(err, keyroute.ErrUnknownSource) {
		t.Fatalf("ftp: %v", err)
	}
	if _, err := keyroute.PublishView("ftp://x/y", viewDoc(1, specA), 0); !errors.Is(err, keyroute.ErrUnknownSource) {
		t.Fatalf("ftp: %v", err)
	}
	if _, err := keyroute.Watch(url, nil, keyroute.WatchOptions{}); !errors.Is(err, keyroute.ErrNullPointer) {
		t.Fatalf("no live view: %v", err)
	}
}

// etcdEndpoint is an etcd member's client address: KEYROUTE_ETCD when set, else a member this
// test starts on free ports of 127.0.0.1 (Debian's etcd-server, which ffi/go/test.sh installs)
// and stops, by its process, when the test ends.
func etcdEndpoint(t *testing.T) string {
	t.Helper()
	if e := os.Getenv("KEYROUTE_ETCD"); e != "" {
		return e
	}
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatalf("etcd is not installed (Debian's etcd-server; ffi/go/test.sh installs it): %v", err)
	}
	port := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}
	client, peer := fmt.Sprintf("127.0.0.1:%d", port()), fmt.Sprintf("http://127.0.0.1:%d", port())
	dir := t.TempDir()
	cmd := exec.Command(bin, "--name", "keyroute-go", "--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", "http://"+client, "--advertise-client-urls", "http://"+client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "keyroute-go="+peer)
	log, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		log.Close()
	})
	waitUntil(t, "etcd on "+client, func() bool {
		resp, err := http.Get("http://" + client + "/health")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var b [256]byte
		n, _ := resp.Body.Read(b[:])
		return strings.Contains(string(b[:n]), `"health":"true"`)
	})
	return client
}

// A real etcd: two watches in its census (on by default for etcd) follow each publish, two
// publishers expecting the same version race and exactly one wins, and the fleet status shows
// both instances in sync, then one fewer after a stop.
func TestWatchEtcd(t *testing.T) {
	url := fmt.Sprintf("etcd://%s/keyroute/go-test-%d", etcdEndpoint(t), os.Getpid())
	specA, specB := ringSpec("a", "b", "c"), ringSpec("a", "b", "c", "d")
	if v, err := keyroute.PublishView(url, viewDoc(1, specA), 0); err != nil || v != 1 {
		t.Fatalf("publish 1: %d %v", v, err)
	}
	var views [2]*keyroute.LiveView
	var watches [2]*keyroute.Watcher
	var seen [2]events
	for i := range watches {
		views[i] = mustLiveView(t, nil)
		w, err := keyroute.Watch(url, views[i], keyroute.WatchOptions{Instance: fmt.Sprintf("go-etcd-%d-%d", os.Getpid(), i), OnEvent: seen[i].on})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		watches[i] = w
	}
	for i := range views {
		waitVersion(t, views[i], 1)
	}
	results := make(chan error, 2)
	var start sync.WaitGroup
	start.Add(1)
	for _, spec := range []string{specA, specB} {
		go func(doc []byte) {
			start.Wait()
			_, err := keyroute.PublishView(url, doc, 1)
			results <- err
		}(viewDoc(2, spec))
	}
	start.Done()
	wins, conflicts := 0, 0
	for i := 0; i < 2; i++ {
		err := <-results
		switch {
		case err == nil:
			wins++
		case errors.Is(err, keyroute.ErrVersionConflict):
			conflicts++
		default:
			t.Fatal(err)
		}
	}
	if wins != 1 || conflicts != 1 {
		t.Fatalf("%d won, %d conflicts", wins, conflicts)
	}
	if _, err := keyroute.PublishView(url, []byte(`{"version":3}`), 2); !errors.Is(err, keyroute.ErrInvalidView) {
		t.Fatalf("a document without a spec: %v", err)
	}
	if v, err := keyroute.PublishView(url, viewDoc(3, specB), 2); err != nil || v != 3 {
		t.Fatalf("publish 3: %d %v", v, err)
	}
	b := mustRouter(t, specB)
	for i := range views {
		waitVersion(t, views[i], 3)
		// Versions published in quick succession may reach a watch as one read: the last one.
		waitUntil(t, "the event of version 3", func() bool { return seen[i].count(true) >= 2 && seen[i].last().Version == 3 })
		if seen[i].count(false) != 0 || seen[i].last().Version != 3 {
			t.Fatalf("watch %d saw %+v", i, seen[i].list)
		}
		want, _ := b.RouteID("user:42")
		if id, version, err := views[i].RouteString("user:42"); err != nil || id != want || version != 3 {
			t.Fatalf("route %s %d %v", id, version, err)
		}
	}
	second := watches[1].Instance()
	s := waitStatus(t, url, "both in sync", func(s keyroute.FleetStatus) bool {
		return s.Count("sync") == 2 && instance(s, watches[0].Instance()) != nil && instance(s, second) != nil
	})
	if s.Version != 3 || !s.Converged() || s.PublishedAt.IsZero() {
		t.Fatalf("fleet status %+v", s)
	}
	if err := watches[1].Stop(); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, url, second+" gone", func(s keyroute.FleetStatus) bool { return instance(s, second) == nil })
}
