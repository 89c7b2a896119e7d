package keyroute_test

import (
	"runtime"
	"runtime/debug"
)

// runtime_GC runs the collector twice, letting finalizers run in between, and returns the
// freed Go heap to the system, so that VmRSS moves with C memory.
func runtime_GC() {
	runtime.GC()
	runtime.Gosched()
	runtime.GC()
	debug.FreeOSMemory()
}
