package keyroute

/*
#include <stdint.h>
#include <string.h>
#include "keyroute.h"

extern void krgoViewEvent(uintptr_t user, kr_view_event *event);

// The watch's callback: hands the event to the Go function of the cgo.Handle in `user`.
static void krgo_on_event(void *user, const kr_view_event *event) {
	krgoViewEvent((uintptr_t)user, (kr_view_event *)event);
}

// Starts a watch with its options built on this stack, so that no Go pointer is stored in
// memory that outlives the call (kr_watch_start copies the instance id). A callback handle of 0
// asks for no callback. The census names the surface `go`.
static kr_status krgo_watch_start(const char *url, size_t url_len, const kr_live_view *lv, double poll,
                                  bool poll_only, uint32_t census, const char *instance, size_t instance_len,
                                  double ttl, uintptr_t callback, kr_watch **watch) {
	kr_watch_options o;
	memset(&o, 0, sizeof o);
	o.poll_interval_seconds = poll;
	o.poll_only = poll_only;
	o.census = census;
	o.instance = instance;
	o.instance_len = instance_len;
	o.census_ttl_seconds = ttl;
	o.surface = "go";
	o.surface_len = 2;
	if (callback != 0) {
		o.callback = krgo_on_event;
		o.user = (void *)callback;
	}
	return kr_watch_start(url, url_len, lv, &o, watch);
}
*/
import "C"

import (
	"errors"
	"runtime"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// Census says whether a watch registers in its source's census (WatchOptions.Census).
type Census uint32

const (
	// CensusDefault is on for an etcd source, off for a file source.
	CensusDefault Census = C.KR_CENSUS_DEFAULT
	// CensusOn registers (the file source keeps its census beside the document).
	CensusOn Census = C.KR_CENSUS_ON
	// CensusOff does not register.
	CensusOff Census = C.KR_CENSUS_OFF
)

// WatchOptions are how a watch runs; the zero value asks for every default.
type WatchOptions struct {
	// PollInterval is how often the source is read again with no notification (0: 1 second;
	// at least 10 ms). Change notifications, where the source has them, are seen at once.
	PollInterval time.Duration
	// PollOnly polls without change notifications.
	PollOnly bool
	// Census is whether to register in the source's census.
	Census Census
	// Instance is the census instance id (1 to 128 of `A-Z a-z 0-9 . _ -`); "" for HOST-PID.
	Instance string
	// CensusTTL is how long the census entry outlives the instance's last heartbeat (0: 10
	// seconds; at least 2).
	CensusTTL time.Duration
	// OnEvent, when set, is called for every view applied and every refusal, in order, on the
	// watch's own thread: it must return quickly (the watch reads nothing while it runs) and
	// must not Stop or Close its own watch (Stop returns ErrInvalidParameter there).
	OnEvent func(ViewEvent)
}

// ViewEvent is one event of a watch.
type ViewEvent struct {
	// Applied is true for a view applied to the live view, false for a refusal.
	Applied bool
	// Version is the applied view's version; for a refusal, the refused document's, or 0 when
	// it could not be read.
	Version uint64
	// Fingerprint is the applied view's fingerprint; 0 for a refusal.
	Fingerprint uint64
	// Code is the refusal's kind (CodeStaleVersion, CodeIO, …); 0 for an applied view.
	Code Code
	// Message says why a document was refused; "" for an applied view.
	Message string
	// View is the applied view, a snapshot of its own (released by Close or its finalizer);
	// nil for a refusal.
	View *View
}

// Err is a refusal as an *Error; nil for an applied view.
func (e ViewEvent) Err() error {
	if e.Applied {
		return nil
	}
	return &Error{Code: e.Code, Message: e.Message}
}

// Watcher is a running watch of a view source feeding a live view. Its methods are safe for
// concurrent use. Keep it: a watch runs until Stop or Close (it has no finalizer).
type Watcher struct {
	h        handle
	ptr      *C.kr_watch
	instance string
	callback cgo.Handle
	release  sync.Once
}

// Watch starts watching the source url (`file:///abs/path`, a plain path to a file or to a
// directory holding view.json, or `etcd://HOST:PORT/KEY`) feeding lv: on a thread of its own it
// reads the current document, then every change, and publishes each to lv; a document that
// does not apply is refused and recorded, and lv keeps its view. The watch holds its own
// reference to lv. The error is ErrUnknownSource for a URL of no source, ErrInvalidParameter
// for an option out of range or a bad instance id, ErrIO when the watch cannot start.
func Watch(url string, lv *LiveView, opts WatchOptions) (*Watcher, error) {
	if lv == nil {
		return nil, &Error{Code: CodeNullPointer, Message: "no live view to feed"}
	}
	if !lv.h.enter() {
		return nil, ErrClosed
	}
	var callback cgo.Handle
	if opts.OnEvent != nil {
		callback = cgo.NewHandle(opts.OnEvent)
	}
	var ptr *C.kr_watch
	runtime.LockOSThread()
	err := check(C.krgo_watch_start(stringChar(url), C.size_t(len(url)), lv.ptr,
		C.double(opts.PollInterval.Seconds()), C.bool(opts.PollOnly), C.uint32_t(opts.Census),
		stringChar(opts.Instance), C.size_t(len(opts.Instance)),
		C.double(opts.CensusTTL.Seconds()), C.uintptr_t(callback), &ptr))
	runtime.UnlockOSThread()
	lv.h.leave()
	if err != nil {
		if callback != 0 {
			callback.Delete()
		}
		return nil, err
	}
	w := &Watcher{ptr: ptr, callback: callback}
	var id *C.char
	var n C.size_t
	if C.kr_watch_instance(ptr, &id, &n) == C.KR_OK && id != nil {
		w.instance = C.GoStringN(id, C.int(n))
	}
	w.h.init(func() {
		C.kr_watch_free(ptr)
		w.forget()
	})
	return w, nil
}

// forget releases the callback once the watch's thread has ended.
func (w *Watcher) forget() {
	w.release.Do(func() {
		if w.callback != 0 {
			w.callback.Delete()
		}
	})
}

// Stop stops the watch and waits for its thread to end; it leaves the census. The live view
// keeps the view it has. Stopping a stopped watch does nothing. ErrInvalidParameter when called
// from the watch's own OnEvent.
func (w *Watcher) Stop() error {
	if !w.h.enter() {
		return ErrClosed
	}
	runtime.LockOSThread()
	err := check(C.kr_watch_stop(w.ptr))
	runtime.UnlockOSThread()
	if err == nil {
		w.forget()
	}
	w.h.leave()
	return err
}

// Close stops the watch (as Stop) and releases its C memory. It is idempotent; later calls on
// the watcher return ErrClosed. From the watch's own OnEvent it does nothing and returns
// ErrInvalidParameter.
func (w *Watcher) Close() error {
	if w == nil {
		return nil
	}
	if err := w.Stop(); errors.Is(err, ErrInvalidParameter) {
		return err
	}
	w.h.close()
	return nil
}

// Running reports whether the watch runs (it has not been stopped).
func (w *Watcher) Running() (bool, error) {
	if !w.h.enter() {
		return false, ErrClosed
	}
	var r C.bool
	err := check(C.kr_watch_running(w.ptr, &r))
	w.h.leave()
	return bool(r), err
}

// Instance is the id the watch registered in the census as; "" when it is not in the census.
func (w *Watcher) Instance() string { return w.instance }

// PublishView publishes a view document (JSON) to the source url if the source holds version
// expectVersion (0 for a source that holds none), and returns the version published: a
// compare-and-swap, so of two publishers expecting the same version exactly one wins and the
// other gets ErrVersionConflict. The document is built first (nothing is written when it does
// not build); ErrStaleVersion when it is not newer than expectVersion. Blocks while it talks
// to the source.
func PublishView(url string, doc []byte, expectVersion uint64) (uint64, error) {
	var v C.uint64_t
	runtime.LockOSThread()
	err := check(C.kr_publish_view(stringChar(url), C.size_t(len(url)), bytePtr(doc), C.size_t(len(doc)),
		C.uint64_t(expectVersion), nil, 0, &v))
	runtime.UnlockOSThread()
	return uint64(v), err
}

// FleetStatus is the census of a source read against the view it holds (what `keyroute fleet
// status --json` prints).
type FleetStatus struct {
	// Source is the source's URL.
	Source string
	// Version is the version the source holds; 0 when it holds none.
	Version uint64
	// Fingerprint is its fingerprint as text; "" when it holds none.
	Fingerprint string
	// PublishedAt is when it was published; the zero time when the source does not know.
	PublishedAt time.Time
	// Problem is why the source's document does not build, when it does not.
	Problem *Refusal
	// Deadline is how long an instance may be behind before it is stale.
	Deadline time.Duration
	// Instances are the instances registered, by id.
	Instances []InstanceStatus
	// Unreadable are the census entries that could not be read.
	Unreadable []UnreadableEntry
}

// InstanceStatus is one instance of a FleetStatus: where it stands and its census entry.
type InstanceStatus struct {
	// Instance is its id, unique in the census.
	Instance string
	// Standing is "sync", "behind", "stale", "refused" or "diverged" (docs/views.md).
	Standing string
	// Behind is how long it has been behind the source's view (behind or stale, when the
	// view's publish time is known).
	Behind time.Duration
	// Surface is the keyroute surface it runs ("c" for a Go watch, which runs in the C
	// library).
	Surface string
	// KeyrouteVersion is the keyroute version it runs.
	KeyrouteVersion string
	// Host is its host name.
	Host string
	// PID is its process id.
	PID int
	// StartedAt is when it registered.
	StartedAt time.Time
	// TTL is how long its entry outlives its last heartbeat.
	TTL time.Duration
	// HasView is whether it routes with a view yet; ViewVersion … AppliedAt describe it.
	HasView bool
	// ViewVersion is the version it routes with.
	ViewVersion uint64
	// Fingerprint is that view's fingerprint as text.
	Fingerprint string
	// Rollout is whether that view is a rollout; Progress is then its progress.
	Rollout bool
	// Progress is the rollout's progress when it applied it.
	Progress float64
	// AppliedAt is when it applied that view.
	AppliedAt time.Time
	// Refusal is its last refusal; nil when none.
	Refusal *Refusal
	// Refusals counts the documents it refused.
	Refusals uint64
}

// UnreadableEntry is a census entry that could not be read.
type UnreadableEntry struct {
	// Instance is the entry's name in the census.
	Instance string
	// Message says why.
	Message string
}

// Count is how many instances stand at standing ("sync", …).
func (s FleetStatus) Count(standing string) int {
	n := 0
	for _, i := range s.Instances {
		if i.Standing == standing {
			n++
		}
	}
	return n
}

// Converged reports whether at least one instance is registered and every one is in sync.
func (s FleetStatus) Converged() bool {
	return len(s.Instances) > 0 && s.Count("sync") == len(s.Instances) && len(s.Unreadable) == 0
}

// ReadFleetStatus reads the census of the source url against the view it holds: an instance
// behind for longer than deadline is stale (`keyroute fleet status` uses 30 seconds).
// ErrInvalidParameter for a negative deadline. Blocks while it reads the source.
func ReadFleetStatus(url string, deadline time.Duration) (FleetStatus, error) {
	var p *C.char
	var n C.size_t
	runtime.LockOSThread()
	err := check(C.kr_fleet_status_json(stringChar(url), C.size_t(len(url)), C.double(deadline.Seconds()), nil, 0, &p, &n))
	runtime.UnlockOSThread()
	if err != nil {
		return FleetStatus{}, err
	}
	var s struct {
		Source          string       `json:"source"`
		Version         *uint64      `json:"version"`
		Fingerprint     *string      `json:"fingerprint"`
		PublishedUnixMs *uint64      `json:"published_unix_ms"`
		Problem         *refusalJSON `json:"problem"`
		DeadlineMs      uint64       `json:"deadline_ms"`
		Instances       []struct {
			Standing        string       `json:"standing"`
			BehindMs        *uint64      `json:"behind_ms"`
			Instance        string       `json:"instance"`
			Surface         string       `json:"surface"`
			KeyrouteVersion string       `json:"keyroute_version"`
			Host            string       `json:"host"`
			PID             int          `json:"pid"`
			StartedUnixMs   uint64       `json:"started_unix_ms"`
			TTLMs           uint64       `json:"ttl_ms"`
			ViewVersion     *uint64      `json:"view_version"`
			Fingerprint     *string      `json:"fingerprint"`
			Progress        *float64     `json:"progress"`
			AppliedUnixMs   *uint64      `json:"applied_unix_ms"`
			Refusal         *refusalJSON `json:"refusal"`
			Refusals        uint64       `json:"refusals"`
		} `json:"instances"`
		Unreadable []struct {
			Instance string `json:"instance"`
			Message  string `json:"message"`
		} `json:"unreadable"`
	}
	if err := decodeTaken(p, n, &s); err != nil {
		return FleetStatus{}, err
	}
	out := FleetStatus{Source: s.Source, Problem: s.Problem.refusal(), Deadline: millis(s.DeadlineMs)}
	if s.Version != nil {
		out.Version = *s.Version
	}
	if s.Fingerprint != nil {
		out.Fingerprint = *s.Fingerprint
	}
	if s.PublishedUnixMs != nil {
		out.PublishedAt = unixMs(*s.PublishedUnixMs)
	}
	for _, i := range s.Instances {
		st := InstanceStatus{
			Instance: i.Instance, Standing: i.Standing, Surface: i.Surface, KeyrouteVersion: i.KeyrouteVersion,
			Host: i.Host, PID: i.PID, StartedAt: unixMs(i.StartedUnixMs), TTL: millis(i.TTLMs),
			Refusal: i.Refusal.refusal(), Refusals: i.Refusals,
		}
		if i.BehindMs != nil {
			st.Behind = millis(*i.BehindMs)
		}
		if i.ViewVersion != nil {
			st.HasView, st.ViewVersion = true, *i.ViewVersion
		}
		if i.Fingerprint != nil {
			st.Fingerprint = *i.Fingerprint
		}
		if i.Progress != nil {
			st.Rollout, st.Progress = true, *i.Progress
		}
		if i.AppliedUnixMs != nil {
			st.AppliedAt = unixMs(*i.AppliedUnixMs)
		}
		out.Instances = append(out.Instances, st)
	}
	for _, u := range s.Unreadable {
		out.Unreadable = append(out.Unreadable, UnreadableEntry{Instance: u.Instance, Message: u.Message})
	}
	return out, nil
}

// millis is a duration of the C library's, in milliseconds.
func millis(ms uint64) time.Duration { return time.Duration(ms) * time.Millisecond }

// stringChar is stringPtr for a C parameter of type char *.
func stringChar(s string) *C.char { return (*C.char)(unsafe.Pointer(stringPtr(s))) }
