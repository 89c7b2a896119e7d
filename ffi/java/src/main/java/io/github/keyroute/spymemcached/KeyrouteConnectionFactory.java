package io.github.keyroute.spymemcached;

import io.github.keyroute.KeyrouteNullPointerException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.ConnectionObserver;
import net.spy.memcached.FailureMode;
import net.spy.memcached.HashAlgorithm;
import net.spy.memcached.MemcachedConnection;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;
import net.spy.memcached.OperationFactory;
import net.spy.memcached.auth.AuthDescriptor;
import net.spy.memcached.metrics.MetricCollector;
import net.spy.memcached.metrics.MetricType;
import net.spy.memcached.ops.Operation;
import net.spy.memcached.transcoders.Transcoder;

/**
 * A spymemcached {@link ConnectionFactory} whose locator is a {@link KeyrouteNodeLocator}:
 * everything else (protocol, timeouts, failure mode, transcoder, …) is the wrapped factory's, so
 * a factory from {@code ConnectionFactoryBuilder} keeps its settings:
 *
 * <pre>{@code
 * ConnectionFactory base = new ConnectionFactoryBuilder().setProtocol(Protocol.BINARY).build();
 * MemcachedClient client = new MemcachedClient(new KeyrouteConnectionFactory(base, "ring", null), addresses);
 * }</pre>
 *
 * <p>The connection is spymemcached's {@link MemcachedConnection}, made as {@code
 * DefaultConnectionFactory} makes it (with this factory, so that it asks this one for its
 * locator); a wrapped factory's own {@code createConnection} is not called.
 */
public final class KeyrouteConnectionFactory implements ConnectionFactory {
  private final ConnectionFactory base;
  private final String algorithm;
  private final String params;
  private final Map<InetSocketAddress, Integer> weights;
  private volatile KeyrouteNodeLocator locator;

  /**
   * Wraps {@code base}; locators route with {@code algorithm} and {@code params} (see {@link
   * KeyrouteNodeLocator#create(String, String, List)}).
   */
  public KeyrouteConnectionFactory(ConnectionFactory base, String algorithm, String params) {
    this(base, algorithm, params, null);
  }

  /** As {@link #KeyrouteConnectionFactory(ConnectionFactory, String, String)}, with node weights by address. */
  public KeyrouteConnectionFactory(ConnectionFactory base, String algorithm, String params,
      Map<InetSocketAddress, Integer> weights) {
    if (base == null || algorithm == null) {
      throw new KeyrouteNullPointerException(base == null ? "connection factory is null" : "algorithm is null");
    }
    this.base = base;
    this.algorithm = algorithm;
    this.params = params;
    this.weights = weights;
  }

  /**
   * The locator this factory made last (the live one, not a copy: {@link
   * KeyrouteNodeLocator#updateLocator(List)} on it changes where the client sends keys), or null
   * before a client was made with it.
   */
  public KeyrouteNodeLocator locator() {
    return locator;
  }

  @Override
  public NodeLocator createLocator(List<MemcachedNode> nodes) {
    KeyrouteNodeLocator l = KeyrouteNodeLocator.create(algorithm, params, weights, nodes);
    locator = l;
    return l;
  }

  @Override
  public MemcachedConnection createConnection(List<InetSocketAddress> addrs) throws IOException {
    return new MemcachedConnection(getReadBufSize(), this, addrs, getInitialObservers(), getFailureMode(),
        getOperationFactory());
  }

  @Override
  public MemcachedNode createMemcachedNode(SocketAddress sa, SocketChannel c, int bufSize) {
    return base.createMemcachedNode(sa, c, bufSize);
  }

  @Override
  public BlockingQueue<Operation> createOperationQueue() {
    return base.createOperationQueue();
  }

  @Override
  public BlockingQueue<Operation> createReadOperationQueue() {
    return base.createReadOperationQueue();
  }

  @Override
  public BlockingQueue<Operation> createWriteOperationQueue() {
    return base.createWriteOperationQueue();
  }

  @Override
  public long getOpQueueMaxBlockTime() {
    return base.getOpQueueMaxBlockTime();
  }

  @Override
  public ExecutorService getListenerExecutorService() {
    return base.getListenerExecutorService();
  }

  @Override
  public boolean isDefaultExecutorService() {
    return base.isDefaultExecutorService();
  }

  @Override
  public OperationFactory getOperationFactory() {
    return base.getOperationFactory();
  }

  @Override
  public long getOperationTimeout() {
    return base.getOperationTimeout();
  }

  @Override
  public boolean isDaemon() {
    return base.isDaemon();
  }

  @Override
  public boolean useNagleAlgorithm() {
    return base.useNagleAlgorithm();
  }

  @Override
  public Collection<ConnectionObserver> getInitialObservers() {
    return base.getInitialObservers();
  }

  @Override
  public FailureMode getFailureMode() {
    return base.getFailureMode();
  }

  @Override
  public Transcoder<Object> getDefaultTranscoder() {
    return base.getDefaultTranscoder();
  }

  @Override
  public boolean shouldOptimize() {
    return base.shouldOptimize();
  }

  @Override
  public int getReadBufSize() {
    return base.getReadBufSize();
  }

  @Override
  public HashAlgorithm getHashAlg() {
    return base.getHashAlg();
  }

  @Override
  public long getMaxReconnectDelay() {
    return base.getMaxReconnectDelay();
  }

  @Override
  public AuthDescriptor getAuthDescriptor() {
    return base.getAuthDescriptor();
  }

  @Override
  public int getTimeoutExceptionThreshold() {
    return base.getTimeoutExceptionThreshold();
  }

  @Override
  public MetricType enableMetrics() {
    return base.enableMetrics();
  }

  @Override
  public MetricCollector getMetricCollector() {
    return base.getMetricCollector();
  }

  @Override
  public long getAuthWaitTime() {
    return base.getAuthWaitTime();
  }
}
