package io.github.keyroute.spymemcached;

import io.github.keyroute.InvalidParameterException;
import io.github.keyroute.KeyrouteNullPointerException;
import io.github.keyroute.Router;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.MemcachedNodeROImpl;
import net.spy.memcached.NodeLocator;

/**
 * A spymemcached {@link NodeLocator} that routes through keyroute: any algorithm or preset, over
 * the client's own nodes. With the {@code spymemcached} preset it places every key where
 * spymemcached's {@code KetamaNodeLocator} does; with the native {@code ring} (or Maglev, jump, …)
 * it places keys where every other keyroute surface does for the same nodes.
 *
 * <p>A client gets one through {@link KeyrouteConnectionFactory}, which wraps any {@code
 * ConnectionFactory} (one from {@code ConnectionFactoryBuilder} included):
 *
 * <pre>{@code
 * ConnectionFactory cf = new KeyrouteConnectionFactory(new ConnectionFactoryBuilder().build(), "spymemcached", null);
 * MemcachedClient client = new MemcachedClient(cf, AddrUtil.getAddresses("10.0.0.1:11211 10.0.0.2:11211"));
 * }</pre>
 *
 * <p>The router's nodes are the locator's nodes, in the client's order. Node {@code i} has the id
 * {@code host:port} ({@code [v6]:port} for IPv6), where {@code host} is the address as the client
 * was given it ({@link InetSocketAddress#getHostString()} when the locator first sees the node,
 * never a reverse lookup; the node keeps it over updates), its host and port, and the weight the {@code weights} map gives its address (1 when absent). With the {@code
 * spymemcached} preset each node also gets its {@code name}: the node key spymemcached's own
 * {@link KetamaNodeKeyFormatter} writes for it in the preset's {@code format}, so resolved host
 * names ({@code host/1.2.3.4:11211}) place keys as spymemcached does. Algorithms that do not read
 * host and port ignore them. The routing for a node list is deterministic: the same algorithm,
 * parameters, weights and nodes give the same owner for every key, in every process.
 *
 * <p>Keys are routed as their UTF-8, as spymemcached hashes them. Lookups take no lock: {@link
 * #updateLocator(List)} builds a new router and swaps it in, and routers no longer used are freed
 * when they become unreachable (never while another thread may still be routing through one).
 * Thread-safe.
 */
public final class KeyrouteNodeLocator implements NodeLocator {
  /** What the routing is built from: the algorithm, its parameters and the weights. */
  private final String algorithm;
  private final String params;
  private final Map<InetSocketAddress, Integer> weights;
  private final boolean readOnly;
  private volatile State state;

  /** One topology: the router and its nodes, swapped as one. */
  private static final class State {
    final Router router;
    final MemcachedNode[] nodes;
    /** Each node's host, as first read (kept over updates: see {@link #build}). */
    final String[] hosts;
    final Collection<MemcachedNode> all;
    final boolean replicas;

    State(Router router, MemcachedNode[] nodes, String[] hosts) {
      this.router = router;
      this.nodes = nodes;
      this.hosts = hosts;
      this.all = Collections.unmodifiableList(Arrays.asList(nodes));
      this.replicas = router.capabilities().replicas();
    }
  }

  private KeyrouteNodeLocator(String algorithm, String params, Map<InetSocketAddress, Integer> weights,
      boolean readOnly, State state) {
    this.algorithm = algorithm;
    this.params = params;
    this.weights = weights;
    this.readOnly = readOnly;
    this.state = state;
  }

  /**
   * A locator over {@code nodes} with algorithm or preset {@code algorithm} (a spec's {@code
   * algorithm}: {@code "spymemcached"}, {@code "libmemcached"}, {@code "ring"}, …) and its
   * parameters as a JSON object ({@code "{\"hash\":\"fnv1a_32\"}"}; null for the defaults).
   *
   * @throws io.github.keyroute.KeyrouteException what the spec these make is refused with
   *     ({@link io.github.keyroute.UnknownAlgorithmException}, {@link
   *     io.github.keyroute.InvalidParameterException} for a node whose address is not an {@code
   *     InetSocketAddress}, {@link io.github.keyroute.DuplicateNodeIdException} for an address
   *     given twice, {@link io.github.keyroute.EmptyTopologyException} for no nodes, …)
   */
  public static KeyrouteNodeLocator create(String algorithm, String params, List<MemcachedNode> nodes) {
    return create(algorithm, params, null, nodes);
  }

  /**
   * As {@link #create(String, String, List)}, with node weights by address (as {@code
   * KetamaNodeLocator} takes them; the {@code spymemcached} preset counts them only with {@code
   * "weighted": true}, as spymemcached counts them only when given a weights map).
   */
  public static KeyrouteNodeLocator create(String algorithm, String params, Map<InetSocketAddress, Integer> weights,
      List<MemcachedNode> nodes) {
    if (algorithm == null) {
      throw new KeyrouteNullPointerException("algorithm is null");
    }
    Map<InetSocketAddress, Integer> w = weights == null ? Collections.emptyMap()
        : Collections.unmodifiableMap(new HashMap<>(weights));
    return new KeyrouteNodeLocator(algorithm, params, w, false, build(algorithm, params, w, nodes, null));
  }

  /**
   * The router for {@code nodes}: node {@code i} is {@code nodes.get(i)}. A node that {@code
   * previous} has keeps the host it had there: an address's {@link
   * InetSocketAddress#getHostString()} changes once anything asks it for its host name (a reverse
   * lookup), and a node's id must not change under it.
   */
  private static State build(String algorithm, String params, Map<InetSocketAddress, Integer> weights,
      List<MemcachedNode> nodes, State previous) {
    if (nodes == null) {
      throw new KeyrouteNullPointerException("node list is null");
    }
    Map<MemcachedNode, String> known = new IdentityHashMap<>();
    if (previous != null) {
      for (int i = 0; i < previous.nodes.length; i++) {
        known.put(previous.nodes[i], previous.hosts[i]);
      }
    }
    MemcachedNode[] array = nodes.toArray(new MemcachedNode[0]);
    InetSocketAddress[] addresses = new InetSocketAddress[array.length];
    String[] hosts = new String[array.length];
    for (int i = 0; i < array.length; i++) {
      if (array[i] == null) {
        throw new KeyrouteNullPointerException("node " + i + " is null");
      }
      SocketAddress a = array[i].getSocketAddress();
      if (!(a instanceof InetSocketAddress)) {
        throw new InvalidParameterException("node " + i + " has the address " + a + ", not a host and port");
      }
      addresses[i] = (InetSocketAddress) a;
      hosts[i] = known.containsKey(array[i]) ? known.get(array[i]) : addresses[i].getHostString();
    }
    Router router = build(algorithm, params, weights, array, addresses, hosts, null);
    if (algorithm.equals("spymemcached")) {
      // The node keys spymemcached's own formatter writes, in the format the preset uses (read
      // back from the router, where the default is filled in), so that resolved host names
      // (host/1.2.3.4:port) and the LIBMEMCACHED format place keys as spymemcached does.
      KetamaNodeKeyFormatter formatter = new KetamaNodeKeyFormatter(
          router.canonicalJson().contains("\"format\":\"libmemcached\"") ? KetamaNodeKeyFormatter.Format.LIBMEMCACHED
              : KetamaNodeKeyFormatter.Format.SPYMEMCACHED);
      String[] names = new String[array.length];
      for (int i = 0; i < array.length; i++) {
        String key = formatter.getKeyForNode(array[i], 0);
        names[i] = key.substring(0, key.length() - 2); // the key of point 0 ends in "-0"
      }
      router = build(algorithm, params, weights, array, addresses, hosts, names);
    }
    return new State(router, array, hosts);
  }

  private static Router build(String algorithm, String params, Map<InetSocketAddress, Integer> weights,
      MemcachedNode[] nodes, InetSocketAddress[] addresses, String[] hosts, String[] names) {
    try (Router.Builder b = Router.builder(algorithm)) {
      if (params != null) {
        b.params(params);
      }
      for (int i = 0; i < nodes.length; i++) {
        InetSocketAddress a = addresses[i];
        String host = hosts[i];
        Integer weight = weights.get(a);
        b.node(id(host, a.getPort()), weight == null ? 1 : weight, null).address(host, a.getPort());
        if (names != null) {
          b.name(names[i]);
        }
      }
      return b.build();
    }
  }

  /** A node's id: {@code host:port}, or {@code [host]:port} when the host is an IPv6 address. */
  static String id(String host, int port) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  /** The node that owns {@code key}. */
  @Override
  public MemcachedNode getPrimary(String key) {
    State s = state;
    return s.nodes[s.router.route(key)];
  }

  /**
   * The nodes to try, in order, when the primary is down (spymemcached's {@code
   * FailureMode.Redistribute} takes the first active one): every other node, in the key's
   * keyroute replica order ({@link Router#replicas(String, int)} without its first entry, the
   * primary), so the fallback for a key is the same in every process and is its second replica.
   * Algorithms without a replica order (jump, modulo, …) give an empty sequence: the client then
   * keeps the primary. The order is computed when first read.
   */
  @Override
  public Iterator<MemcachedNode> getSequence(String key) {
    State s = state;
    if (!s.replicas || s.nodes.length < 2) {
      return Collections.emptyIterator();
    }
    return new Iterator<MemcachedNode>() {
      private int[] order;
      private int next = 1;

      @Override
      public boolean hasNext() {
        return next < s.nodes.length;
      }

      @Override
      public MemcachedNode next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        if (order == null) {
          order = s.router.replicas(key, s.nodes.length);
        }
        return s.nodes[order[next++]];
      }
    };
  }

  /** Every node, in the order the locator was given them. */
  @Override
  public Collection<MemcachedNode> getAll() {
    return state.all;
  }

  /**
   * A copy that routes as this locator does now, over read-only views of its nodes
   * (spymemcached's {@link MemcachedNodeROImpl}, as {@code KetamaNodeLocator}'s copy has): what
   * {@code MemcachedClient.getNodeLocator()} hands out. Its {@link #updateLocator(List)} is
   * refused.
   */
  @Override
  public NodeLocator getReadonlyCopy() {
    State s = state;
    MemcachedNode[] ro = new MemcachedNode[s.nodes.length];
    for (int i = 0; i < ro.length; i++) {
      ro[i] = new MemcachedNodeROImpl(s.nodes[i]);
    }
    return new KeyrouteNodeLocator(algorithm, params, weights, true, new State(s.router, ro, s.hosts));
  }

  /**
   * Membership changes: rebuilds the routing from {@code nodes} (the same algorithm, parameters
   * and weights) and swaps it in atomically. Keys move only as the algorithm moves them for that
   * change (with a ring, about 1/n of them for a node added to n). A node list that is refused
   * leaves the locator as it was.
   *
   * @throws UnsupportedOperationException on a copy from {@link #getReadonlyCopy()}
   * @throws io.github.keyroute.KeyrouteException as {@link #create(String, String, List)}
   */
  @Override
  public void updateLocator(List<MemcachedNode> nodes) {
    if (readOnly) {
      throw new UnsupportedOperationException("a read-only copy of a locator cannot be updated");
    }
    state = build(algorithm, params, weights, nodes, state);
  }

  /**
   * The router in use now: node {@code i} is {@link #getAll()}'s {@code i}-th. Owned by the
   * locator: do not close it.
   */
  public Router router() {
    return state.router;
  }

  /** Node {@code i}'s id in {@link #router()}, for each node of {@link #getAll()}. */
  public List<String> nodeIds() {
    return state.router.nodeIds();
  }

  @Override
  public String toString() {
    return "KeyrouteNodeLocator(" + algorithm + (readOnly ? ", read-only" : "") + ", " + state.router.nodeIds() + ")";
  }
}
