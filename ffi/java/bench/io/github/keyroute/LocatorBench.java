// The NodeLocator part of ffi/java/bench.sh: getPrimary per call through keyroute's spymemcached
// NodeLocator (io.github.keyroute.spymemcached.KeyrouteNodeLocator: the spymemcached preset, and
// the native ring) against spymemcached 2.12's own KetamaNodeLocator, on the same N servers
// (10.0.x.y:11211, ketama hash, SPYMEMCACHED node keys) and the same keys, for N = 10, 100, 1000.
// The preset and KetamaNodeLocator are first checked to agree on every key.
//
// Keys: "user:NNNNNN" as Bench.java's (KEYS from the environment). Each measurement routes every
// key once per pass: one warm-up pass, then RUNS timed passes; it prints
// "java <name> <median ns/key> <fastest ns/key>" in this thread's CPU time (Bench.measure).
//
// Usage: java -cp jna.jar:spymemcached.jar:classes -Djna.library.path=DIR
//        io.github.keyroute.LocatorBench RUNS

package io.github.keyroute;

import io.github.keyroute.spymemcached.KeyrouteNodeLocator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;

public final class LocatorBench {
  static long sink = 0;

  static void measure(String name, int runs, String[] keys, NodeLocator locator) {
    Bench.measure(name, runs, () -> {
      long s = 0;
      for (String k : keys) {
        s += locator.getPrimary(k).hashCode() & 1;
      }
      return s;
    });
  }

  public static void main(String[] args) throws Exception {
    int runs = Integer.parseInt(args[0]);
    String[] keys = new String[Bench.KEYS];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = String.format("user:%06d", (i * 611_953L + 12_345) % 1_000_000);
    }
    for (int n : new int[] {10, 100, 1000}) {
      List<MemcachedNode> nodes = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String host = "10.0." + (i / 250) + "." + (i % 250 + 1);
        byte[] ip = InetAddress.getByName(host).getAddress(); // a literal: nothing is resolved
        nodes.add(Bench.node(new InetSocketAddress(InetAddress.getByAddress(ip), 11211)));
      }
      KetamaNodeLocator peer = new KetamaNodeLocator(nodes, DefaultHashAlgorithm.KETAMA_HASH);
      KeyrouteNodeLocator spy = KeyrouteNodeLocator.create("spymemcached", null, nodes);
      KeyrouteNodeLocator ring = KeyrouteNodeLocator.create("ring", null, nodes);
      for (String k : keys) {
        if (spy.getPrimary(k) != peer.getPrimary(k)) {
          throw new IllegalStateException("keyroute and spymemcached disagree on " + k + " at N = " + n);
        }
      }
      measure("locator-" + n + "-peer", runs, keys, peer);
      measure("locator-" + n + "-spymemcached", runs, keys, spy);
      measure("locator-" + n + "-ring", runs, keys, ring);
    }
    System.err.println("sink " + (sink + Bench.sink));
  }
}
