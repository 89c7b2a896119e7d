package io.github.keyroute;

/**
 * Base class of every error keyroute reports: one typed subclass per kind of the error table
 * ({@link InvalidJsonException}, {@link InvalidUtf8Exception}, …, generated with {@link
 * ErrorCode}), each carrying the kind's stable numeric code (the C ABI's {@code kr_status}),
 * its stable snake_case name and its category. Messages are for people and may change; codes and
 * names do not.
 */
public class KeyrouteException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode errorCode;
  private final int code;
  private final String codeName;

  /** An error of kind {@code kind}, with a message for people. */
  protected KeyrouteException(ErrorCode kind, String message) {
    super(message);
    this.errorCode = kind;
    this.code = kind.code();
    this.codeName = kind.codeName();
  }

  /** A status the library reported that this version of the Java package does not know. */
  KeyrouteException(int code, String codeName, String message) {
    super(message);
    this.errorCode = null;
    this.code = code;
    this.codeName = codeName;
  }

  /** The kind, or null for a code newer than this Java package. */
  public ErrorCode errorCode() {
    return errorCode;
  }

  /** The stable numeric code ({@code KR_*} in keyroute.h). */
  public int code() {
    return code;
  }

  /** The stable snake_case name ({@code "invalid_utf8"}), as vector files write it. */
  public String codeName() {
    return codeName;
  }

  /** The kind of mistake ({@code value}, {@code range}, …; {@code unknown} for a newer code). */
  public String category() {
    return errorCode == null ? "unknown" : errorCode.category();
  }

  @Override
  public String toString() {
    return getClass().getName() + " [" + codeName + " " + code + "]: " + getMessage();
  }
}
