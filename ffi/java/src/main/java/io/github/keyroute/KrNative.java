package io.github.keyroute;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.io.File;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The C ABI ({@code keyroute.h}) through JNA direct mapping, and the library's loading.
 *
 * <p>Handles are passed as {@code long} and out-parameters as one-element arrays: every
 * declaration here assumes LP64 ({@code size_t} and pointers are 64-bit), as on every platform
 * the jar bundles a library for. The library is the one bundled in the jar as the JNA resource
 * {@code <platform>/libkeyroute.so} when the jar has one for this platform (so a different
 * {@code libkeyroute} on the system is never picked up by mistake), otherwise the one JNA finds
 * on {@code jna.library.path} and the system's library path (a build from source).
 */
final class KrNative {
  private KrNative() {}

  static final int KR_OK = 0;
  static final Cleaner CLEANER = Cleaner.create();
  /** Where the library was loaded from: {@code jar:<resource>} or a file path. */
  static final String SOURCE;

  static {
    String resource = Platform.RESOURCE_PREFIX + "/" + System.mapLibraryName("keyroute");
    ClassLoader loader = KrNative.class.getClassLoader();
    NativeLibrary lib;
    String source;
    if (loader != null && loader.getResource(resource) != null) {
      File file;
      try {
        file = Native.extractFromResourcePath("/" + resource, loader);
      } catch (IOException e) {
        throw new UnsatisfiedLinkError("keyroute: cannot extract " + resource + " from the jar: " + e.getMessage());
      }
      lib = NativeLibrary.getInstance(file.getAbsolutePath());
      source = "jar:" + resource;
      if (!Platform.isWindows() && !file.delete()) {
        file.deleteOnExit(); // the mapping stays valid without the file
      }
    } else {
      lib = NativeLibrary.getInstance("keyroute");
      File f = lib.getFile();
      source = f == null ? lib.getName() : f.getAbsolutePath();
    }
    Native.register(KrNative.class, lib);
    SOURCE = source;
  }

  // ---------------------------------------------------------------- errors and version
  static native Pointer kr_last_error_message();

  static native Pointer kr_status_name(int status);

  static native Pointer kr_version();

  // ---------------------------------------------------------------- routers
  static native int kr_router_from_json(byte[] json, long jsonLen, long[] router);

  static native int kr_router_from_json_with_limits(byte[] json, long jsonLen, byte[] limits, long limitsLen, long[] router);

  static native void kr_router_free(long router);

  static native int kr_router_clone(long router, long[] clone);

  static native int kr_route(long router, byte[] key, long keyLen, int[] node);

  static native int kr_route_utf16(long router, char[] units, long unitsLen, int[] node);

  /** kr_route with the key and the answer in native memory (see {@link Scratch}). */
  static native int kr_route(long router, long key, long keyLen, long node);

  /** kr_route_utf16 with the units and the answer in native memory (see {@link Scratch}). */
  static native int kr_route_utf16(long router, long units, long unitsLen, long node);

  static native int kr_route_id(long router, byte[] key, long keyLen, long[] id, long[] idLen);

  static native int kr_route_batch(long router, long keys, long keyCount, int[] nodes, long nodesLen);

  static native int kr_replicas(long router, byte[] key, long keyLen, int[] nodes, long count);

  static native int kr_spread(long router, byte[] key, long keyLen, long r, long selector, int[] node);

  static native int kr_slot(long router, byte[] key, long keyLen, byte[] hasSlot, int[] slot);

  static native int kr_router_node_count(long router, int[] count);

  static native int kr_router_node_id(long router, int index, long[] id, long[] idLen);

  static native int kr_router_fingerprint(long router, long[] fingerprint);

  static native int kr_router_version(long router, long[] version);

  static native int kr_router_canonical_json(long router, long[] json, long[] jsonLen);

  // ---------------------------------------------------------------- builders
  static native int kr_builder_new(byte[] algorithm, long algorithmLen, long[] builder);

  static native void kr_builder_free(long builder);

  static native int kr_builder_set_params_json(long builder, byte[] json, long jsonLen);

  static native int kr_builder_set_version(long builder, long version);

  static native int kr_builder_add_node(long builder, byte[] id, long idLen, int weight, byte[] zone, long zoneLen);

  static native int kr_builder_set_node_address(long builder, byte[] host, long hostLen, short port);

  static native int kr_builder_set_node_name(long builder, byte[] name, long nameLen);

  static native int kr_builder_add_node_slots(long builder, int first, int last);

  static native int kr_builder_build(long builder, long[] router);

  // ---------------------------------------------------------------- shared routers
  static native int kr_shared_router_new(long initial, long[] shared);

  static native int kr_shared_router_load(long shared, long[] router);

  static native int kr_shared_router_store(long shared, long router);

  static native void kr_shared_router_free(long shared);

  // ---------------------------------------------------------------- bounded loads
  static native int kr_bounded_new(long router, double c, long[] bounded);

  static native int kr_bounded_acquire(long bounded, byte[] key, long keyLen, int[] node, int[] rank);

  static native int kr_bounded_pick(long bounded, byte[] key, long keyLen, int[] node, int[] rank);

  static native int kr_bounded_release(long bounded, int node);

  static native int kr_bounded_load(long bounded, int node, int[] load, int[] total);

  static native void kr_bounded_free(long bounded);

  // ---------------------------------------------------------------- helpers

  /** Throws the typed exception for a failed status (the message is thread-local in C). */
  static void check(int status) {
    if (status != KR_OK) {
      throw error(status);
    }
  }

  static KeyrouteException error(int status) {
    Pointer m = kr_last_error_message();
    String message = m == null ? "" : m.getString(0, "UTF-8");
    ErrorCode kind = ErrorCode.fromCode(status);
    if (kind != null) {
      return kind.exception(message);
    }
    Pointer name = kr_status_name(status);
    return new KeyrouteException(status, name == null ? "unknown" : name.getString(0, "US-ASCII"), message);
  }

  /** The UTF-8 bytes of a span the library lends ({@code ptr}, {@code len}) as a String. */
  static String text(long ptr, long len) {
    if (len == 0) {
      return "";
    }
    if (len > Integer.MAX_VALUE) {
      throw new IllegalStateException("keyroute: text longer than a Java array");
    }
    return new String(new Pointer(ptr).getByteArray(0, (int) len), StandardCharsets.UTF_8);
  }

  /** Text the caller gives (specs, ids): UTF-8; a lone surrogate is refused, never replaced. */
  static byte[] utf8(String s) {
    return utf8(s, "text");
  }

  /**
   * A text key's bytes by the key text policy every keyroute surface shares: its UTF-8, and a
   * string holding a lone surrogate (which has no UTF-8) is refused with {@link
   * InvalidUtf8Exception} rather than replaced by {@code '?'} as {@link String#getBytes} would,
   * which would route it like another key.
   */
  static byte[] key(String key) {
    return utf8(key, "key");
  }

  private static byte[] utf8(String s, String what) {
    nonNull(s, what);
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return strictUtf8(s, what);
      }
    }
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] strictUtf8(String s, String what) {
    try {
      ByteBuffer b = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(s));
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    } catch (CharacterCodingException e) {
      throw new InvalidUtf8Exception("the " + what + " holds a lone surrogate, which has no UTF-8");
    }
  }

  /**
   * {@code value} when it is not null; null where a value is required is the error table's
   * {@code null_pointer} (code 18), as in C.
   */
  static <T> T nonNull(T value, String what) {
    if (value == null) {
      throw new KeyrouteNullPointerException("the " + what + " is null");
    }
    return value;
  }

  /** {@code n} when it is not negative, else an {@link InvalidParameterException}. */
  static int count(int n, String what) {
    if (n < 0) {
      throw new InvalidParameterException(what + " must not be negative, got " + n);
    }
    return n;
  }
}
