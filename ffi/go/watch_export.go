package keyroute

// The function the C library calls for a watch's events (through krgo_on_event in watch.go).
// A file with an //export may only declare C in its preamble, so it is on its own.

/*
#include "keyroute.h"
*/
import "C"

import "runtime/cgo"

// krgoViewEvent hands one event of a watch to its OnEvent, on the watch's thread. The event's
// pointers borrow for the call only: the message is copied and the view cloned.
//
//export krgoViewEvent
func krgoViewEvent(user C.uintptr_t, event *C.kr_view_event) {
	fn, ok := cgo.Handle(user).Value().(func(ViewEvent))
	if !ok {
		return
	}
	ev := ViewEvent{
		Applied:     event.kind == C.KR_VIEW_EVENT_KIND_APPLIED,
		Version:     uint64(event.version),
		Fingerprint: uint64(event.fingerprint),
		Message:     C.GoString(event.message),
	}
	if ev.Applied {
		var ptr *C.kr_view
		if C.kr_view_clone(event.view, &ptr) == C.KR_OK {
			if v, err := wrapView(ptr); err == nil {
				ev.View = v
			}
		}
	} else {
		ev.Code = Code(event.code)
	}
	fn(ev)
}
