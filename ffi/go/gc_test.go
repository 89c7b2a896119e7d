package keyroute_test

import "runtime"

// runtime_GC runs the collector twice and lets finalizers run in between.
func runtime_GC() {
	runtime.GC()
	runtime.Gosched()
	runtime.GC()
}
