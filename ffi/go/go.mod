module github.com/keyroute/keyroute/ffi/go

go 1.19
