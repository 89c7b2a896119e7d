package io.github.keyroute;

import com.sun.jna.Pointer;

/**
 * About the native library this package runs on: {@link #version()} and where it was loaded
 * from. The routers themselves are {@link Router}, {@link SharedRouter} and {@link BoundedLoad}.
 */
public final class Keyroute {
  private Keyroute() {}

  /** The native library's version ({@code kr_version}, e.g. {@code "0.1.0"}). */
  public static String version() {
    Pointer v = KrNative.kr_version();
    return v == null ? "" : v.getString(0, "US-ASCII");
  }

  /**
   * Where the native library was loaded from: {@code "jar:linux-x86-64/libkeyroute.so"} for the
   * copy bundled in the jar, otherwise the file JNA found (on {@code jna.library.path} or the
   * system's library path).
   */
  public static String librarySource() {
    return KrLibrary.SOURCE;
  }

  /**
   * The stable snake_case name the library gives a status code ({@code "ok"}, {@code
   * "invalid_json"}, …), or null for a number that is not a status.
   */
  public static String statusName(int code) {
    Pointer name = KrNative.kr_status_name(code);
    return name == null ? null : name.getString(0, "US-ASCII");
  }
}
