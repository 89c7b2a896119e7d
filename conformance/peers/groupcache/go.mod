module github.com/keyroute/keyroute/conformance/peers/groupcache

go 1.19

require github.com/golang/groupcache v0.0.0

// Debian's source, given a go.mod by ffi/go/debian-sources.sh (no module proxy is used).
replace github.com/golang/groupcache => ../../../build/go-debian/groupcache
