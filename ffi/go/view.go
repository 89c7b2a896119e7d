package keyroute

/*
#include <stdlib.h>
#include "keyroute.h"

// One route through a live view: the status, the node index and the version of the view that
// index belongs to, returned by value so that the Go side passes no out-pointer (each would be
// a heap allocation per call).
typedef struct {
	kr_status status;
	uint32_t node;
	uint64_t version;
} krgo_live_route_result;

static inline krgo_live_route_result krgo_live_route(const kr_live_view *lv, const uint8_t *key, size_t len) {
	krgo_live_route_result r = {0, 0, 0};
	r.status = kr_live_view_route(lv, key, len, &r.node, &r.version);
	return r;
}

static inline uint64_t krgo_view_route(const kr_view *v, const uint8_t *key, size_t len) {
	uint32_t node = 0;
	kr_status s = kr_view_route(v, key, len, &node);
	return ((uint64_t)s << 32) | node;
}
*/
import "C"

import (
	"encoding/json"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// LiveView is the live handle of a fleet's view (docs/views.md): the view in effect, replaced
// by Publish (or a Watch feeding it) only with a newer version that builds. A refused document
// is recorded (Status) and the last good view stays. Any number of goroutines may route
// through one LiveView while others publish to it.
type LiveView struct {
	h   handle
	ptr *C.kr_live_view
	// ids caches the node ids of the last version a Route resolved, so that a route costs one
	// call into C: a version names one view for the life of a live view (versions only grow),
	// so an index routed under version v is always read against v's ids.
	ids atomic.Pointer[versionIDs]
}

// versionIDs are the node ids of one version of a live view.
type versionIDs struct {
	version uint64
	ids     []string
}

// NewLiveView creates a live view with no view yet. Documents are read and built under limits,
// a JSON object of the limits to change (`{"max_nodes": 16}`), or the default limits when
// limits is nil. The error is ErrInvalidJSON or ErrInvalidParameter for bad limits.
func NewLiveView(limits []byte) (*LiveView, error) {
	var ptr *C.kr_live_view
	runtime.LockOSThread()
	err := check(C.kr_live_view_new(charPtr(limits), C.size_t(len(limits)), &ptr))
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	lv := &LiveView{ptr: ptr}
	lv.h.init(func() { C.kr_live_view_free(ptr) })
	runtime.SetFinalizer(lv, (*LiveView).Close)
	return lv, nil
}

// Close releases the live view's C memory. It is idempotent; later calls return ErrClosed.
// Views loaded from it stay valid, and a Watch feeding it holds its own reference.
func (lv *LiveView) Close() error {
	if lv == nil {
		return nil
	}
	lv.h.close()
	return nil
}

// Publish applies a view document (JSON) if its version is newer than the one in effect and it
// builds, and returns its version. Otherwise the view in effect stays, the refusal is recorded
// and returned: ErrStaleVersion, ErrInvalidView, ErrInvalidJSON, ErrFingerprintMismatch or any
// error a spec can give.
func (lv *LiveView) Publish(doc []byte) (uint64, error) {
	if !lv.h.enter() {
		return 0, ErrClosed
	}
	var v C.uint64_t
	runtime.LockOSThread()
	err := check(C.kr_live_view_publish(lv.ptr, bytePtr(doc), C.size_t(len(doc)), &v))
	runtime.UnlockOSThread()
	lv.h.leave()
	return uint64(v), err
}

// Route gives the id of the node that owns key in the view in effect, and the version of that
// view: the id always comes from the view that routed the key, whatever is published
// meanwhile. ErrNoView before a first view is applied.
func (lv *LiveView) Route(key []byte) (id string, version uint64, err error) {
	return lv.route(bytePtr(key), len(key))
}

// RouteString routes a text key by its UTF-8 bytes, as Route does, without copying it.
func (lv *LiveView) RouteString(key string) (id string, version uint64, err error) {
	return lv.route(stringPtr(key), len(key))
}

func (lv *LiveView) route(key *C.uint8_t, n int) (string, uint64, error) {
	if !lv.h.enter() {
		return "", 0, ErrClosed
	}
	runtime.LockOSThread()
	r := C.krgo_live_route(lv.ptr, key, C.size_t(n))
	if r.status != C.KR_OK {
		err := check(r.status)
		runtime.UnlockOSThread()
		lv.h.leave()
		return "", 0, err
	}
	runtime.UnlockOSThread()
	version := uint64(r.version)
	if c := lv.ids.Load(); c != nil && c.version == version && int(r.node) < len(c.ids) {
		lv.h.leave()
		return c.ids[r.node], version, nil
	}
	// A version not cached yet: route again on a snapshot, whose ids are its own, and cache
	// them for the next routes.
	view, err := lv.load()
	if err != nil {
		lv.h.leave()
		return "", 0, err
	}
	node, err := unpackView(view, key, n)
	lv.h.leave()
	if err != nil {
		view.Close()
		return "", 0, err
	}
	lv.ids.Store(&versionIDs{version: view.version, ids: view.ids})
	id := view.ids[node]
	view.Close()
	return id, view.version, nil
}

// Version is the version in effect; ErrNoView before a first view is applied.
func (lv *LiveView) Version() (uint64, error) {
	if !lv.h.enter() {
		return 0, ErrClosed
	}
	var v C.uint64_t
	runtime.LockOSThread()
	err := check(C.kr_live_view_version(lv.ptr, &v))
	runtime.UnlockOSThread()
	lv.h.leave()
	return uint64(v), err
}

// Load gives the view in effect as a snapshot: everything read through it comes from that one
// view, and stays valid until it is closed, whatever is published meanwhile. ErrNoView before
// a first view is applied.
func (lv *LiveView) Load() (*View, error) {
	if !lv.h.enter() {
		return nil, ErrClosed
	}
	v, err := lv.load()
	lv.h.leave()
	return v, err
}

// load is Load for a caller holding a reference on the handle.
func (lv *LiveView) load() (*View, error) {
	var ptr *C.kr_view
	runtime.LockOSThread()
	err := check(C.kr_live_view_load(lv.ptr, &ptr))
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	return wrapView(ptr)
}

// Refusal is a document a live view (or a watch feeding it) refused.
type Refusal struct {
	// Version is the refused document's version; 0 when it could not be read.
	Version uint64
	// Code is the kind of refusal (CodeStaleVersion, CodeIO, …).
	Code Code
	// Message says why, for people.
	Message string
	// At is when it was refused.
	At time.Time
}

// Err is the refusal as the *Error Publish returned for it.
func (r *Refusal) Err() error { return &Error{Code: r.Code, Message: r.Message} }

// LiveStatus is what a live view routes with.
type LiveStatus struct {
	// HasView is whether a view has been applied; the fields below it are zero until then.
	HasView bool
	// Version is the version in effect.
	Version uint64
	// Fingerprint is its fingerprint as text (16 lowercase hex digits).
	Fingerprint string
	// AppliedAt is when this process applied it.
	AppliedAt time.Time
	// Rollout is whether the view is a rollout; Progress is then its progress in [0, 1].
	Rollout bool
	// Progress is the rollout's progress (0 for a plain view).
	Progress float64
	// Refusals counts the documents refused.
	Refusals uint64
	// LastRefusal is the last refusal; nil when nothing was refused.
	LastRefusal *Refusal
}

// refusalJSON is a refusal as the C library writes it.
type refusalJSON struct {
	AtUnixMs uint64  `json:"at_unix_ms"`
	Code     uint32  `json:"code"`
	Message  string  `json:"message"`
	Version  *uint64 `json:"version"`
}

func (r *refusalJSON) refusal() *Refusal {
	if r == nil {
		return nil
	}
	out := &Refusal{Code: Code(r.Code), Message: r.Message, At: unixMs(r.AtUnixMs)}
	if r.Version != nil {
		out.Version = *r.Version
	}
	return out
}

// Status reads the view in effect and the refusals (kr_live_view_status_json, decoded).
func (lv *LiveView) Status() (LiveStatus, error) {
	if !lv.h.enter() {
		return LiveStatus{}, ErrClosed
	}
	var p *C.char
	var n C.size_t
	runtime.LockOSThread()
	err := check(C.kr_live_view_status_json(lv.ptr, &p, &n))
	runtime.UnlockOSThread()
	lv.h.leave()
	if err != nil {
		return LiveStatus{}, err
	}
	var s struct {
		AppliedUnixMs *uint64      `json:"applied_unix_ms"`
		Fingerprint   *string      `json:"fingerprint"`
		LastRefusal   *refusalJSON `json:"last_refusal"`
		Progress      *float64     `json:"progress"`
		Refusals      uint64       `json:"refusals"`
		Version       *uint64      `json:"version"`
	}
	if err := decodeTaken(p, n, &s); err != nil {
		return LiveStatus{}, err
	}
	out := LiveStatus{Refusals: s.Refusals, LastRefusal: s.LastRefusal.refusal()}
	if s.Version != nil {
		out.HasView, out.Version = true, *s.Version
	}
	if s.Fingerprint != nil {
		out.Fingerprint = *s.Fingerprint
	}
	if s.AppliedUnixMs != nil {
		out.AppliedAt = unixMs(*s.AppliedUnixMs)
	}
	if s.Progress != nil {
		out.Rollout, out.Progress = true, *s.Progress
	}
	return out, nil
}

// String describes the live view for logs.
func (lv *LiveView) String() string {
	if lv.h.isClosed() {
		return "keyroute.LiveView(closed)"
	}
	v, err := lv.Version()
	if err != nil {
		return "keyroute.LiveView(no view)"
	}
	return "keyroute.LiveView(version " + strconv.FormatUint(v, 10) + ")"
}

// View is one applied view, as a snapshot: its routes, node ids, version and fingerprint stay
// consistent while it is held, whatever is published to the live view meanwhile. It is
// immutable and safe for any number of goroutines. Node indices are into NodeIDs: a plain
// view's nodes; during a rollout, the target's nodes in order, then the nodes only the start
// has.
type View struct {
	h           handle
	ptr         *C.kr_view
	ids         []string
	version     uint64
	fingerprint uint64
	appliedAt   time.Time
}

// wrapView takes ownership of a C view handle and reads what never changes in it.
func wrapView(ptr *C.kr_view) (*View, error) {
	var count C.uint32_t
	var version, fp, applied C.uint64_t
	// The calls below fail only for a NULL handle, which kr_live_view_load never gives.
	C.kr_view_node_count(ptr, &count)
	C.kr_view_version(ptr, &version)
	C.kr_view_fingerprint(ptr, &fp)
	C.kr_view_applied_unix_ms(ptr, &applied)
	ids := make([]string, int(count))
	for i := range ids {
		var id *C.char
		var n C.size_t
		if err := check(C.kr_view_node_id(ptr, C.uint32_t(i), &id, &n)); err != nil {
			C.kr_view_free(ptr)
			return nil, err
		}
		ids[i] = C.GoStringN(id, C.int(n))
	}
	v := &View{ptr: ptr, ids: ids, version: uint64(version), fingerprint: uint64(fp), appliedAt: unixMs(uint64(applied))}
	v.h.init(func() { C.kr_view_free(ptr) })
	runtime.SetFinalizer(v, (*View).Close)
	return v, nil
}

// Close releases the snapshot's C memory. It is idempotent; later calls that reach into C
// return ErrClosed. What was read from it (ids, version) stays valid.
func (v *View) Close() error {
	if v == nil {
		return nil
	}
	v.h.close()
	return nil
}

// Route gives the index (into NodeIDs) of the node that owns key in this view.
func (v *View) Route(key []byte) (int, error) {
	if !v.h.enter() {
		return 0, ErrClosed
	}
	node, err := unpackView(v, bytePtr(key), len(key))
	v.h.leave()
	return node, err
}

// RouteString routes a text key by its UTF-8 bytes, as Route does, without copying it.
func (v *View) RouteString(key string) (int, error) {
	if !v.h.enter() {
		return 0, ErrClosed
	}
	node, err := unpackView(v, stringPtr(key), len(key))
	v.h.leave()
	return node, err
}

// RouteID gives the id of the node that owns key in this view.
func (v *View) RouteID(key string) (string, error) {
	i, err := v.RouteString(key)
	if err != nil {
		return "", err
	}
	return v.ids[i], nil
}

// unpackView routes on a view whose handle the caller holds.
func unpackView(v *View, key *C.uint8_t, n int) (int, error) {
	runtime.LockOSThread()
	node, err := unpack(C.krgo_view_route(v.ptr, key, C.size_t(n)))
	runtime.UnlockOSThread()
	return node, err
}

// RouteWithFallback routes key with its fallback: during a rollout, for a key that has cut
// over to a different node, HasPrevious is true and Previous the node that owned it before
// (read there on a miss).
func (v *View) RouteWithFallback(key []byte) (Placement, error) {
	if !v.h.enter() {
		return Placement{}, ErrClosed
	}
	var p C.kr_placement
	runtime.LockOSThread()
	err := check(C.kr_view_route_with_fallback(v.ptr, bytePtr(key), C.size_t(len(key)), &p))
	runtime.UnlockOSThread()
	v.h.leave()
	if err != nil {
		return Placement{}, err
	}
	return Placement{Owner: int(p.owner), Previous: int(p.previous), HasPrevious: bool(p.has_previous)}, nil
}

// Ends are the owners of one key at the two ends of a rollout, by id: the copies a write or a
// delete must reach while instances sit at different progress values (docs/views.md).
type Ends struct {
	// From is the owner under the view's spec (the rollout's start).
	From string
	// To is the owner under the rollout's target when Rollout; otherwise From.
	To string
	// Rollout is whether the view is a rollout (a plain view has one end).
	Rollout bool
}

// Ends gives the owners of key at both ends of the view's rollout, or its one owner for a
// plain view.
func (v *View) Ends(key []byte) (Ends, error) {
	if !v.h.enter() {
		return Ends{}, ErrClosed
	}
	var e C.kr_ends
	runtime.LockOSThread()
	err := check(C.kr_view_ends(v.ptr, bytePtr(key), C.size_t(len(key)), &e))
	runtime.UnlockOSThread()
	var out Ends
	if err == nil {
		out = Ends{From: C.GoStringN(e.from_id, C.int(e.from_id_len)), To: C.GoStringN(e.to_id, C.int(e.to_id_len)), Rollout: bool(e.has_to)}
	}
	v.h.leave()
	return out, err
}

// NodeCount is the number of nodes: route results are below it.
func (v *View) NodeCount() int { return len(v.ids) }

// NodeID is the id of node index i. It panics for an index out of range, as a slice does.
func (v *View) NodeID(i int) string { return v.ids[i] }

// NodeIDs are the view's node ids (a copy).
func (v *View) NodeIDs() []string { return append([]string(nil), v.ids...) }

// Version is the view's version.
func (v *View) Version() uint64 { return v.version }

// Fingerprint is the view's fingerprint as a number (a plain view's is its spec's).
func (v *View) Fingerprint() uint64 { return v.fingerprint }

// FingerprintText is the fingerprint as every surface, document and census entry writes it:
// 16 lowercase hex digits.
func (v *View) FingerprintText() string {
	s := strconv.FormatUint(v.fingerprint, 16)
	return "0000000000000000"[len(s):] + s
}

// AppliedAt is when this process applied the view.
func (v *View) AppliedAt() time.Time { return v.appliedAt }

// Progress is the view's rollout progress now (for a schedule, where the clock has it), and
// whether the view is a rollout; 0 and false for a plain view.
func (v *View) Progress() (progress float64, rollout bool, err error) {
	if !v.h.enter() {
		return 0, false, ErrClosed
	}
	var p C.double
	var r C.bool
	err = check(C.kr_view_progress(v.ptr, &p, &r))
	v.h.leave()
	return float64(p), bool(r), err
}

// DocumentJSON is the view as a canonical view document (keys sorted, no whitespace, with its
// fingerprint), which Publish on any surface reads back to the same view.
func (v *View) DocumentJSON() (string, error) {
	if !v.h.enter() {
		return "", ErrClosed
	}
	var p *C.char
	var n C.size_t
	err := check(C.kr_view_document_json(v.ptr, &p, &n))
	v.h.leave()
	if err != nil {
		return "", err
	}
	return taken(p, n), nil
}

// String describes the view for logs.
func (v *View) String() string {
	return "keyroute.View(version " + strconv.FormatUint(v.version, 10) + ", " + strconv.Itoa(len(v.ids)) + " nodes, " + v.FingerprintText() + ")"
}

// taken copies a string the C library allocated and releases it.
func taken(p *C.char, n C.size_t) string {
	if p == nil {
		return ""
	}
	s := C.GoStringN(p, C.int(n))
	C.kr_string_free(p)
	return s
}

// decodeTaken decodes JSON the C library allocated into out, and releases it.
func decodeTaken(p *C.char, n C.size_t, out any) error {
	text := taken(p, n)
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return &Error{Code: CodeInternal, Message: "the library's JSON did not decode: " + err.Error()}
	}
	return nil
}

// unixMs is a time of the C library's, in milliseconds since the Unix epoch.
func unixMs(ms uint64) time.Time {
	return time.UnixMilli(int64(ms))
}
