// Package keyroute routes keys to nodes with keyroute's consistent-hashing routers, through its C
// library (libkeyroute, header keyroute.h): the native algorithms (ring, jump, rendezvous,
// Maglev, slots, multi-probe, modulo) and the presets that reproduce other clients' routing
// (libmemcached, spymemcached, Guava, Redis Cluster, …), key for key the same as every other
// keyroute surface.
//
// A Router is built from a topology spec (FromJSON, or New from Go values), is immutable, and is
// safe for use by any number of goroutines. Lookups return node indices into the spec's node
// list; NodeID gives a node's id. RouteBatch routes many keys in one call into C. A Transition
// routes a gradual change from one router to another.
//
// Errors are *Error values carrying keyroute's stable code; compare them by kind with errors.Is
// and the sentinels (errors.Is(err, keyroute.ErrInvalidSpec)), or read the code with errors.As.
//
// Handles hold C memory. Close releases it at once; a handle that is never closed is released
// by a finalizer once it is unreachable. Close may race with calls on other goroutines: the last
// call to leave frees the memory. A call after Close returns ErrClosed.
//
// ServerSelector plugs a Router into gomemcache (memcache.NewFromSelector), and ConsistentHash
// into go-redis's Ring (RingOptions.NewConsistentHash). Neither library is imported: both
// interfaces are satisfied by method set.
package keyroute

/*
#include <stdlib.h>
#include <string.h>
#include "keyroute.h"

// One lookup with the status and the node packed into the return value (status << 32 | node),
// so that the Go side passes no out-pointer: cgo makes every pointer it passes escape, and a
// local out-parameter would be a heap allocation per call.
static inline uint64_t krgo_route(const kr_router *r, const uint8_t *key, size_t len) {
	uint32_t node = 0;
	kr_status s = kr_route(r, key, len, &node);
	return ((uint64_t)s << 32) | node;
}

static inline uint64_t krgo_route_hash(const kr_router *r, uint64_t hash) {
	uint32_t node = 0;
	kr_status s = kr_route_hash(r, hash, &node);
	return ((uint64_t)s << 32) | node;
}

// Routes n keys packed back to back in buf (key i ends at ends[i]) into nodes, in chunks of
// kr_key descriptors built on this stack, so that no Go pointer is ever stored in memory that
// outlives the call.
static kr_status krgo_route_packed(const kr_router *r, const uint8_t *buf, const size_t *ends,
                                   size_t n, uint32_t *nodes) {
	enum { CHUNK = 256 };
	kr_key keys[CHUNK];
	size_t done = 0, start = 0;
	while (done < n) {
		size_t m = n - done < CHUNK ? n - done : CHUNK, i;
		kr_status s;
		for (i = 0; i < m; i++) {
			size_t end = ends[done + i];
			keys[i].ptr = end > start ? buf + start : NULL;
			keys[i].len = end - start;
			start = end;
		}
		s = kr_route_batch(r, keys, m, nodes + done, m);
		if (s != KR_OK) return s;
		done += m;
	}
	return KR_OK;
}
*/
import "C"

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Version is the version of the C library in use (kr_version), e.g. "0.1.0".
func Version() string {
	return C.GoString(C.kr_version())
}

// StatusName is the library's own snake_case name of a status code ("invalid_spec"), or "" for
// a number that is no status (kr_status_name). Code.Name gives the same from the generated
// table, without a call.
func StatusName(code uint32) string {
	p := C.kr_status_name(C.uint32_t(code))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// HeaderVersion is the version of the header this package was compiled against.
const HeaderVersion = C.KEYROUTE_VERSION_STRING

// Compatible reports whether the C library in use serves the header this package was compiled
// against (same ABI line, not older): kr_version_compatible.
func Compatible() bool {
	return bool(C.kr_version_compatible(C.KEYROUTE_VERSION_MAJOR, C.KEYROUTE_VERSION_MINOR, C.KEYROUTE_VERSION_PATCH))
}

// handle counts the calls in flight on a C handle, so that Close never frees memory a call on
// another goroutine is using: refs is 1 (the owner's) plus one per call; Close drops the
// owner's reference once, and whoever drops the last frees.
type handle struct {
	refs   int64
	closed int32
	free   func()
}

func (h *handle) init(free func()) {
	h.refs = 1
	h.free = free
}

// enter takes a reference for one call, or fails once the handle is closed.
func (h *handle) enter() bool {
	for {
		n := atomic.LoadInt64(&h.refs)
		if n <= 0 {
			return false
		}
		if atomic.CompareAndSwapInt64(&h.refs, n, n+1) {
			return true
		}
	}
}

func (h *handle) leave() {
	if atomic.AddInt64(&h.refs, -1) == 0 {
		h.free()
	}
}

func (h *handle) close() {
	if atomic.CompareAndSwapInt32(&h.closed, 0, 1) {
		h.leave()
	}
}

func (h *handle) isClosed() bool {
	return atomic.LoadInt32(&h.closed) != 0
}

// Router is an immutable router built from a topology spec. Its methods are safe for concurrent
// use.
type Router struct {
	h   handle
	ptr *C.kr_router
	ids []string
}

// FromJSON builds a router from a topology spec in JSON (conformance/VECTORS.md), under the
// default limits. The error is an *Error: ErrInvalidJSON, ErrInvalidSpec, ErrUnknownAlgorithm,
// ErrEmptyTopology, ErrDuplicateNodeID, ErrTooManyPoints, ….
func FromJSON(spec []byte) (*Router, error) {
	return fromJSON(spec, nil)
}

// FromJSONWithLimits is FromJSON under other limits: limits is a JSON object of the limits to
// change (`{"max_points": 8388608}`; the others keep their defaults).
func FromJSONWithLimits(spec []byte, limits []byte) (*Router, error) {
	if limits == nil {
		limits = []byte{}
	}
	return fromJSON(spec, limits)
}

func fromJSON(spec []byte, limits []byte) (*Router, error) {
	var ptr *C.kr_router
	runtime.LockOSThread()
	var st C.kr_status
	if limits == nil {
		st = C.kr_router_from_json(charPtr(spec), C.size_t(len(spec)), &ptr)
	} else {
		st = C.kr_router_from_json_with_limits(charPtr(spec), C.size_t(len(spec)), charPtr(limits), C.size_t(len(limits)), &ptr)
	}
	err := check(st)
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	return wrapRouter(ptr)
}

// wrapRouter takes ownership of a C router handle.
func wrapRouter(ptr *C.kr_router) (*Router, error) {
	var count C.uint32_t
	if err := check(C.kr_router_node_count(ptr, &count)); err != nil {
		C.kr_router_free(ptr)
		return nil, err
	}
	ids := make([]string, int(count))
	for i := range ids {
		var id *C.char
		var n C.size_t
		if err := check(C.kr_router_node_id(ptr, C.uint32_t(i), &id, &n)); err != nil {
			C.kr_router_free(ptr)
			return nil, err
		}
		ids[i] = C.GoStringN(id, C.int(n))
	}
	r := &Router{ptr: ptr, ids: ids}
	r.h.init(func() { C.kr_router_free(ptr) })
	runtime.SetFinalizer(r, (*Router).Close)
	return r, nil
}

// Close releases the router's C memory. It is idempotent; later calls return ErrClosed.
// Routers it was given to (a Transition) hold their own copy.
func (r *Router) Close() error {
	if r == nil {
		return nil
	}
	r.h.close()
	return nil
}

// NodeCount is the number of nodes: route results are below it.
func (r *Router) NodeCount() int { return len(r.ids) }

// NodeID is the id of node index i (the spec's order). It panics for an index out of range, as
// a slice does.
func (r *Router) NodeID(i int) string { return r.ids[i] }

// NodeIDs are the node ids in the spec's order (a copy).
func (r *Router) NodeIDs() []string { return append([]string(nil), r.ids...) }

// Route gives the index of the node that owns key. Allocates nothing.
func (r *Router) Route(key []byte) (int, error) {
	if !r.h.enter() {
		return 0, ErrClosed
	}
	runtime.LockOSThread()
	node, err := unpack(C.krgo_route(r.ptr, bytePtr(key), C.size_t(len(key))))
	runtime.UnlockOSThread()
	r.h.leave()
	return node, err
}

// RouteString routes a text key by its UTF-8 bytes, as Route does, without copying it.
func (r *Router) RouteString(key string) (int, error) {
	if !r.h.enter() {
		return 0, ErrClosed
	}
	runtime.LockOSThread()
	node, err := unpack(C.krgo_route(r.ptr, stringPtr(key), C.size_t(len(key))))
	runtime.UnlockOSThread()
	r.h.leave()
	return node, err
}

// RouteID gives the id of the node that owns key.
func (r *Router) RouteID(key string) (string, error) {
	i, err := r.RouteString(key)
	if err != nil {
		return "", err
	}
	return r.ids[i], nil
}

// RouteUTF16 routes text given as UTF-16 code units by the key text policy every surface
// shares: the key is the text's UTF-8, and text holding a lone surrogate is refused with
// ErrInvalidUTF8 (never replaced by U+FFFD, which would route like another key).
func (r *Router) RouteUTF16(units []uint16) (int, error) {
	if !r.h.enter() {
		return 0, ErrClosed
	}
	var node C.uint32_t
	var p *C.uint16_t
	if len(units) > 0 {
		p = (*C.uint16_t)(unsafe.Pointer(&units[0]))
	}
	runtime.LockOSThread()
	err := check(C.kr_route_utf16(r.ptr, p, C.size_t(len(units)), &node))
	runtime.UnlockOSThread()
	r.h.leave()
	return int(node), err
}

// packed is a batch of keys laid back to back, reused through a pool.
type packed struct {
	buf  []byte
	ends []C.size_t
}

var packedPool = sync.Pool{New: func() any { return new(packed) }}

// RouteBatch routes every key in one call into C (the core's batch path, which hashes several
// keys before touching the table): the result's element i is the owner of keys[i].
func (r *Router) RouteBatch(keys []string) ([]int, error) {
	p := packedPool.Get().(*packed)
	p.reset()
	for _, k := range keys {
		p.buf = append(p.buf, k...)
		p.ends = append(p.ends, C.size_t(len(p.buf)))
	}
	return r.routePackedInts(p)
}

// RouteBatchBytes is RouteBatch for byte keys.
func (r *Router) RouteBatchBytes(keys [][]byte) ([]int, error) {
	p := packedPool.Get().(*packed)
	p.reset()
	for _, k := range keys {
		p.buf = append(p.buf, k...)
		p.ends = append(p.ends, C.size_t(len(p.buf)))
	}
	return r.routePackedInts(p)
}

// RouteBatchInto is RouteBatch writing node indices into nodes, which must be at least as long
// as keys (else ErrBufferTooSmall): after the keys' bytes are copied into one pooled buffer it
// allocates nothing.
func (r *Router) RouteBatchInto(nodes []uint32, keys []string) error {
	if len(nodes) < len(keys) {
		return &Error{Code: CodeBufferTooSmall, Message: "nodes is shorter than keys"}
	}
	p := packedPool.Get().(*packed)
	p.reset()
	for _, k := range keys {
		p.buf = append(p.buf, k...)
		p.ends = append(p.ends, C.size_t(len(p.buf)))
	}
	err := r.routePacked(p, nodes)
	packedPool.Put(p)
	return err
}

func (p *packed) reset() { p.buf, p.ends = p.buf[:0], p.ends[:0] }

// routePackedInts routes a packed batch into a new []int and returns p to the pool.
func (r *Router) routePackedInts(p *packed) ([]int, error) {
	nodes := make([]uint32, len(p.ends))
	err := r.routePacked(p, nodes)
	packedPool.Put(p)
	if err != nil {
		return nil, err
	}
	return ints(nodes), nil
}

// ints widens node indices to ints.
func ints(nodes []uint32) []int {
	out := make([]int, len(nodes))
	for i, n := range nodes {
		out[i] = int(n)
	}
	return out
}

func (r *Router) routePacked(p *packed, nodes []uint32) error {
	n := len(p.ends)
	if n == 0 {
		return nil
	}
	if !r.h.enter() {
		return ErrClosed
	}
	runtime.LockOSThread()
	err := check(C.krgo_route_packed(r.ptr, bytePtr(p.buf), &p.ends[0], C.size_t(n), (*C.uint32_t)(unsafe.Pointer(&nodes[0]))))
	runtime.UnlockOSThread()
	r.h.leave()
	return err
}

// Replicas gives count distinct nodes for key in preference order (the first is the owner),
// spread over distinct zones first when nodes carry zones. ErrReplicasUnsupported for jump,
// modulo and presets whose peer defines no order; ErrReplicasExceedNodes.
func (r *Router) Replicas(key []byte, count int) ([]int, error) {
	if count < 0 {
		return nil, &Error{Code: CodeInvalidParameter, Message: "a negative replica count"}
	}
	if !r.h.enter() {
		return nil, ErrClosed
	}
	nodes := make([]uint32, count)
	var p *C.uint32_t
	if count > 0 {
		p = (*C.uint32_t)(unsafe.Pointer(&nodes[0]))
	}
	runtime.LockOSThread()
	err := check(C.kr_replicas(r.ptr, bytePtr(key), C.size_t(len(key)), p, C.size_t(count)))
	runtime.UnlockOSThread()
	r.h.leave()
	if err != nil {
		return nil, err
	}
	return ints(nodes), nil
}

// Spread is read spreading for a hot key: the (selector mod r)-th of the key's first r
// replicas. ClientSelector gives a selector that stays the same per client.
func (r *Router) Spread(key []byte, replicas int, selector uint64) (int, error) {
	if replicas < 0 {
		return 0, &Error{Code: CodeInvalidParameter, Message: "a negative replica count"}
	}
	if !r.h.enter() {
		return 0, ErrClosed
	}
	var node C.uint32_t
	runtime.LockOSThread()
	err := check(C.kr_spread(r.ptr, bytePtr(key), C.size_t(len(key)), C.size_t(replicas), C.uint64_t(selector), &node))
	runtime.UnlockOSThread()
	r.h.leave()
	return int(node), err
}

// ClientSelector is the read-spreading selector of a client id (XXH3-64 of its bytes), the
// same on every surface.
func ClientSelector(client []byte) uint64 {
	var s C.uint64_t
	C.kr_client_selector(bytePtr(client), C.size_t(len(client)), &s)
	return uint64(s)
}

// Slot gives the slot key falls in, for routers built on a slot table (slots, redis-cluster);
// ok is false for the others.
func (r *Router) Slot(key []byte) (slot int, ok bool, err error) {
	if !r.h.enter() {
		return 0, false, ErrClosed
	}
	var has C.bool
	var s C.uint32_t
	runtime.LockOSThread()
	err = check(C.kr_slot(r.ptr, bytePtr(key), C.size_t(len(key)), &has, &s))
	runtime.UnlockOSThread()
	r.h.leave()
	return int(s), bool(has) && err == nil, err
}

// KeyHash is the 64-bit number the router routes key on (RouteHash of it gives the owner);
// ErrRouteHashUnsupported where the router does not route on one hash.
func (r *Router) KeyHash(key []byte) (uint64, error) {
	if !r.h.enter() {
		return 0, ErrClosed
	}
	var h C.uint64_t
	runtime.LockOSThread()
	err := check(C.kr_key_hash(r.ptr, bytePtr(key), C.size_t(len(key)), &h))
	runtime.UnlockOSThread()
	r.h.leave()
	return uint64(h), err
}

// RouteHash gives the owner of any key whose KeyHash is hash.
func (r *Router) RouteHash(hash uint64) (int, error) {
	if !r.h.enter() {
		return 0, ErrClosed
	}
	runtime.LockOSThread()
	node, err := unpack(C.krgo_route_hash(r.ptr, C.uint64_t(hash)))
	runtime.UnlockOSThread()
	r.h.leave()
	return node, err
}

// Fingerprint is the fingerprint of the router's view (XXH3-64 of its canonical spec): two
// processes holding the same fingerprint route every key the same way.
func (r *Router) Fingerprint() (uint64, error) {
	if !r.h.enter() {
		return 0, ErrClosed
	}
	var f C.uint64_t
	err := check(C.kr_router_fingerprint(r.ptr, &f))
	r.h.leave()
	return uint64(f), err
}

// SpecVersion is the version the spec declared (0 when it declared none).
func (r *Router) SpecVersion() (uint64, error) {
	if !r.h.enter() {
		return 0, ErrClosed
	}
	var v C.uint64_t
	err := check(C.kr_router_version(r.ptr, &v))
	r.h.leave()
	return uint64(v), err
}

// CanonicalJSON is the router's spec with every default filled in, keys sorted, no whitespace.
func (r *Router) CanonicalJSON() (string, error) {
	if !r.h.enter() {
		return "", ErrClosed
	}
	var p *C.char
	var n C.size_t
	err := check(C.kr_router_canonical_json(r.ptr, &p, &n))
	var s string
	if err == nil {
		s = C.GoStringN(p, C.int(n))
	}
	r.h.leave()
	return s, err
}

// Capabilities is what one router supports, as the core decides it.
type Capabilities struct {
	// Weights is what it does with node weights: "honoured", "refused" or "ignored".
	Weights string
	// Replicas is whether it defines a replica order (Replicas, Spread).
	Replicas bool
	// RouteHash is whether it routes on one 64-bit key hash (KeyHash, RouteHash).
	RouteHash bool
	// Slots is its slot count when it is built on a slot table (Slot); 0 for the others.
	Slots int
	// PointsPerWeight is a native ring's points per unit of weight; 0 for the others.
	PointsPerWeight int
	// Rebalance is whether it can move a slot table to a new topology with the fewest moves.
	Rebalance bool
}

// Capabilities reports what the router supports.
func (r *Router) Capabilities() (Capabilities, error) {
	if !r.h.enter() {
		return Capabilities{}, ErrClosed
	}
	var c C.kr_capabilities
	err := check(C.kr_router_capabilities(r.ptr, &c))
	r.h.leave()
	if err != nil {
		return Capabilities{}, err
	}
	weights := map[C.kr_weights]string{C.KR_WEIGHTS_HONOURED: "honoured", C.KR_WEIGHTS_REFUSED: "refused", C.KR_WEIGHTS_IGNORED: "ignored"}[c.weights]
	return Capabilities{
		Weights:         weights,
		Replicas:        bool(c.replicas),
		RouteHash:       bool(c.route_hash),
		Slots:           int(c.slots),
		PointsPerWeight: int(c.points_per_weight),
		Rebalance:       bool(c.rebalance),
	}, nil
}

// String describes the router by its node count, for logs.
func (r *Router) String() string {
	if r.h.isClosed() {
		return "keyroute.Router(closed)"
	}
	return "keyroute.Router(" + strconv.Itoa(len(r.ids)) + " nodes)"
}

// unpack splits a krgo_* result into the node and the error of its status (read while the
// caller holds its OS thread).
func unpack(v C.uint64_t) (int, error) {
	if st := C.kr_status(v >> 32); st != C.KR_OK {
		return 0, check(st)
	}
	return int(uint32(v)), nil
}

// bytePtr is the address of b's first byte for C (NULL for an empty slice, which the C ABI
// reads as the empty key).
func bytePtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

func charPtr(b []byte) *C.char {
	return (*C.char)(unsafe.Pointer(bytePtr(b)))
}

// stringPtr is the address of s's bytes for C, without a copy. C only reads them during the
// call.
func stringPtr(s string) *C.uint8_t {
	if len(s) == 0 {
		return nil
	}
	// A string's header starts with the address of its bytes (unsafe.StringData from Go 1.20).
	return (*C.uint8_t)(*(*unsafe.Pointer)(unsafe.Pointer(&s)))
}
