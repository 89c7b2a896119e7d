//go:build !keyroute_static

package keyroute

// The shared library, found through pkg-config (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for an
// install outside the system folders; the program then needs the library's folder on its
// loader path: LD_LIBRARY_PATH, or `go build -ldflags=-r=<libdir>`).

// #cgo pkg-config: keyroute
import "C"
