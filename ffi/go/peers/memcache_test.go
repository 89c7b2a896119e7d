// Package peers tests keyroute's Go adapters inside the real peer libraries, Debian's
// gomemcache, against real memcached servers this test starts on 127.0.0.1 (free ports,
// stopped by their pid). The bench in ./bench compares keyroute with groupcache's
// consistenthash.
package peers

import (
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	keyroute "github.com/keyroute/keyroute/ffi/go"
)

const keyCount = 100000

// startMemcached starts memcached on a free port of 127.0.0.1 and returns its address; the
// test's cleanup stops it by its pid.
func startMemcached(t *testing.T) string {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		args := []string{"-l", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "0", "-m", "64", "-t", "1"}
		if os.Geteuid() == 0 {
			args = append(args, "-u", "nobody") // memcached refuses to run as root
		}
		cmd := exec.Command("memcached", args...)
		if err := cmd.Start(); err != nil {
			t.Fatalf("memcached: %v (ffi/go/test.sh installs it)", err)
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		for i := 0; i < 100; i++ {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				t.Cleanup(func() {
					_ = cmd.Process.Kill()
					<-exited
				})
				return addr
			}
			select {
			case <-exited: // the port was taken meanwhile: try another
				i = 100
			case <-time.After(50 * time.Millisecond):
			}
		}
		_ = cmd.Process.Kill()
	}
	t.Fatal("memcached did not start")
	return ""
}

func testKey(i int) string { return "user:" + strconv.Itoa(i) + ":profile" }

// setAll stores every key through the client, from 8 goroutines.
func setAll(t *testing.T, client *memcache.Client, keys []string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(keys); i += 8 {
				if err := client.Set(&memcache.Item{Key: keys[i], Value: []byte(keys[i])}); err != nil {
					errs <- fmt.Errorf("set %s: %w", keys[i], err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// onServer is the set of keys each server holds, read with a client of that server alone.
func onServer(t *testing.T, addr string, keys []string) map[string]bool {
	t.Helper()
	c := memcache.New(addr)
	c.Timeout = 5 * time.Second
	found := map[string]bool{}
	for start := 0; start < len(keys); start += 500 {
		end := start + 500
		if end > len(keys) {
			end = len(keys)
		}
		items, err := c.GetMulti(keys[start:end])
		if err != nil {
			t.Fatalf("get from %s: %v", addr, err)
		}
		for k, it := range items {
			if string(it.Value) != k {
				t.Fatalf("%s holds %q under %s", addr, it.Value, k)
			}
			found[k] = true
		}
	}
	return found
}

// placed sets keyCount keys through gomemcache with keyroute's selector over the router and
// checks on each server that it holds exactly the keys keyroute's C batch route gives it.
func placed(t *testing.T, name string, r *keyroute.Router, addrs []string) {
	selector, err := keyroute.NewServerSelector(r)
	if err != nil {
		t.Fatal(err)
	}
	var _ memcache.ServerSelector = selector
	client := memcache.NewFromSelector(selector)
	client.Timeout = 5 * time.Second
	keys := make([]string, keyCount)
	for i := range keys {
		keys[i] = testKey(i)
	}
	setAll(t, client, keys)
	want, err := r.RouteBatch(keys)
	if err != nil {
		t.Fatal(err)
	}
	total, differFromCRC := 0, 0
	for s, addr := range addrs {
		found := onServer(t, addr, keys)
		total += len(found)
		for i, k := range keys {
			if found[k] != (want[i] == s) {
				t.Fatalf("%s: on %s %v, keyroute routes it to %s", k, addr, found[k], addrs[want[i]])
			}
		}
		t.Logf("%s (%s): %d keys", r.NodeID(s), addr, len(found))
	}
	for i, k := range keys {
		if want[i] != int(crc32.ChecksumIEEE([]byte(k))%uint32(len(addrs))) {
			differFromCRC++
		}
	}
	if total != keyCount {
		t.Fatalf("%d keys on the servers, %d set", total, keyCount)
	}
	// gomemcache's own ServerList would have placed these keys elsewhere: the selector was used.
	if differFromCRC < keyCount/4 {
		t.Fatalf("only %d keys differ from gomemcache's crc32 placement", differFromCRC)
	}
	fmt.Printf("gomemcache + keyroute (%s): %d keys on %d memcached servers where keyroute routes them (%d placed elsewhere by gomemcache's ServerList)\n",
		name, total, len(addrs), differFromCRC)
	// FlushAll reaches every server through the selector's Each.
	if err := client.FlushAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Get(keys[0]); !errors.Is(err, memcache.ErrCacheMiss) {
		t.Fatalf("after FlushAll: %v", err)
	}
}

// The native ring, node ids as addresses.
func TestGomemcacheRing(t *testing.T) {
	addrs := []string{startMemcached(t), startMemcached(t), startMemcached(t)}
	spec := keyroute.Spec{Algorithm: "ring"}
	for _, a := range addrs {
		spec.Nodes = append(spec.Nodes, keyroute.Node{ID: a})
	}
	r, err := keyroute.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	placed(t, "ring", r, addrs)
}

// spymemcached's ketama, host and port from the spec: a Go service on the ring of the Java
// services beside it.
func TestGomemcacheSpymemcached(t *testing.T) {
	addrs := []string{startMemcached(t), startMemcached(t), startMemcached(t)}
	spec := keyroute.Spec{Algorithm: "spymemcached"}
	for i, a := range addrs {
		host, port, _ := net.SplitHostPort(a)
		p, _ := strconv.Atoi(port)
		spec.Nodes = append(spec.Nodes, keyroute.Node{ID: "cache-" + strconv.Itoa(i), Host: host, Port: uint16(p)})
	}
	r, err := keyroute.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	placed(t, "spymemcached", r, addrs)
}
