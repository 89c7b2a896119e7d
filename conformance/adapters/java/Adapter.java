// The reference conformance adapter (conformance/PROTOCOL.md, protocol 1) in plain Java, with no
// keyroute inside: it answers `keyroute conformance --exec` by driving the real spymemcached
// KetamaNodeLocator and Guava's Hashing.consistentHash (Debian's libspymemcached-java and
// libguava-java), the way a Java service calls them. It is also the example to copy when writing
// an adapter for another router: a JSON reader and writer, the handshake, one router per spec
// message, one answer line per route message.
//
// Usage: java -cp spymemcached.jar:guava.jar:CLASSES Adapter [--latin1]
//   --latin1  a deliberate bug, for the runner's diagnosis: each key's bytes are read as
//             Latin-1 text (new String(bytes, ISO_8859_1)) instead of taking the UTF-8 text,
//             as code that decodes bytes with the wrong charset does.
//
// Nothing is ever resolved through DNS: spymemcached's nodes are java.lang.reflect.Proxy
// instances of MemcachedNode that only answer getSocketAddress(), with addresses built by
// InetAddress.getByAddress from the spec's host (and, for a host name, the address recorded in
// the node's `name`).

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.common.hash.Hashing;

import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.util.DefaultKetamaNodeLocatorConfiguration;

public final class Adapter {

  /** The protocol version this adapter speaks. */
  static final long PROTOCOL = 1;

  /** A router built from one spec message: a key's bytes and UTF-8 text in, a result out. */
  interface Router {
    Map<String, Object> route(byte[] bytes, String text);
  }

  /** A spec this adapter cannot build: answered with "unsupported". */
  static final class Unsupported extends Exception {
    private static final long serialVersionUID = 1L;

    Unsupported(String reason) {
      super(reason);
    }
  }

  static boolean latin1 = false;

  public static void main(String[] args) throws IOException {
    for (String a : args) {
      if (a.equals("--latin1")) {
        latin1 = true;
      } else {
        System.err.println("usage: Adapter [--latin1]");
        System.exit(2);
      }
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
    Router router = null;
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      Map<String, Object> msg = Json.object(Json.parse(line));
      String type = (String) msg.get("type");
      Map<String, Object> reply = new LinkedHashMap<>();
      switch (type == null ? "" : type) {
        case "hello": {
          List<Object> offered = Json.list(msg.get("protocol"));
          if (!offered.contains(PROTOCOL)) {
            reply.put("type", "refuse");
            reply.put("reason", "this adapter speaks protocol " + PROTOCOL + " only; offered " + Json.write(offered));
            send(out, reply);
            return;
          }
          reply.put("type", "hello");
          reply.put("protocol", PROTOCOL);
          reply.put("adapter", "the reference Java adapter (spymemcached KetamaNodeLocator, Guava consistentHash)"
              + (latin1 ? ", keys read as Latin-1" : ""));
          reply.put("algorithms", List.of("spymemcached", "guava"));
          break;
        }
        case "spec": {
          Map<String, Object> spec = Json.object(msg.get("spec"));
          try {
            router = build(spec);
            reply.put("type", "ready");
          } catch (Unsupported e) {
            router = null;
            reply.put("type", "unsupported");
            reply.put("reason", e.getMessage());
          }
          break;
        }
        case "route": {
          List<Object> results = new ArrayList<>();
          for (Object k : Json.list(msg.get("keys"))) {
            Map<String, Object> key = Json.object(k);
            byte[] bytes = unhex((String) key.get("hex"));
            String text = latin1 ? new String(bytes, StandardCharsets.ISO_8859_1) : (String) key.get("utf8");
            results.add(router == null ? error("invalid_argument") : router.route(bytes, text));
          }
          reply.put("type", "routed");
          reply.put("results", results);
          break;
        }
        case "bye":
          return;
        default:
          System.err.println("Adapter: unknown message type " + type);
          System.exit(2);
      }
      send(out, reply);
    }
  }

  static void send(PrintWriter out, Map<String, Object> reply) {
    out.print(Json.write(reply));
    out.print('\n');
    out.flush();
  }

  static Map<String, Object> error(String name) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("error", name);
    return r;
  }

  static Map<String, Object> node(String id) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("node", id);
    return r;
  }

  static Router build(Map<String, Object> spec) throws Unsupported {
    String algorithm = String.valueOf(spec.get("algorithm"));
    Map<String, Object> params = spec.get("params") == null ? Map.of() : Json.object(spec.get("params"));
    List<Object> nodes = Json.list(spec.get("nodes"));
    switch (algorithm) {
      case "spymemcached":
        return spymemcached(params, nodes);
      case "guava":
        return guava(params, nodes);
      default:
        throw new Unsupported("this adapter drives spymemcached and Guava only, not " + algorithm);
    }
  }

  // ---------------------------------------------------------------- spymemcached

  static Router spymemcached(Map<String, Object> params, List<Object> nodes) throws Unsupported {
    for (String p : params.keySet()) {
      if (!List.of("format", "hash", "weighted").contains(p)) throw new Unsupported("unknown parameter " + p);
    }
    String formatName = String.valueOf(params.getOrDefault("format", "spymemcached"));
    KetamaNodeKeyFormatter.Format format;
    if (formatName.equals("spymemcached")) format = KetamaNodeKeyFormatter.Format.SPYMEMCACHED;
    else if (formatName.equals("libmemcached")) format = KetamaNodeKeyFormatter.Format.LIBMEMCACHED;
    else throw new Unsupported("format " + formatName);
    DefaultHashAlgorithm hash = hashAlgorithm(String.valueOf(params.getOrDefault("hash", "ketama")));
    boolean weighted = Boolean.TRUE.equals(params.get("weighted"));

    List<MemcachedNode> locatorNodes = new ArrayList<>();
    Map<InetSocketAddress, Integer> weights = new HashMap<>();
    Map<MemcachedNode, String> ids = new HashMap<>();
    for (Object o : nodes) {
      Map<String, Object> n = Json.object(o);
      String id = (String) n.get("id");
      String host = n.get("host") == null ? null : String.valueOf(n.get("host"));
      if (host == null) throw new Unsupported("node " + id + " has no host");
      int port = n.get("port") == null ? 11211 : ((Number) n.get("port")).intValue();
      int weight = n.get("weight") == null ? 1 : ((Number) n.get("weight")).intValue();
      String name = n.get("name") == null ? null : String.valueOf(n.get("name"));
      InetSocketAddress addr = address(format, host, port, name);
      MemcachedNode node = proxyNode(addr);
      locatorNodes.add(node);
      ids.put(node, id);
      if (weighted) weights.put(addr, weight);
    }
    KetamaNodeLocator locator = new KetamaNodeLocator(locatorNodes, hash, weights,
        new DefaultKetamaNodeLocatorConfiguration(new KetamaNodeKeyFormatter(format)));
    return (bytes, text) -> text == null ? error("invalid_key") : node(ids.get(locator.getPrimary(text)));
  }

  static DefaultHashAlgorithm hashAlgorithm(String name) throws Unsupported {
    switch (name) {
      case "ketama": return DefaultHashAlgorithm.KETAMA_HASH;
      case "native": return DefaultHashAlgorithm.NATIVE_HASH;
      case "crc": return DefaultHashAlgorithm.CRC_HASH;
      case "fnv1_64": return DefaultHashAlgorithm.FNV1_64_HASH;
      case "fnv1a_64": return DefaultHashAlgorithm.FNV1A_64_HASH;
      case "fnv1_32": return DefaultHashAlgorithm.FNV1_32_HASH;
      case "fnv1a_32": return DefaultHashAlgorithm.FNV1A_32_HASH;
      default: throw new Unsupported("hash " + name);
    }
  }

  /**
   * The address spymemcached would hold for a server, without DNS. The LIBMEMCACHED format names
   * a node by its host name, so the host is handed over as the address's name. The SPYMEMCACHED
   * format names it by InetSocketAddress.toString(): "ip:port" for an IPv4 literal, "[ip]:port"
   * for an IPv6 one, and "hostname/ip:port" for a host name, with the address DNS gave, which the
   * spec keeps in `name`.
   */
  static InetSocketAddress address(KetamaNodeKeyFormatter.Format format, String host, int port, String name) throws Unsupported {
    byte[] ip = ipv4(host);
    try {
      if (format == KetamaNodeKeyFormatter.Format.LIBMEMCACHED) {
        return new InetSocketAddress(InetAddress.getByAddress(host, ip != null ? ip : new byte[] {127, 0, 0, 1}), port);
      }
      if (ip != null) return new InetSocketAddress(InetAddress.getByAddress(ip), port);
      if (host.indexOf(':') >= 0) {
        // An IPv6 literal, with or without brackets: the JDK parses it without a lookup (and
        // makes an IPv4-mapped one an IPv4 address, as spymemcached's own would be).
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return new InetSocketAddress(InetAddress.getByName(literal), port);
      }
      String prefix = host + "/";
      byte[] resolved = name != null && name.startsWith(prefix) && name.lastIndexOf(':') > prefix.length()
          ? ipv4(name.substring(prefix.length(), name.lastIndexOf(':'))) : null;
      if (resolved == null) throw new Unsupported("host name " + host + " without its address in the node's name");
      return new InetSocketAddress(InetAddress.getByAddress(host, resolved), port);
    } catch (java.net.UnknownHostException e) {
      throw new Unsupported("address " + host + ": " + e.getMessage());
    }
  }

  /** The four bytes of a dotted IPv4 literal, or null. */
  static byte[] ipv4(String s) {
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) return null;
    byte[] b = new byte[4];
    for (int i = 0; i < 4; i++) {
      if (!parts[i].matches("[0-9]{1,3}")) return null;
      int v = Integer.parseInt(parts[i]);
      if (v > 255) return null;
      b[i] = (byte) v;
    }
    return b;
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
          throw new UnsupportedOperationException("MemcachedNode." + m.getName() + " is not used by the adapter");
      }
    };
    return (MemcachedNode) Proxy.newProxyInstance(Adapter.class.getClassLoader(), new Class<?>[] {MemcachedNode.class}, h);
  }

  // ---------------------------------------------------------------- Guava

  static Router guava(Map<String, Object> params, List<Object> nodes) throws Unsupported {
    for (String p : params.keySet()) {
      if (!p.equals("key_hash")) throw new Unsupported("unknown parameter " + p);
    }
    String keyHash = String.valueOf(params.getOrDefault("key_hash", "murmur3_128"));
    List<String> ids = new ArrayList<>();
    for (Object o : nodes) ids.add((String) Json.object(o).get("id"));
    int buckets = ids.size();
    switch (keyHash) {
      case "u64be":
        // consistentHash(long, buckets): the key is the long's 8 big-endian bytes.
        return (bytes, text) -> bytes.length != 8 ? error("invalid_key")
            : node(ids.get(Hashing.consistentHash(ByteBuffer.wrap(bytes).getLong(), buckets)));
      case "murmur3_128":
        // consistentHash(murmur3_128().hashString(key, UTF_8), buckets), as a service with String keys writes it.
        return (bytes, text) -> node(ids.get(Hashing.consistentHash(
            text != null ? Hashing.murmur3_128().hashString(text, StandardCharsets.UTF_8) : Hashing.murmur3_128().hashBytes(bytes),
            buckets)));
      default:
        throw new Unsupported("key_hash " + keyHash);
    }
  }

  // ---------------------------------------------------------------- hex

  static byte[] unhex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return b;
  }

  // ---------------------------------------------------------------- JSON

  /** Just enough JSON for the protocol: objects, arrays, strings, integers, doubles, booleans, null. */
  static final class Json {
    private final String s;
    private int i;

    private Json(String s) {
      this.s = s;
    }

    static Object parse(String text) {
      Json p = new Json(text);
      Object v = p.value();
      p.space();
      if (p.i != text.length()) throw new IllegalArgumentException("trailing text at " + p.i);
      return v;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object o) {
      if (!(o instanceof Map)) throw new IllegalArgumentException("not an object: " + o);
      return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
      if (!(o instanceof List)) throw new IllegalArgumentException("not an array: " + o);
      return (List<Object>) o;
    }

    private void space() {
      while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
    }

    private char peek() {
      if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
      return s.charAt(i);
    }

    private void expect(String word) {
      if (!s.startsWith(word, i)) throw new IllegalArgumentException("expected " + word + " at " + i);
      i += word.length();
    }

    private Object value() {
      space();
      char c = peek();
      switch (c) {
        case '{': {
          i++;
          Map<String, Object> m = new LinkedHashMap<>();
          space();
          if (peek() == '}') {
            i++;
            return m;
          }
          while (true) {
            space();
            String k = string();
            space();
            expect(":");
            m.put(k, value());
            space();
            if (peek() == ',') {
              i++;
              continue;
            }
            expect("}");
            return m;
          }
        }
        case '[': {
          i++;
          List<Object> l = new ArrayList<>();
          space();
          if (peek() == ']') {
            i++;
            return l;
          }
          while (true) {
            l.add(value());
            space();
            if (peek() == ',') {
              i++;
              continue;
            }
            expect("]");
            return l;
          }
        }
        case '"':
          return string();
        case 't':
          expect("true");
          return Boolean.TRUE;
        case 'f':
          expect("false");
          return Boolean.FALSE;
        case 'n':
          expect("null");
          return null;
        default:
          return number();
      }
    }

    private String string() {
      expect("\"");
      StringBuilder sb = new StringBuilder();
      while (true) {
        char c = peek();
        i++;
        if (c == '"') return sb.toString();
        if (c != '\\') {
          sb.append(c);
          continue;
        }
        char e = peek();
        i++;
        switch (e) {
          case 'n': sb.append('\n'); break;
          case 't': sb.append('\t'); break;
          case 'r': sb.append('\r'); break;
          case 'b': sb.append('\b'); break;
          case 'f': sb.append('\f'); break;
          case 'u':
            sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
            break;
          default: sb.append(e);
        }
      }
    }

    private Object number() {
      int start = i;
      while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
      String n = s.substring(start, i);
      if (n.isEmpty()) throw new IllegalArgumentException("unexpected " + peek() + " at " + start);
      if (n.matches("-?[0-9]+")) return Long.parseLong(n);
      return Double.parseDouble(n);
    }

    static String write(Object v) {
      StringBuilder sb = new StringBuilder();
      write(sb, v);
      return sb.toString();
    }

    private static void write(StringBuilder sb, Object v) {
      if (v == null) {
        sb.append("null");
      } else if (v instanceof String) {
        sb.append('"');
        for (char c : ((String) v).toCharArray()) {
          if (c == '"' || c == '\\') sb.append('\\').append(c);
          else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
          else sb.append(c);
        }
        sb.append('"');
      } else if (v instanceof Map) {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          if (!first) sb.append(',');
          first = false;
          write(sb, String.valueOf(e.getKey()));
          sb.append(':');
          write(sb, e.getValue());
        }
        sb.append('}');
      } else if (v instanceof List) {
        sb.append('[');
        boolean first = true;
        for (Object o : (List<?>) v) {
          if (!first) sb.append(',');
          first = false;
          write(sb, o);
        }
        sb.append(']');
      } else {
        sb.append(v);
      }
    }
  }
}
