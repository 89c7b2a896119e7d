package io.github.keyroute;

import java.util.Collections;
import java.util.List;

/**
 * Who owns what share of the keys of one router, and how evenly ({@link Router#ownership()}).
 * Rings, Maglev and slot tables are measured exactly on the key-hash space, jump, modulo and
 * rendezvous in closed form, the rest from sample keys; {@link #method()} says which.
 */
public final class Ownership {
  private final List<String> nodeIds;
  private final double[] shares;
  private final String method;
  private final int sampleKeys;
  private final double cv;
  private final double maxOverMean;
  private final double minOverMean;

  Ownership(List<String> nodeIds, double[] shares, KrNative.KrOwnershipSummary s) {
    this.nodeIds = Collections.unmodifiableList(nodeIds);
    this.shares = shares;
    this.method = Diff.methodName(s.method);
    this.sampleKeys = s.sampleKeys;
    this.cv = s.cv;
    this.maxOverMean = s.maxOverMean;
    this.minOverMean = s.minOverMean;
  }

  /** The nodes' ids, in the router's order. */
  public List<String> nodeIds() {
    return nodeIds;
  }

  /** Node {@code i}'s share of all keys, in the router's order; they sum to 1. */
  public double[] shares() {
    return shares.clone();
  }

  /** The share of the node with this id, or 0 when the router has no such node. */
  public double share(String id) {
    int i = nodeIds.indexOf(id);
    return i < 0 ? 0 : shares[i];
  }

  /** How the shares were obtained: {@code exact}, {@code slot_share}, {@code expected} or {@code sampled}. */
  public String method() {
    return method;
  }

  /** The sample keys routed when {@link #method()} is {@code sampled}; else 0. */
  public int sampleKeys() {
    return sampleKeys;
  }

  /** Coefficient of variation of {@code share / fair share} over the nodes with weight. */
  public double cv() {
    return cv;
  }

  /** The largest {@code share / fair share}. */
  public double maxOverMean() {
    return maxOverMean;
  }

  /** The smallest {@code share / fair share}. */
  public double minOverMean() {
    return minOverMean;
  }
}
