package keyroute

/*
#include "keyroute.h"

// kr_transition_route with the status and the node packed as krgo_route packs them.
static inline uint64_t krgo_transition_route(const kr_transition *t, const uint8_t *key, size_t len) {
	uint32_t node = 0;
	kr_status s = kr_transition_route(t, key, len, &node);
	return ((uint64_t)s << 32) | node;
}
*/
import "C"

import "runtime"

// Transition routes a gradual change from router A to router B at a progress in [0, 1]: at 0
// every key routes as in A, at 1 as in B, and in between the keys that move cut over in a fixed
// order (a key that has cut over stays so as progress grows). Its node indices are its own: A's
// nodes in A's order, then B's nodes that A lacks (by id). Safe for concurrent use, also while
// one goroutine moves its progress.
type Transition struct {
	h   handle
	ptr *C.kr_transition
	ids []string
}

// Placement is where a key routes during a transition.
type Placement struct {
	// Owner is the node that owns the key now (a transition node index).
	Owner int
	// Previous is the node that owned it before when HasPrevious; otherwise Owner.
	Previous int
	// HasPrevious is whether the key has cut over to a different node: read from Previous on a
	// miss.
	HasPrevious bool
}

// NewTransition starts a transition from one router to another at progress. It copies what it
// needs of both: closing them afterwards does not affect it. ErrInvalidParameter for a
// progress outside [0, 1].
func NewTransition(from, to *Router, progress float64) (*Transition, error) {
	if !from.h.enter() {
		return nil, ErrClosed
	}
	defer from.h.leave()
	if !to.h.enter() {
		return nil, ErrClosed
	}
	defer to.h.leave()
	var ptr *C.kr_transition
	runtime.LockOSThread()
	err := check(C.kr_transition_new(from.ptr, to.ptr, C.double(progress), &ptr))
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	var count C.uint32_t
	if err := check(C.kr_transition_node_count(ptr, &count)); err != nil {
		C.kr_transition_free(ptr)
		return nil, err
	}
	ids := make([]string, int(count))
	for i := range ids {
		var id *C.char
		var n C.size_t
		if err := check(C.kr_transition_node_id(ptr, C.uint32_t(i), &id, &n)); err != nil {
			C.kr_transition_free(ptr)
			return nil, err
		}
		ids[i] = C.GoStringN(id, C.int(n))
	}
	t := &Transition{ptr: ptr, ids: ids}
	t.h.init(func() { C.kr_transition_free(ptr) })
	runtime.SetFinalizer(t, (*Transition).Close)
	return t, nil
}

// Close releases the transition's C memory; idempotent.
func (t *Transition) Close() error {
	if t == nil {
		return nil
	}
	t.h.close()
	return nil
}

// NodeCount is the number of transition nodes (A's, then B's that A lacks).
func (t *Transition) NodeCount() int { return len(t.ids) }

// NodeID is the id of transition node i.
func (t *Transition) NodeID(i int) string { return t.ids[i] }

// NodeIDs are the transition's node ids in order (a copy).
func (t *Transition) NodeIDs() []string { return append([]string(nil), t.ids...) }

// Progress is the current progress, in [0, 1].
func (t *Transition) Progress() (float64, error) {
	if !t.h.enter() {
		return 0, ErrClosed
	}
	var p C.double
	err := check(C.kr_transition_progress(t.ptr, &p))
	t.h.leave()
	return float64(p), err
}

// SetProgress moves the transition to progress, atomically, while other goroutines route.
// ErrInvalidParameter for a progress outside [0, 1] or NaN (the progress stays as it was).
func (t *Transition) SetProgress(progress float64) error {
	if !t.h.enter() {
		return ErrClosed
	}
	runtime.LockOSThread()
	err := check(C.kr_transition_set_progress(t.ptr, C.double(progress)))
	runtime.UnlockOSThread()
	t.h.leave()
	return err
}

// Route gives the transition node index that owns key at the current progress.
func (t *Transition) Route(key []byte) (int, error) {
	if !t.h.enter() {
		return 0, ErrClosed
	}
	runtime.LockOSThread()
	node, err := unpack(C.krgo_transition_route(t.ptr, bytePtr(key), C.size_t(len(key))))
	runtime.UnlockOSThread()
	t.h.leave()
	return node, err
}

// RouteWithFallback gives the key's owner and, when it has cut over, the node that owned it
// before (to read from on a miss).
func (t *Transition) RouteWithFallback(key []byte) (Placement, error) {
	if !t.h.enter() {
		return Placement{}, ErrClosed
	}
	var p C.kr_placement
	runtime.LockOSThread()
	err := check(C.kr_transition_route_with_fallback(t.ptr, bytePtr(key), C.size_t(len(key)), &p))
	runtime.UnlockOSThread()
	t.h.leave()
	if err != nil {
		return Placement{}, err
	}
	return Placement{Owner: int(p.owner), Previous: int(p.previous), HasPrevious: bool(p.has_previous)}, nil
}

// HasCutOver reports whether key has cut over to its owner in B at the current progress.
func (t *Transition) HasCutOver(key []byte) (bool, error) {
	if !t.h.enter() {
		return false, ErrClosed
	}
	var b C.bool
	runtime.LockOSThread()
	err := check(C.kr_transition_has_cut_over(t.ptr, bytePtr(key), C.size_t(len(key)), &b))
	runtime.UnlockOSThread()
	t.h.leave()
	return bool(b), err
}
