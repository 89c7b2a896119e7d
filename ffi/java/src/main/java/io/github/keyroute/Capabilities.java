package io.github.keyroute;

import java.util.OptionalInt;

/**
 * What one built router supports ({@link Router#capabilities()}), as the library's core decides
 * it: ask this instead of comparing algorithm names.
 */
public final class Capabilities {
  private final String weights;
  private final boolean replicas;
  private final boolean routeHash;
  private final int slots;
  private final String analysis;
  private final int sampleKeys;
  private final int pointsPerWeight;
  private final boolean rebalance;

  Capabilities(KrNative.KrCapabilities c) {
    String w = KrNative.kr_weights_name(c.weights);
    if (w == null) {
      throw new InternalException("the library reported weights " + c.weights + ", which this package does not know");
    }
    this.weights = w;
    this.replicas = c.replicas != 0;
    this.routeHash = c.routeHash != 0;
    this.slots = c.slots;
    this.analysis = Diff.methodName(c.analysis);
    this.sampleKeys = c.sampleKeys;
    this.pointsPerWeight = c.pointsPerWeight;
    this.rebalance = c.rebalance != 0;
  }

  /**
   * What the router does with node weights: {@code honoured} (keys spread in proportion), {@code
   * refused} (unequal weights are refused when it is built) or {@code ignored} (an explicit slot
   * table).
   */
  public String weights() {
    return weights;
  }

  /** Whether it defines a replica order ({@link Router#replicas(String, int)}, {@link Router#spread(String, int, long)}). */
  public boolean replicas() {
    return replicas;
  }

  /** Whether it routes on one 64-bit key hash ({@link Router#keyHash(String)}, {@link Router#routeHash(long)}). */
  public boolean routeHash() {
    return routeHash;
  }

  /** The slot count of a router built on a slot table ({@link Router#slot(String)}); empty for the others. */
  public OptionalInt slots() {
    return slots == 0 ? OptionalInt.empty() : OptionalInt.of(slots);
  }

  /**
   * How {@link Router#ownership()} obtains its shares: {@code exact}, {@code slot_share}, {@code
   * expected} or {@code sampled}.
   */
  public String analysis() {
    return analysis;
  }

  /** The sample keys {@link Router#ownership()} routes when {@link #analysis()} is {@code sampled}; else 0. */
  public int sampleKeys() {
    return sampleKeys;
  }

  /** Points per unit of weight of a native ring; empty for the others. */
  public OptionalInt pointsPerWeight() {
    return pointsPerWeight == 0 ? OptionalInt.empty() : OptionalInt.of(pointsPerWeight);
  }

  /** Whether it can move a slot table to a new topology with the fewest moves. */
  public boolean rebalance() {
    return rebalance;
  }

  @Override
  public String toString() {
    return "Capabilities(weights " + weights + ", replicas " + replicas + ", route_hash " + routeHash + ", slots "
        + slots + ", analysis " + analysis + ")";
  }
}
