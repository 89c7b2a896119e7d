// Capture golden key -> node vectors from the real spymemcached KetamaNodeLocator (Debian's
// libspymemcached-java). No connection is made: nodes are java.lang.reflect.Proxy instances of
// MemcachedNode that only answer getSocketAddress(); addresses are built with
// InetAddress.getByAddress, so nothing is ever resolved through DNS.
//
// Usage: java -cp spymemcached.jar:. Capture <out_dir> <keys_hex_file> <version> <captured_by>
// keys_hex_file: one key per line, lowercase hex of the UTF-8 bytes; an empty line is the empty key.

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.util.DefaultKetamaNodeLocatorConfiguration;

public final class Capture {

  /** One server: the host string shown in the spec, the address handed to spymemcached. */
  static final class Server {
    final String host;
    final int port;
    final int weight;
    final InetSocketAddress addr;
    MemcachedNode node;
    String name; // the node key the formatter produced (getKeyForNode(node, 0) minus "-0")

    Server(String host, byte[] ip, String hostnameOrNull, int port, int weight) throws IOException {
      this.host = host;
      this.port = port;
      this.weight = weight;
      InetAddress ia = hostnameOrNull == null ? InetAddress.getByAddress(ip) : InetAddress.getByAddress(hostnameOrNull, ip);
      this.addr = new InetSocketAddress(ia, port);
    }

    String id() {
      return host + ":" + port;
    }
  }

  static final class Config {
    final String id;
    final String description;
    final DefaultHashAlgorithm hash;
    final KetamaNodeKeyFormatter.Format format;
    final boolean weighted;
    /** Whether the spec carries each node's key as `name`; without, keyroute derives it from host and port. */
    boolean names = true;
    final List<Server> servers = new ArrayList<>();
    final Map<String, String> extra = new LinkedHashMap<>(); // case id -> key
    final Map<String, String> expect = new HashMap<>(); // key -> expected node id (upstream/spec checks)

    Config(String id, String description, DefaultHashAlgorithm hash, KetamaNodeKeyFormatter.Format format, boolean weighted) {
      this.id = id;
      this.description = description;
      this.hash = hash;
      this.format = format;
      this.weighted = weighted;
    }
  }

  /** The 16 bytes of an IPv6 literal (parsed by the JDK; no name is looked up for a literal). */
  static byte[] v6(String literal) throws IOException {
    byte[] b = InetAddress.getByName(literal).getAddress();
    if (b.length == 16) return b;
    // The JDK turns an IPv4-mapped literal into an IPv4 address: hand spymemcached the mapped form.
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xff;
    mapped[11] = (byte) 0xff;
    System.arraycopy(b, 0, mapped, 12, 4);
    return mapped;
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
          throw new UnsupportedOperationException("MemcachedNode." + m.getName() + " is not used by the capture");
      }
    };
    return (MemcachedNode) Proxy.newProxyInstance(Capture.class.getClassLoader(), new Class<?>[] {MemcachedNode.class}, h);
  }

  static final int[] SMALL_PORTS = {11211, 11211, 11212, 11213, 11211};

  /** 10.0.0.1.. with ports 11211, 11211, 11212, 11213, 11211 (IP-literal addresses, no hostname). */
  static void addSmall(Config c, int n, int[] weights) throws IOException {
    for (int i = 0; i < n; i++) {
      c.servers.add(new Server("10.0.0." + (i + 1), ip(10, 0, 0, i + 1), null, SMALL_PORTS[i], weights == null ? 1 : weights[i]));
    }
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

  static List<Config> configs() throws IOException {
    List<Config> out = new ArrayList<>();
    final KetamaNodeKeyFormatter.Format SPY = KetamaNodeKeyFormatter.Format.SPYMEMCACHED;
    final KetamaNodeKeyFormatter.Format LIB = KetamaNodeKeyFormatter.Format.LIBMEMCACHED;
    final DefaultHashAlgorithm K = DefaultHashAlgorithm.KETAMA_HASH;
    Config c;

    c = new Config("spymemcached-ketama-1", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, one node", K, SPY, false);
    addSmall(c, 1, null);
    out.add(c);

    c = new Config("spymemcached-ketama-3", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, 3 IP-literal nodes (node keys ip:port)", K, SPY, false);
    addSmall(c, 3, null);
    out.add(c);

    c = new Config("spymemcached-ketama-4", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, the 3-node topology plus 10.0.0.4:11213 (scale-out)", K, SPY, false);
    addSmall(c, 4, null);
    out.add(c);

    c = new Config("spymemcached-ketama-5", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, 5 IP-literal nodes", K, SPY, false);
    addSmall(c, 5, null);
    out.add(c);

    c = new Config("spymemcached-ketama-60", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, 60 nodes 10.0.3.1-60 (odd i on 11211, even i on 11212)", K, SPY, false);
    for (int i = 1; i <= 60; i++) {
      c.servers.add(new Server("10.0.3." + i, ip(10, 0, 3, i), null, i % 2 == 0 ? 11212 : 11211, 1));
    }
    out.add(c);

    c = new Config("spymemcached-ketama-weighted-5", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, weights map 1,2,3,5,8 (weighted ketama: 160-scaled binary32 point counts, MD5 points)", K, SPY, true);
    addSmall(c, 5, new int[] {1, 2, 3, 5, 8});
    out.add(c);

    c = new Config("spymemcached-ketama-ipv6", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, IPv6 literals: ::1, 2001:db8::a:1, 2001:db8:0:0:1::, the IPv4-compatible ::10.0.0.10 and the IPv4-mapped ::ffff:10.0.0.9 (which Java makes an IPv4 address); node keys as JDK 14+ prints them ([0:0:0:0:0:0:0:1]:11211, 10.0.0.9:11211), and no name in the spec: keyroute derives each from host and port", K, SPY, false);
    c.names = false;
    c.servers.add(new Server("::1", v6("::1"), null, 11211, 1));
    c.servers.add(new Server("2001:db8::a:1", v6("2001:db8::a:1"), null, 11212, 1));
    c.servers.add(new Server("2001:db8:0:0:1::", v6("2001:db8:0:0:1::"), null, 11211, 1));
    c.servers.add(new Server("::10.0.0.10", v6("::10.0.0.10"), null, 11211, 1));
    c.servers.add(new Server("::ffff:10.0.0.9", v6("::ffff:10.0.0.9"), null, 11211, 1));
    out.add(c);

    c = new Config("spymemcached-ketama-hostname-3", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, addresses carrying a hostname (node keys hostname/ip:port)", K, SPY, false);
    c.servers.add(new Server("cache-a.example", ip(10, 0, 0, 1), "cache-a.example", 11211, 1));
    c.servers.add(new Server("cache-b.example", ip(10, 0, 0, 2), "cache-b.example", 11211, 1));
    c.servers.add(new Server("cache-c.example", ip(10, 0, 0, 3), "cache-c.example", 11212, 1));
    out.add(c);

    c = new Config("spymemcached-libmemcached-format-2", "spymemcached KetamaNodeLocator, KETAMA_HASH, LIBMEMCACHED format, weights 8/8 on localhost(127.0.0.1):11211 and :11212 (upstream's test setup; hostname given, no reverse DNS)", K, LIB, true);
    c.servers.add(new Server("localhost", ip(127, 0, 0, 1), "localhost", 11211, 8));
    c.servers.add(new Server("localhost", ip(127, 0, 0, 1), "localhost", 11212, 8));
    c.extra.put("up-key1", "key1");
    c.extra.put("up-key2", "key2");
    c.extra.put("up-key3", "key3");
    c.extra.put("up-key4", "key4");
    c.expect.put("key1", "localhost:11212");
    c.expect.put("key2", "localhost:11211");
    c.expect.put("key3", "localhost:11212");
    c.expect.put("key4", "localhost:11212");
    out.add(c);

    c = new Config("spymemcached-libmemcached-format-3", "spymemcached KetamaNodeLocator, KETAMA_HASH, LIBMEMCACHED format, unweighted, 10.0.0.1:11211, 10.0.0.2:11211, 10.0.0.3:11212 (hostname set to the IP string: names 10.0.0.1-i, 10.0.0.3:11212-i)", K, LIB, false);
    c.servers.add(new Server("10.0.0.1", ip(10, 0, 0, 1), "10.0.0.1", 11211, 1));
    c.servers.add(new Server("10.0.0.2", ip(10, 0, 0, 2), "10.0.0.2", 11211, 1));
    c.servers.add(new Server("10.0.0.3", ip(10, 0, 0, 3), "10.0.0.3", 11212, 1));
    out.add(c);

    c = new Config("spymemcached-fnv1a32-5", "spymemcached KetamaNodeLocator, FNV1A_32_HASH (160 points per node, one per name; FNV over UTF-16 chars), SPYMEMCACHED format, unweighted, 127.0.0.1:10000-10004 (upstream's test nodes)", DefaultHashAlgorithm.FNV1A_32_HASH, SPY, false);
    for (int i = 0; i < 5; i++) c.servers.add(new Server("127.0.0.1", ip(127, 0, 0, 1), null, 10000 + i, 1));
    c.expect.put("dustin", "127.0.0.1:10002");
    c.expect.put("noelani", "127.0.0.1:10001");
    c.expect.put("some other key", "127.0.0.1:10004");
    out.add(c);

    c = new Config("spymemcached-ketama-upstream-4", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, 127.0.0.1:10000-10003 as IP literals (node keys 127.0.0.1:1000x, the JDK<=13 strings of upstream's test)", K, SPY, false);
    for (int i = 0; i < 4; i++) c.servers.add(new Server("127.0.0.1", ip(127, 0, 0, 1), null, 10000 + i, 1));
    c.extra.put("up-wrap-1", "V5XS8C8N");
    c.extra.put("up-wrap-2", "8KR2DKR2");
    c.extra.put("up-wrap-3", "L9KH6X4X");
    c.expect.put("dustin", "127.0.0.1:10000");
    c.expect.put("noelani", "127.0.0.1:10002");
    c.expect.put("some other key", "127.0.0.1:10000");
    c.expect.put("V5XS8C8N", "127.0.0.1:10003");
    c.expect.put("8KR2DKR2", "127.0.0.1:10003");
    c.expect.put("L9KH6X4X", "127.0.0.1:10003");
    out.add(c);

    c = new Config("spymemcached-ketama-upstream-5", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, 127.0.0.1:10000-10004 as IP literals (upstream's 5-node test)", K, SPY, false);
    for (int i = 0; i < 5; i++) c.servers.add(new Server("127.0.0.1", ip(127, 0, 0, 1), null, 10000 + i, 1));
    c.extra.put("up-36", "36");
    c.extra.put("up-10037", "10037");
    c.extra.put("up-22051", "22051");
    c.extra.put("up-49044", "49044");
    c.expect.put("36", "127.0.0.1:10002");
    c.expect.put("10037", "127.0.0.1:10003");
    c.expect.put("22051", "127.0.0.1:10001");
    c.expect.put("49044", "127.0.0.1:10004");
    c.expect.put("dustin", "127.0.0.1:10000");
    c.expect.put("noelani", "127.0.0.1:10002");
    c.expect.put("some other key", "127.0.0.1:10004");
    out.add(c);

    c = new Config("spymemcached-ketama-8", "spymemcached KetamaNodeLocator, KETAMA_HASH, SPYMEMCACHED format, unweighted, 10.0.1.1-8:11211 (upstream's libketama-compat test nodes)", K, SPY, false);
    for (int i = 1; i <= 8; i++) c.servers.add(new Server("10.0.1." + i, ip(10, 0, 1, i), null, 11211, 1));
    String[][] up8 = {{"0", "10.0.1.1"}, {"233", "10.0.1.7"}, {"466", "10.0.1.3"}, {"137470", "10.0.1.2"}, {"137703", "10.0.1.3"}, {"137936", "10.0.1.1"}};
    for (String[] kv : up8) {
      c.extra.put("up-" + kv[0], kv[0]);
      c.expect.put(kv[0], kv[1] + ":11211");
    }
    out.add(c);
    return out;
  }

  // ---------------------------------------------------------------- keys and JSON

  static final class Key {
    final String id;
    final byte[] bytes;
    final String text;

    Key(String id, byte[] bytes, String text) {
      this.id = id;
      this.bytes = bytes;
      this.text = text;
    }
  }

  static byte[] unhex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return b;
  }

  static String strictUtf8(byte[] b) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  static boolean printableAscii(byte[] b) {
    for (byte x : b) if (x < 0x20 || x > 0x7e) return false;
    return true;
  }

  static String json(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') sb.append('\\').append(ch);
      else if (ch < 0x20) sb.append(String.format("\\u%04x", (int) ch));
      else sb.append(ch);
    }
    return sb.append('"').toString();
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.toString();
  }

  static String caseJson(String id, byte[] bytes, String node) {
    String k = printableAscii(bytes) ? "\"key\": " + json(new String(bytes, StandardCharsets.US_ASCII)) : "\"key_hex\": \"" + hex(bytes) + "\"";
    return "{ \"id\": " + json(id) + ", " + k + ", \"node\": " + json(node) + " }";
  }

  // ---------------------------------------------------------------- capture

  @SuppressWarnings("unchecked")
  static TreeMap<Long, MemcachedNode> continuum(KetamaNodeLocator loc) throws ReflectiveOperationException {
    Method m = KetamaNodeLocator.class.getDeclaredMethod("getKetamaNodes");
    m.setAccessible(true);
    return (TreeMap<Long, MemcachedNode>) m.invoke(loc);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: Capture <out_dir> <keys_hex_file> <version> <captured_by>");
      System.exit(2);
    }
    Path outDir = Paths.get(args[0]);
    List<Key> keys = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    List<String> lines = Files.readAllLines(Paths.get(args[1]), StandardCharsets.US_ASCII);
    for (int i = 0; i < lines.size(); i++) {
      String id = String.format("k%03d", i);
      byte[] b = unhex(lines.get(i).trim());
      String text = strictUtf8(b);
      if (text == null) {
        skipped.add(id);
        continue;
      }
      keys.add(new Key(id, b, text));
    }
    if (!skipped.isEmpty()) System.out.println("skipped (not valid UTF-8, spymemcached keys are Strings): " + skipped);
    String version = args[2];
    String capturedBy = args[3];
    int failures = 0;

    for (Config c : configs()) {
      List<MemcachedNode> nodes = new ArrayList<>();
      Map<InetSocketAddress, Integer> weights = new HashMap<>();
      Map<MemcachedNode, Server> byNode = new HashMap<>();
      for (Server s : c.servers) {
        s.node = proxyNode(s.addr);
        nodes.add(s.node);
        byNode.put(s.node, s);
        if (c.weighted) weights.put(s.addr, s.weight);
      }
      KetamaNodeKeyFormatter fmt = new KetamaNodeKeyFormatter(c.format);
      KetamaNodeLocator loc = new KetamaNodeLocator(nodes, c.hash, weights, new DefaultKetamaNodeLocatorConfiguration(fmt));
      for (Server s : c.servers) {
        String k0 = fmt.getKeyForNode(s.node, 0);
        if (!k0.endsWith("-0")) throw new IllegalStateException("unexpected node key " + k0);
        s.name = k0.substring(0, k0.length() - 2);
      }
      TreeMap<Long, MemcachedNode> cont = continuum(loc);
      int expectedPoints = 0;
      if (!c.weighted) {
        expectedPoints = 160 * c.servers.size();
      } else {
        expectedPoints = -1; // weighted: computed by spymemcached's binary32 formula
      }
      long maxPoint = cont.lastKey();

      List<String> cases = new ArrayList<>();
      int n = 0;
      for (Key k : keys) {
        Server s = byNode.get(loc.getPrimary(k.text));
        cases.add(caseJson(k.id, k.bytes, s.id()));
        String want = c.expect.get(k.text);
        if (want != null && !want.equals(s.id())) {
          System.out.println("MISMATCH " + c.id + " key " + k.text + " got " + s.id() + " want " + want);
          failures++;
        }
        n++;
      }
      for (Map.Entry<String, String> e : c.extra.entrySet()) {
        Server s = byNode.get(loc.getPrimary(e.getValue()));
        cases.add(caseJson(e.getKey(), e.getValue().getBytes(StandardCharsets.UTF_8), s.id()));
        String want = c.expect.get(e.getValue());
        if (want != null && !want.equals(s.id())) {
          System.out.println("MISMATCH " + c.id + " key " + e.getValue() + " got " + s.id() + " want " + want);
          failures++;
        }
        n++;
      }
      String wrap = null;
      if (c.servers.size() > 1) {
        for (int i = 0; i < 10_000_000; i++) {
          String w = "wrap-" + i;
          if (c.hash.hash(w) > maxPoint) {
            wrap = w;
            break;
          }
        }
        if (wrap != null) {
          MemcachedNode got = loc.getPrimary(wrap);
          if (got != cont.firstEntry().getValue()) throw new IllegalStateException("wrap key did not land on the first point");
          cases.add(caseJson("wrap", wrap.getBytes(StandardCharsets.UTF_8), byNode.get(got).id()));
          n++;
        }
      }

      StringBuilder sb = new StringBuilder();
      sb.append("{\n  \"id\": ").append(json(c.id)).append(",\n");
      sb.append("  \"description\": ").append(json(c.description)).append(",\n");
      sb.append("  \"provenance\": {\n    \"kind\": \"peer\",\n    \"peer\": \"spymemcached\",\n");
      sb.append("    \"version\": ").append(json(version)).append(",\n");
      sb.append("    \"captured_by\": ").append(json(capturedBy)).append("\n  },\n");
      sb.append("  \"spec\": {\n    \"algorithm\": \"spymemcached\",\n");
      sb.append("    \"params\": { \"format\": ").append(json(c.format == KetamaNodeKeyFormatter.Format.SPYMEMCACHED ? "spymemcached" : "libmemcached"))
          .append(", \"hash\": ").append(json(hashName(c.hash))).append(", \"weighted\": ").append(c.weighted).append(" },\n");
      sb.append("    \"nodes\": [");
      for (int i = 0; i < c.servers.size(); i++) {
        Server s = c.servers.get(i);
        sb.append(i == 0 ? "\n      " : ",\n      ");
        sb.append("{ \"id\": ").append(json(s.id())).append(", \"host\": ").append(json(s.host)).append(", \"port\": ").append(s.port)
            .append(", \"weight\": ").append(s.weight);
        if (c.names) sb.append(", \"name\": ").append(json(s.name));
        sb.append(" }");
      }
      sb.append("\n    ]\n  },\n  \"cases\": [");
      for (int i = 0; i < cases.size(); i++) sb.append(i == 0 ? "\n    " : ",\n    ").append(cases.get(i));
      sb.append("\n  ]\n}\n");
      Files.write(outDir.resolve(c.id + ".json"), sb.toString().getBytes(StandardCharsets.UTF_8));

      StringBuilder names = new StringBuilder();
      for (int i = 0; i < Math.min(3, c.servers.size()); i++) names.append(i == 0 ? "" : ", ").append(c.servers.get(i).name);
      System.out.printf("%-36s nodes=%-3d cases=%-4d points=%d%s max=%d wrap=%s names=[%s%s]%n", c.id, c.servers.size(), n, cont.size(),
          expectedPoints > 0 && cont.size() != expectedPoints ? " (collisions: " + (expectedPoints - cont.size()) + ")" : "", maxPoint,
          wrap == null ? "-" : wrap, names, c.servers.size() > 3 ? ", ..." : "");
    }
    if (failures > 0) {
      System.out.println(failures + " upstream/spec expectation(s) failed");
      System.exit(1);
    }
    System.out.println("all upstream/spec expectations matched");
  }
}
