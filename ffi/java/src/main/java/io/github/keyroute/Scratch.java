package io.github.keyroute;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A per-thread native buffer for the hot single-key calls, so that they pass only primitives
 * through JNA: the key is copied into it by plain Java, the library writes its answer into it,
 * and no Java array crosses the boundary (JNA copies each array argument into and out of native
 * memory, which costs more than the routing). Layout: the answer ({@code uint32_t}) at offset 0,
 * a second answer ({@code uint64_t}: a live view's version) at offset 8, the key from offset 16
 * (8-aligned, as {@code kr_route_utf16} needs for its {@code uint16_t}s).
 * Keys longer than {@link #MAX_KEY} bytes take the array path instead, so no thread keeps a large
 * buffer.
 */
final class Scratch {
  /** The longest key, in bytes, the buffer carries. */
  static final int MAX_KEY = 1024;

  /** Where the {@code uint64_t} answer goes. */
  static final int VERSION = 8;

  static final int KEY = 16;

  private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);

  final ByteBuffer buffer;
  final long address;

  private Scratch() {
    buffer = ByteBuffer.allocateDirect(KEY + MAX_KEY).order(ByteOrder.nativeOrder());
    address = Pointer.nativeValue(Native.getDirectBufferPointer(buffer));
  }

  static Scratch get() {
    return LOCAL.get();
  }

  /** Copies {@code key} in; returns the address of its first byte. */
  long putBytes(byte[] key) {
    buffer.clear();
    buffer.position(KEY);
    buffer.put(key);
    return address + KEY;
  }

  /** Copies the UTF-16 code units of {@code key} in (at most MAX_KEY / 2 of them). */
  long putChars(String key) {
    int n = key.length();
    for (int i = 0; i < n; i++) {
      buffer.putChar(KEY + 2 * i, key.charAt(i));
    }
    return address + KEY;
  }

  /** The {@code uint32_t} the library wrote at offset 0. */
  int result() {
    return buffer.getInt(0);
  }

  /** The {@code uint64_t} the library wrote at offset {@link #VERSION}. */
  long version() {
    return buffer.getLong(VERSION);
  }
}
