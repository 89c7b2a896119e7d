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
 * The library's loading, and the helpers the public classes share over the generated mirror
 * {@link KrNative} (statuses to typed exceptions, text in and out).
 *
 * <p>The library is the one bundled in the jar as the JNA resource {@code
 * <platform>/libkeyroute.so} when the jar has one for this platform (so a different {@code
 * libkeyroute} on the system is never picked up by mistake), otherwise the one JNA finds on
 * {@code jna.library.path} and the system's library path (a build from source).
 */
final class KrLibrary {
  private KrLibrary() {}

  static final Cleaner CLEANER = Cleaner.create();
  /** Where the library was loaded from: {@code jar:<resource>} or a file path. */
  static final String SOURCE;

  /** The library, loaded once. */
  private static final NativeLibrary LIBRARY;

  static {
    String resource = Platform.RESOURCE_PREFIX + "/" + System.mapLibraryName("keyroute");
    ClassLoader loader = KrLibrary.class.getClassLoader();
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
    LIBRARY = lib;
    SOURCE = source;
  }

  /** Binds the native methods of {@code mirror} (the generated {@link KrNative}) to the library. */
  static void register(Class<?> mirror) {
    Native.register(mirror, LIBRARY);
  }

  // ---------------------------------------------------------------- helpers

  /** Throws the typed exception for a failed status (the message is thread-local in C). */
  static void check(int status) {
    if (status != KrNative.KR_OK) {
      throw error(status);
    }
  }

  static KeyrouteException error(int status) {
    Pointer m = KrNative.kr_last_error_message();
    String message = m == null ? "" : m.getString(0, "UTF-8");
    ErrorCode kind = ErrorCode.fromCode(status);
    if (kind != null) {
      return kind.exception(message);
    }
    Pointer name = KrNative.kr_status_name(status);
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
