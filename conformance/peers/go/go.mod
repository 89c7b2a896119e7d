module github.com/keyroute/keyroute/conformance/peers/go

go 1.19

require (
	github.com/bradfitz/gomemcache v0.0.0
	github.com/golang/groupcache v0.0.0
)

// Debian's sources, given a go.mod by ffi/go/debian-sources.sh (no module proxy is used).
replace (
	github.com/bradfitz/gomemcache => ../../../build/go-debian/gomemcache
	github.com/golang/groupcache => ../../../build/go-debian/groupcache
)
