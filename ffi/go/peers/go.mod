module github.com/keyroute/keyroute/ffi/go/peers

go 1.19

require (
	github.com/bradfitz/gomemcache v0.0.0
	github.com/golang/groupcache v0.0.0
	github.com/keyroute/keyroute/ffi/go v0.0.0
)

// keyroute from this checkout; the peers from Debian's sources, given a go.mod by
// ../debian-sources.sh (no module proxy is used).
replace (
	github.com/bradfitz/gomemcache => ../../../build/go-debian/gomemcache
	github.com/golang/groupcache => ../../../build/go-debian/groupcache
	github.com/keyroute/keyroute/ffi/go => ../
)
