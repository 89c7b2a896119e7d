// Command bench measures keyroute's Go package against the Go-native consistent-hash rings, in
// one run: per call (Router.RouteString) and batched (Router.RouteBatchInto, 1,000 keys a call)
// against groupcache's consistenthash (Debian's golang-github-golang-groupcache-dev) and a plain
// sorted ring written here (hash/maphash, the fastest hash in Go's standard library, and a
// hand-written binary search), at N = 10, 100 and 1000 nodes with the same points per node as
// keyroute's ring. It also times a cgo call into an empty C function, the floor of any per-call
// cgo cost. Each figure is the median over -runs passes of ns per key over -keys keys
// "user:NNNNNNN" in a random order; implementations alternate within each pass. Times are the
// measuring thread's CPU time (the goroutine is locked to its thread), as the Java bench's are,
// so that other load on a shared machine moves them less than wall time.
//
// With -views it measures a route through a live view instead: Router.RouteID against
// LiveView.RouteString (the id and the version it came from) and View.RouteID on one snapshot
// a pass, on the same topology in the same passes, alternating; each ratio is the median of
// the passes' ratios to Router.RouteID.
//
// Usage (ffi/go/bench.sh builds it against a release install): bench [-keys N] [-runs N] [-views]
package main

/*
#include <time.h>

static void krbench_noop(void) {}

// The calling thread's CPU time in ns (the machine may be shared: CPU time is steadier than
// wall time).
static long long krbench_thread_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"hash/maphash"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strconv"

	"github.com/golang/groupcache/consistenthash"
	keyroute "github.com/keyroute/keyroute/ffi/go"
)

// sortedRing is a plain Go consistent-hash ring: points sorted by hash, each with its node.
type sortedRing struct {
	seed   maphash.Seed
	points []uint64
	owners []int32
}

func newSortedRing(nodes []string, perNode int) *sortedRing {
	r := &sortedRing{seed: maphash.MakeSeed()}
	type point struct {
		h uint64
		n int32
	}
	pts := make([]point, 0, len(nodes)*perNode)
	for i, n := range nodes {
		for v := 0; v < perNode; v++ {
			pts = append(pts, point{maphash.String(r.seed, n+"-"+strconv.Itoa(v)), int32(i)})
		}
	}
	sort.Slice(pts, func(a, b int) bool { return pts[a].h < pts[b].h })
	for _, p := range pts {
		r.points = append(r.points, p.h)
		r.owners = append(r.owners, p.n)
	}
	return r
}

func (r *sortedRing) route(key string) int {
	h := maphash.String(r.seed, key)
	lo, hi := 0, len(r.points)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.points[m] < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(r.points) {
		lo = 0
	}
	return int(r.owners[lo])
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

var sink int

func main() {
	keyCount := flag.Int("keys", 1000000, "keys per pass")
	runs := flag.Int("runs", 7, "passes per figure (the median is reported)")
	views := flag.Bool("views", false, "a route through a live view against a plain route")
	flag.Parse()
	runtime.LockOSThread()
	rng := rand.New(rand.NewSource(42))
	keys := make([]string, *keyCount)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%07d", rng.Intn(10000000))
	}
	fmt.Printf("keyroute %s, %s; %d keys a pass, median of %d passes, CPU ns per key\n", keyroute.Version(), runtime.Version(), len(keys), *runs)

	noop := func() float64 {
		start := C.krbench_thread_ns()
		for range keys {
			C.krbench_noop()
		}
		return float64(C.krbench_thread_ns()-start) / float64(len(keys))
	}
	var noops []float64
	for run := 0; run < *runs; run++ {
		noops = append(noops, noop())
	}
	fmt.Printf("cgo call into an empty C function: %.1f ns\n\n", median(noops))
	if *views {
		benchViews(keys, *runs)
		return
	}

	fmt.Printf("| N | keyroute per call | keyroute batched | groupcache consistenthash | plain Go sorted ring | fastest Go / per call | fastest Go / batched |\n")
	fmt.Printf("|---|---|---|---|---|---|---|\n")
	for _, n := range []int{10, 100, 1000} {
		ids := make([]string, n)
		spec := keyroute.Spec{Algorithm: "ring"}
		for i := range ids {
			ids[i] = "cache-" + strconv.Itoa(i)
			spec.Nodes = append(spec.Nodes, keyroute.Node{ID: ids[i]})
		}
		r, err := keyroute.New(spec)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		caps, err := r.Capabilities()
		if err != nil || caps.PointsPerWeight == 0 {
			fmt.Fprintln(os.Stderr, "no points per weight:", err)
			os.Exit(1)
		}
		gc := consistenthash.New(caps.PointsPerWeight, nil)
		gc.Add(ids...)
		plain := newSortedRing(ids, caps.PointsPerWeight)
		nodes := make([]uint32, 1000)
		impls := []func() int{
			func() int {
				s := 0
				for _, k := range keys {
					i, _ := r.RouteString(k)
					s += i
				}
				return s
			},
			func() int {
				s := 0
				for start := 0; start < len(keys); start += len(nodes) {
					end := start + len(nodes)
					if end > len(keys) {
						end = len(keys)
					}
					_ = r.RouteBatchInto(nodes, keys[start:end])
					s += int(nodes[0])
				}
				return s
			},
			func() int {
				s := 0
				for _, k := range keys {
					s += len(gc.Get(k))
				}
				return s
			},
			func() int {
				s := 0
				for _, k := range keys {
					s += plain.route(k)
				}
				return s
			},
		}
		times := make([][]float64, len(impls))
		for run := 0; run < *runs; run++ {
			for i, f := range impls {
				start := C.krbench_thread_ns()
				sink += f()
				times[i] = append(times[i], float64(C.krbench_thread_ns()-start)/float64(len(keys)))
			}
		}
		med := make([]float64, len(impls))
		for i := range impls {
			med[i] = median(times[i])
		}
		fastestGo := med[2]
		if med[3] < fastestGo {
			fastestGo = med[3]
		}
		fmt.Printf("| %d | %.1f | %.1f | %.1f | %.1f | %.2f× | %.2f× |\n", n, med[0], med[1], med[2], med[3], fastestGo/med[0], fastestGo/med[1])
		r.Close()
	}
	fmt.Printf("\n(points per node: keyroute's ring default; the Go rings get as many. Ratios above 1: keyroute is faster.)\n")
	_ = sink
}

// benchViews times Router.RouteID, LiveView.RouteString and View.RouteID (one snapshot a pass)
// on rings of 10 and 1000 nodes, alternating within each pass, and prints their medians and
// the median of the passes' ratios to Router.RouteID.
func benchViews(keys []string, runs int) {
	fmt.Printf("| N | Router.RouteID | LiveView.RouteString | ratio | View.RouteID (a snapshot a pass) | ratio |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|\n")
	for _, n := range []int{10, 1000} {
		spec := keyroute.Spec{Algorithm: "ring"}
		for i := 0; i < n; i++ {
			spec.Nodes = append(spec.Nodes, keyroute.Node{ID: "cache-" + strconv.Itoa(i)})
		}
		r, err := keyroute.New(spec)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		canonical, _ := r.CanonicalJSON()
		lv, err := keyroute.NewLiveView(nil)
		if err == nil {
			_, err = lv.Publish([]byte(`{"version":1,"spec":` + canonical + `}`))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		impls := []func() int{
			func() int {
				s := 0
				for _, k := range keys {
					id, _ := r.RouteID(k)
					s += len(id)
				}
				return s
			},
			func() int {
				s := 0
				for _, k := range keys {
					id, _, _ := lv.RouteString(k)
					s += len(id)
				}
				return s
			},
			func() int {
				v, err := lv.Load()
				if err != nil {
					return 0
				}
				s := 0
				for _, k := range keys {
					id, _ := v.RouteID(k)
					s += len(id)
				}
				v.Close()
				return s
			},
		}
		times := make([][]float64, len(impls))
		ratios := make([][]float64, len(impls))
		for run := 0; run < runs; run++ {
			for i, f := range impls {
				start := C.krbench_thread_ns()
				sink += f()
				times[i] = append(times[i], float64(C.krbench_thread_ns()-start)/float64(len(keys)))
			}
			for i := range impls {
				ratios[i] = append(ratios[i], times[i][run]/times[0][run])
			}
		}
		fmt.Printf("| %d | %.1f | %.1f | %.2f× | %.1f | %.2f× |\n", n, median(times[0]), median(times[1]), median(ratios[1]), median(times[2]), median(ratios[2]))
		lv.Close()
		r.Close()
	}
	fmt.Printf("\n(ring, CPU ns per key; ratios: the live route's time over Router.RouteID's in the same pass, median of the passes.)\n")
}
