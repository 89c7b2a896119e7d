package keyroute;

/**
 * A failure reported by the keyroute C ABI: the stable status code and name of the one error
 * table (e.g. 3, {@code unknown_algorithm}) and the library's message (for people).
 */
public final class KeyRouteException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String codeName;

  KeyRouteException(int code, String codeName, String message) {
    super(message + " [" + codeName + " " + code + "]");
    this.code = code;
    this.codeName = codeName;
  }

  /** The stable numeric code ({@code KR_*} in keyroute.h). */
  public int code() {
    return code;
  }

  /** The stable snake_case name, as the conformance vectors write it. */
  public String codeName() {
    return codeName;
  }
}
