//go:build keyroute_static

package keyroute

// With `-tags keyroute_static`, libkeyroute.a and the system libraries it needs
// (keyroute-static.pc's Libs.private): the program carries keyroute and needs no libkeyroute
// at run time.

// #cgo pkg-config: --static keyroute-static
import "C"
