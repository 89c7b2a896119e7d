// The Java side of ffi/java/bench.sh: the per-key cost of routing through the Java package (JNA
// direct mapping into libkeyroute.so), against spymemcached's own KetamaNodeLocator.getPrimary on
// the same nodes and keys, and broken down into what a JNA call costs. The Rust side
// (core_route.rs) routes the same keys on the same specs, which this writes out as JSON files.
//
// Topologies: "ring" (ring-v1, 1000 nodes x 160 points: ffi/bench's topology) and "spy"
// (keyroute's spymemcached preset and spymemcached 2.12's KetamaNodeLocator over the same 1000
// servers 10.0.x.y:11211, ketama hash, SPYMEMCACHED node keys: 160 points per server).
// Keys: "user:NNNNNN" (NNNNNN = 611953*i + 12345 mod 10^6, i < KEYS from the environment, else
// 1,000,000), as String and as UTF-8.
//
// Each measurement routes every key once per pass: WARMUP passes (JIT, caches), then RUNS timed
// passes; it prints "java <name> <median ns/key> <fastest ns/key>" in this thread's CPU time.
// keyroute and the peer are first checked to agree on every key, and every pass sums its
// answers into a sink so that nothing is optimised away.
//
// Usage: java -cp jna.jar:spymemcached.jar:classes -Djna.library.path=DIR
//        io.github.keyroute.Bench RUNS SPECDIR

package io.github.keyroute;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.util.DefaultKetamaNodeLocatorConfiguration;

public final class Bench {
  static final int KEYS = Integer.parseInt(System.getenv().getOrDefault("KEYS", "1000000"));
  static final int NODES = 1000;
  static final int BATCH = 1024;
  static final int WARMUP = 1;
  static long sink = 0;

  /** kr_route through JNA's interface mapping (a Proxy and reflection per call), for contrast. */
  public interface InterfaceLib extends Library {
    /** As keyroute.h. */
    int kr_route(Pointer router, byte[] key, long keyLen, IntByReference node);
  }

  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * Times passes in this thread's CPU time (the Rust side reads the same clock): on a machine
   * shared with other work, wall time also counts the time other processes ran.
   */
  static void measure(String name, int runs, LongSupplier pass) {
    for (int i = 0; i < WARMUP; i++) {
      sink += pass.getAsLong();
    }
    double[] t = new double[runs];
    for (int i = 0; i < runs; i++) {
      long start = THREADS.getCurrentThreadCpuTime();
      sink += pass.getAsLong();
      t[i] = (THREADS.getCurrentThreadCpuTime() - start) / (double) KEYS;
    }
    Arrays.sort(t);
    System.out.printf("java %s %.2f %.2f%n", name, t[runs / 2], t[0]);
  }

  static MemcachedNode node(InetSocketAddress addr) {
    return (MemcachedNode) Proxy.newProxyInstance(Bench.class.getClassLoader(), new Class<?>[] {MemcachedNode.class},
        (proxy, m, args) -> {
          switch (m.getName()) {
            case "getSocketAddress":
              return addr;
            case "hashCode":
              return System.identityHashCode(proxy);
            case "equals":
              return proxy == args[0];
            case "toString":
              return "node(" + addr + ")";
            default:
              throw new UnsupportedOperationException(m.getName());
          }
        });
  }

  public static void main(String[] args) throws Exception {
    int runs = Integer.parseInt(args[0]);
    Path specDir = Paths.get(args[1]);
    String[] keys = new String[KEYS];
    byte[][] bytes = new byte[KEYS][];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = String.format("user:%06d", (i * 611_953L + 12_345) % 1_000_000);
      bytes[i] = keys[i].getBytes(StandardCharsets.UTF_8);
    }
    byte[][][] chunks = new byte[(KEYS + BATCH - 1) / BATCH][][];
    for (int c = 0; c < chunks.length; c++) {
      chunks[c] = Arrays.copyOfRange(bytes, c * BATCH, Math.min(KEYS, (c + 1) * BATCH));
    }

    // ring-v1, 1000 x 160 (ffi/bench's topology).
    StringBuilder ringSpec = new StringBuilder("{\"algorithm\":\"ring\",\"params\":{\"points_per_weight\":160},\"nodes\":[");
    for (int i = 0; i < NODES; i++) {
      ringSpec.append(i == 0 ? "" : ",").append("{\"id\":\"cache-").append(i).append("\"}");
    }
    ringSpec.append("]}");

    // spymemcached: the same 1000 servers for the preset and the real locator.
    List<MemcachedNode> nodes = new ArrayList<>();
    Map<MemcachedNode, Integer> index = new IdentityHashMap<>();
    KetamaNodeKeyFormatter formatter = new KetamaNodeKeyFormatter(KetamaNodeKeyFormatter.Format.SPYMEMCACHED);
    StringBuilder spySpec = new StringBuilder("{\"algorithm\":\"spymemcached\",\"params\":{\"format\":\"spymemcached\","
        + "\"hash\":\"ketama\",\"weighted\":false},\"nodes\":[");
    for (int i = 0; i < NODES; i++) {
      String host = "10.0." + (i / 250) + "." + (i % 250 + 1);
      byte[] ip = InetAddress.getByName(host).getAddress(); // a literal: nothing is resolved
      MemcachedNode n = node(new InetSocketAddress(InetAddress.getByAddress(ip), 11211));
      index.put(n, i);
      nodes.add(n);
      String k0 = formatter.getKeyForNode(n, 0);
      spySpec.append(i == 0 ? "" : ",").append("{\"id\":\"").append(host).append(":11211\",\"host\":\"").append(host)
          .append("\",\"port\":11211,\"name\":\"").append(k0, 0, k0.length() - 2).append("\"}");
    }
    spySpec.append("]}");
    KetamaNodeLocator peer = new KetamaNodeLocator(nodes, DefaultHashAlgorithm.KETAMA_HASH, new HashMap<>(),
        new DefaultKetamaNodeLocatorConfiguration(formatter));
    Files.writeString(specDir.resolve("ring.json"), ringSpec);
    Files.writeString(specDir.resolve("spy.json"), spySpec);

    InterfaceLib viaInterface = Native.load(Keyroute.librarySource().startsWith("jar:") ? "keyroute"
        : Keyroute.librarySource(), InterfaceLib.class);

    try (Router ring = Router.fromJson(ringSpec.toString()); Router spy = Router.fromJson(spySpec.toString())) {
      // Every answer checked once: the preset against the real locator.
      int[] all = spy.routeBatch(bytes);
      for (int i = 0; i < KEYS; i++) {
        if (all[i] != index.get(peer.getPrimary(keys[i])) || spy.route(keys[i]) != all[i]) {
          throw new IllegalStateException("keyroute and spymemcached disagree on " + keys[i]);
        }
      }
      for (Router r : new Router[] {ring, spy}) {
        String t = r == ring ? "ring" : "spy";
        measure(t + "-route-bytes", runs, () -> {
          long s = 0;
          for (byte[] k : bytes) {
            s += r.route(k);
          }
          return s;
        });
        measure(t + "-route-string", runs, () -> {
          long s = 0;
          for (String k : keys) {
            s += r.route(k);
          }
          return s;
        });
        measure(t + "-route-string-utf8", runs, () -> {
          long s = 0;
          for (String k : keys) {
            s += r.route(KrLibrary.key(k)); // the strict UTF-8 encoding the other String methods use
          }
          return s;
        });
        measure(t + "-batch", runs, () -> {
          long s = 0;
          for (byte[][] c : chunks) {
            s += r.routeBatch(c)[0];
          }
          return s;
        });
      }
      // A route through a live view of the ring spec (its id, from the ids the LiveView keeps
      // per version) against the plain router's ids: routeId, and route(byte[]) into a Java copy
      // of the node ids (the fastest way to an id from a plain router).
      try (LiveView live = new LiveView()) {
        live.publish("{\"version\":1,\"spec\":" + ringSpec + "}");
        String[] ids = ring.nodeIds().toArray(new String[0]);
        for (int i = 0; i < KEYS; i += 997) {
          if (!live.routeId(bytes[i]).equals(ids[ring.route(bytes[i])])) {
            throw new IllegalStateException("the live view and the router disagree on " + keys[i]);
          }
        }
        for (int round = 0; round < 3; round++) {
          measure("ring-ids-route-bytes", runs, () -> {
            long s = 0;
            for (byte[] k : bytes) {
              s += ids[ring.route(k)].length();
            }
            return s;
          });
          measure("ring-routeId-bytes", runs, () -> {
            long s = 0;
            for (byte[] k : bytes) {
              s += ring.routeId(k).length();
            }
            return s;
          });
          measure("live-routeId-bytes", runs, () -> {
            long s = 0;
            for (byte[] k : bytes) {
              s += live.routeId(k).length();
            }
            return s;
          });
        }
      }
      measure("spy-peer-getPrimary", runs, () -> {
        long s = 0;
        for (String k : keys) {
          s += peer.getPrimary(k).hashCode() & 1;
        }
        return s;
      });
      // What a call costs, on the ring: the raw direct-mapped kr_route (no handle guard), and
      // a call that does no work (kr_router_node_count) through the raw mapping and the wrapper.
      long p = ring.handle.enter();
      try {
        int[] out = new int[1];
        measure("ring-raw-kr_route", runs, () -> {
          long s = 0;
          for (byte[] k : bytes) {
            KrNative.kr_route(p, k, k.length, out);
            s += out[0];
          }
          return s;
        });
        measure("floor-raw-kr_router_node_count", runs, () -> {
          long s = 0;
          for (int i = 0; i < KEYS; i++) {
            KrNative.kr_router_node_count(p, out);
            s += out[0];
          }
          return s;
        });
        Pointer ptr = new Pointer(p);
        IntByReference ref = new IntByReference();
        measure("ring-interface-kr_route", runs, () -> {
          long s = 0;
          for (byte[] k : bytes) {
            viaInterface.kr_route(ptr, k, k.length, ref);
            s += ref.getValue();
          }
          return s;
        });
      } finally {
        ring.handle.leave();
      }
      measure("floor-wrapper-nodeCount", runs, () -> {
        long s = 0;
        for (int i = 0; i < KEYS; i++) {
          s += ring.nodeCount();
        }
        return s;
      });
    }
    System.err.println("sink " + sink);
  }
}
