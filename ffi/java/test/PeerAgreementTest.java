// Java through the C ABI, against the real peers in the same JVM: for each topology, route the
// same random keys through keyroute (JNA -> libkeyroute.so) and through the peer library, and
// require identical answers for every key.
//
// Peers (Debian jars): spymemcached 2.12 KetamaNodeLocator (libspymemcached-java) and Guava
// Hashing.consistentHash (libguava-java). Nodes for spymemcached are java.lang.reflect.Proxy
// instances of MemcachedNode answering only getSocketAddress(); addresses come from
// InetAddress.getByAddress, so nothing is resolved through DNS (as in
// conformance/peers/spymemcached/Capture.java).
//
// Usage: java -cp jna.jar:spymemcached.jar:guava.jar:classes -Djna.library.path=DIR
//        PeerAgreementTest [keys per topology, default 100000] [seed]
// Prints one line per topology and closes with "N passed, M failed" (N, M: topologies).

import com.google.common.hash.Hashing;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import io.github.keyroute.KeyrouteException;
import io.github.keyroute.Router;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.util.DefaultKetamaNodeLocatorConfiguration;

public final class PeerAgreementTest {

  static int passed = 0;
  static int failed = 0;
  static long keysCompared = 0;

  // ------------------------------------------------------------------ random keys

  /** A random valid Unicode string (no lone surrogates): mostly ASCII, some 2-, 3- and 4-byte UTF-8. */
  static String randomKey(SplittableRandom rnd) {
    int shape = rnd.nextInt(10);
    if (shape < 4) {
      return "user:" + rnd.nextInt(100_000_000);
    }
    int len = rnd.nextInt(shape == 9 ? 200 : 24);
    StringBuilder sb = new StringBuilder(len);
    for (int i = 0; i < len; i++) {
      int kind = rnd.nextInt(16);
      int cp;
      if (kind < 10) {
        cp = 0x20 + rnd.nextInt(0x5f); // printable ASCII
      } else if (kind < 11) {
        cp = rnd.nextInt(0x20); // control characters, NUL included
      } else if (kind < 13) {
        cp = 0x80 + rnd.nextInt(0x800 - 0x80); // 2-byte UTF-8
      } else if (kind < 15) {
        do {
          cp = 0x800 + rnd.nextInt(0x10000 - 0x800); // 3-byte UTF-8, not a surrogate
        } while (cp >= 0xD800 && cp <= 0xDFFF);
      } else {
        cp = 0x10000 + rnd.nextInt(0x110000 - 0x10000); // 4-byte UTF-8 (a surrogate pair in Java)
      }
      sb.appendCodePoint(cp);
    }
    return sb.toString();
  }

  static void report(String name, int agree, int total, String firstMismatch) {
    report(name, agree, total, firstMismatch, "keys agree");
    keysCompared += total;
  }

  static void report(String name, int agree, int total, String firstMismatch, String unit) {
    boolean ok = agree == total && total > 0;
    if (ok) {
      passed++;
    } else {
      failed++;
    }
    System.out.printf("%-4s %-66s %d/%d %s%s%n", ok ? "ok" : "FAIL", name, agree, total, unit,
        firstMismatch == null ? "" : " (first mismatch: " + firstMismatch + ")");
  }

  static String show(String key) {
    StringBuilder sb = new StringBuilder("\"");
    key.codePoints().limit(40).forEach(cp -> {
      if (cp >= 0x20 && cp < 0x7f && cp != '"' && cp != '\\') {
        sb.append((char) cp);
      } else {
        sb.append(String.format("\\u{%x}", cp));
      }
    });
    return sb.append('"').toString();
  }

  // ------------------------------------------------------------------ spymemcached

  static final class Server {
    final String host;
    final int port;
    final int weight;
    final InetSocketAddress addr;
    MemcachedNode node;

    Server(String host, byte[] ip, String hostnameOrNull, int port, int weight) throws IOException {
      this.host = host;
      this.port = port;
      this.weight = weight;
      InetAddress ia = hostnameOrNull == null ? InetAddress.getByAddress(ip) : InetAddress.getByAddress(hostnameOrNull, ip);
      this.addr = new InetSocketAddress(ia, port);
    }
  }

  static byte[] ip(int a, int b, int c, int d) {
    return new byte[] {(byte) a, (byte) b, (byte) c, (byte) d};
  }

  static MemcachedNode proxyNode(InetSocketAddress addr) {
    InvocationHandler h = (Object proxy, Method m, Object[] args) -> {
      switch (m.getName()) {
        case "getSocketAddress":
          return addr;
        case "toString":
          return "node(" + addr + ")";
        case "hashCode":
          return System.identityHashCode(proxy);
        case "equals":
          return proxy == args[0];
        case "isActive":
          return Boolean.TRUE;
        default:
          throw new UnsupportedOperationException("MemcachedNode." + m.getName());
      }
    };
    return (MemcachedNode) Proxy.newProxyInstance(PeerAgreementTest.class.getClassLoader(), new Class<?>[] {MemcachedNode.class}, h);
  }

  static String hashName(DefaultHashAlgorithm h) {
    switch (h) {
      case KETAMA_HASH: return "ketama";
      case FNV1_32_HASH: return "fnv1_32";
      case FNV1A_32_HASH: return "fnv1a_32";
      case FNV1_64_HASH: return "fnv1_64";
      case FNV1A_64_HASH: return "fnv1a_64";
      case CRC_HASH: return "crc";
      case NATIVE_HASH: return "native";
      default: throw new IllegalStateException(h.toString());
    }
  }

  static String json(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') {
        sb.append('\\').append(ch);
      } else if (ch < 0x20) {
        sb.append(String.format("\\u%04x", (int) ch));
      } else {
        sb.append(ch);
      }
    }
    return sb.append('"').toString();
  }

  /**
   * One spymemcached topology: the real KetamaNodeLocator and keyroute's `spymemcached` preset
   * over the same servers; the spec's node `name` is the node key the real formatter prints.
   * Even-numbered topologies are built from spec JSON, odd ones with the C ABI's builder, and
   * the first checks that both give the same fingerprint.
   */
  static void spymemcached(String label, DefaultHashAlgorithm hash, KetamaNodeKeyFormatter.Format format, boolean weighted,
      List<Server> servers, List<String> keys, boolean useBuilder) {
    List<MemcachedNode> nodes = new ArrayList<>();
    Map<InetSocketAddress, Integer> weights = new HashMap<>();
    Map<MemcachedNode, Integer> index = new IdentityHashMap<>();
    for (Server s : servers) {
      s.node = proxyNode(s.addr);
      index.put(s.node, nodes.size());
      nodes.add(s.node);
      if (weighted) {
        weights.put(s.addr, s.weight);
      }
    }
    KetamaNodeKeyFormatter formatter = new KetamaNodeKeyFormatter(format);
    KetamaNodeLocator peer = new KetamaNodeLocator(nodes, hash, weights, new DefaultKetamaNodeLocatorConfiguration(formatter));

    String formatName = format == KetamaNodeKeyFormatter.Format.SPYMEMCACHED ? "spymemcached" : "libmemcached";
    String params = "{\"format\":" + json(formatName) + ",\"hash\":" + json(hashName(hash)) + ",\"weighted\":" + weighted + "}";
    StringBuilder spec = new StringBuilder("{\"algorithm\":\"spymemcached\",\"params\":" + params + ",\"nodes\":[");
    Router.Builder builder = Router.builder("spymemcached").params(params);
    for (int i = 0; i < servers.size(); i++) {
      Server s = servers.get(i);
      String k0 = formatter.getKeyForNode(s.node, 0);
      String name = k0.substring(0, k0.length() - 2); // minus "-0"
      String id = s.host + ":" + s.port;
      spec.append(i == 0 ? "" : ",").append("{\"id\":").append(json(id)).append(",\"host\":").append(json(s.host))
          .append(",\"port\":").append(s.port).append(",\"weight\":").append(s.weight).append(",\"name\":").append(json(name)).append('}');
      builder.node(id, s.weight, null).address(s.host, s.port).name(name);
    }
    spec.append("]}");

    String name = "spymemcached " + label + " (" + (useBuilder ? "builder" : "JSON") + ")";
    try (Router fromJson = Router.fromJson(spec.toString()); Router built = builder.build()) {
      builder.close();
      if (fromJson.fingerprint() != built.fingerprint()) {
        report(name + " builder/JSON fingerprint", 0, 1, "fingerprints differ", "checks pass");
        return;
      }
      Router kr = useBuilder ? built : fromJson;
      byte[][] bytes = utf8(keys);
      int[] batch = kr.routeBatch(bytes);
      int agree = 0;
      String first = null;
      for (int i = 0; i < bytes.length; i++) {
        int want = index.get(peer.getPrimary(keys.get(i)));
        // Every key through the batch path; every 10th also through single kr_route.
        boolean same = batch[i] == want && (i % 10 != 0 || kr.route(bytes[i]) == want);
        if (same) {
          agree++;
        } else if (first == null) {
          first = show(keys.get(i)) + " keyroute " + kr.nodeId(batch[i]) + " peer " + kr.nodeId(want);
        }
      }
      report(name, agree, bytes.length, first);
    } catch (KeyrouteException e) {
      report(name, 0, keys.size(), "keyroute refused the spec: " + e.getMessage());
    }
  }

  static void spymemcachedTopologies(List<String> keys) throws IOException {
    final KetamaNodeKeyFormatter.Format SPY = KetamaNodeKeyFormatter.Format.SPYMEMCACHED;
    final KetamaNodeKeyFormatter.Format LIB = KetamaNodeKeyFormatter.Format.LIBMEMCACHED;
    final DefaultHashAlgorithm K = DefaultHashAlgorithm.KETAMA_HASH;
    int[] smallPorts = {11211, 11211, 11212, 11213, 11211};
    List<Server> s;

    s = new ArrayList<>();
    for (int i = 0; i < 3; i++) s.add(new Server("10.0.0." + (i + 1), ip(10, 0, 0, i + 1), null, smallPorts[i], 1));
    spymemcached("ketama, 3 nodes", K, SPY, false, s, keys, false);

    s = new ArrayList<>();
    for (int i = 1; i <= 8; i++) s.add(new Server("10.0.1." + i, ip(10, 0, 1, i), null, 11211, 1));
    spymemcached("ketama, 8 nodes", K, SPY, false, s, keys, true);

    s = new ArrayList<>();
    for (int i = 1; i <= 60; i++) s.add(new Server("10.0.3." + i, ip(10, 0, 3, i), null, i % 2 == 0 ? 11212 : 11211, 1));
    spymemcached("ketama, 60 nodes", K, SPY, false, s, keys, false);

    s = new ArrayList<>();
    int[] w = {1, 2, 3, 5, 8};
    for (int i = 0; i < 5; i++) s.add(new Server("10.0.0." + (i + 1), ip(10, 0, 0, i + 1), null, smallPorts[i], w[i]));
    spymemcached("ketama, weighted 1,2,3,5,8", K, SPY, true, s, keys, true);

    s = new ArrayList<>();
    s.add(new Server("cache-a.example", ip(10, 0, 0, 1), "cache-a.example", 11211, 1));
    s.add(new Server("cache-b.example", ip(10, 0, 0, 2), "cache-b.example", 11211, 1));
    s.add(new Server("cache-c.example", ip(10, 0, 0, 3), "cache-c.example", 11212, 1));
    s.add(new Server("cache-d.example", ip(10, 0, 0, 4), "cache-d.example", 11213, 1));
    spymemcached("ketama, 4 hostnames (hostname/ip:port keys)", K, SPY, false, s, keys, false);

    s = new ArrayList<>();
    s.add(new Server("10.0.0.1", ip(10, 0, 0, 1), "10.0.0.1", 11211, 1));
    s.add(new Server("10.0.0.2", ip(10, 0, 0, 2), "10.0.0.2", 11211, 1));
    s.add(new Server("10.0.0.3", ip(10, 0, 0, 3), "10.0.0.3", 11212, 1));
    spymemcached("ketama, LIBMEMCACHED format, 3 nodes", K, LIB, false, s, keys, true);

    s = new ArrayList<>();
    s.add(new Server("localhost", ip(127, 0, 0, 1), "localhost", 11211, 8));
    s.add(new Server("localhost", ip(127, 0, 0, 1), "localhost", 11212, 8));
    spymemcached("ketama, LIBMEMCACHED format, weighted 8/8", K, LIB, true, s, keys, false);

    s = new ArrayList<>();
    for (int i = 0; i < 5; i++) s.add(new Server("127.0.0.1", ip(127, 0, 0, 1), null, 10000 + i, 1));
    spymemcached("fnv1a_32, 5 nodes", DefaultHashAlgorithm.FNV1A_32_HASH, SPY, false, s, keys, true);
  }

  // ------------------------------------------------------------------ guava

  static String guavaSpec(String keyHash, int buckets) {
    StringBuilder sb = new StringBuilder("{\"algorithm\":\"guava\",\"params\":{\"key_hash\":\"" + keyHash + "\"},\"nodes\":[");
    for (int i = 0; i < buckets; i++) {
      sb.append(i == 0 ? "" : ",").append("{\"id\":\"bucket-").append(i).append("\"}");
    }
    return sb.append("]}").toString();
  }

  static void guavaU64(int buckets, long[] inputs) {
    String name = "guava consistentHash(long), " + buckets + " buckets";
    try (Router kr = Router.fromJson(guavaSpec("u64be", buckets))) {
      byte[][] keys = new byte[inputs.length][];
      for (int i = 0; i < inputs.length; i++) {
        keys[i] = ByteBuffer.allocate(8).putLong(inputs[i]).array(); // big-endian
      }
      int[] batch = kr.routeBatch(keys);
      int agree = 0;
      String first = null;
      for (int i = 0; i < inputs.length; i++) {
        int want = Hashing.consistentHash(inputs[i], buckets);
        if (batch[i] == want && (i % 10 != 0 || kr.route(keys[i]) == want)) {
          agree++;
        } else if (first == null) {
          first = inputs[i] + " keyroute " + batch[i] + " peer " + want;
        }
      }
      report(name, agree, inputs.length, first);
    } catch (KeyrouteException e) {
      report(name, 0, inputs.length, "keyroute refused the spec: " + e.getMessage());
    }
  }

  /** The keys' UTF-8 bytes, in order. */
  static byte[][] utf8(List<String> keys) {
    byte[][] bytes = new byte[keys.size()][];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
    }
    return bytes;
  }

  static void guavaMurmur(int buckets, List<String> keys) {
    String name = "guava consistentHash(murmur3_128(key)), " + buckets + " buckets";
    try (Router kr = Router.fromJson(guavaSpec("murmur3_128", buckets))) {
      byte[][] bytes = utf8(keys);
      int[] batch = kr.routeBatch(bytes);
      int agree = 0;
      String first = null;
      for (int i = 0; i < bytes.length; i++) {
        int want = Hashing.consistentHash(Hashing.murmur3_128().hashString(keys.get(i), StandardCharsets.UTF_8), buckets);
        if (batch[i] == want && (i % 10 != 0 || kr.route(bytes[i]) == want)) {
          agree++;
        } else if (first == null) {
          first = show(keys.get(i)) + " keyroute " + batch[i] + " peer " + want;
        }
      }
      report(name, agree, bytes.length, first);
    } catch (KeyrouteException e) {
      report(name, 0, keys.size(), "keyroute refused the spec: " + e.getMessage());
    }
  }

  // ------------------------------------------------------------------ wrapper basics

  static void wrapperBasics() {
    String name = "wrapper: errors carry their codes; ids; replicas";
    boolean ok = true;
    try {
      Router.fromJson("{\"algorithm\":\"nope\",\"nodes\":[{\"id\":\"a\"}]}");
      ok = false;
    } catch (KeyrouteException e) {
      ok &= e.code() == 3 && e.codeName().equals("unknown_algorithm") && e.getMessage().contains("nope");
    }
    try (Router r = Router.fromJson("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\",\"zone\":\"z1\"},{\"id\":\"b\",\"zone\":\"z2\"}]}")) {
      byte[] k = "user:42".getBytes(StandardCharsets.UTF_8);
      int[] rep = r.replicas(k, 2);
      ok &= r.nodeCount() == 2 && rep[0] == r.route(k) && rep[0] != rep[1] && r.routeId(k).equals(r.nodeId(rep[0]));
      try {
        r.replicas(k, 3);
        ok = false;
      } catch (KeyrouteException e) {
        ok &= e.codeName().equals("replicas_exceed_nodes");
      }
    }
    report(name, ok ? 1 : 0, 1, ok ? null : "a wrapper check failed", "checks pass");
  }

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 20261129L;
    SplittableRandom rnd = new SplittableRandom(seed);
    List<String> keys = new ArrayList<>(count);
    keys.add(""); // the empty key, always
    while (keys.size() < count) {
      keys.add(randomKey(rnd));
    }
    long[] longs = new long[count];
    long[] edges = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 32, 0xffffffffL};
    for (int i = 0; i < count; i++) {
      longs[i] = i < edges.length ? edges[i] : rnd.nextLong();
    }
    System.out.println("keyroute via JNA vs the real peers: " + count + " random keys per topology, seed " + seed);

    wrapperBasics();
    spymemcachedTopologies(keys);
    for (int b : new int[] {1, 3, 10, 100, 1000, 10007}) {
      guavaU64(b, longs);
    }
    for (int b : new int[] {1, 3, 10, 100, 1000}) {
      guavaMurmur(b, keys);
    }
    System.out.println(keysCompared + " keys compared");
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
