// Route keys by Math.floorMod(key.hashCode(), n), the way Java services shard by a String key.
//
// Reads one key per line (lowercase hex of its bytes; an empty line is the empty key) and a list
// of node counts; prints "<n>\t<line index>\t<bucket>" for every key and count, or
// "<n>\t<line index>\tnot-utf8" for bytes that are not UTF-8 (a Java String cannot hold them).
//
// Usage: java Capture <keys_hex_file> <n>...

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

public final class Capture {
  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.US_ASCII);
    // Known values: "foo".hashCode() is 101574, "polygenelubricants".hashCode() is Integer.MIN_VALUE.
    if ("foo".hashCode() != 101574 || "polygenelubricants".hashCode() != Integer.MIN_VALUE) {
      throw new AssertionError("String.hashCode is not the documented function");
    }
    StringBuilder out = new StringBuilder();
    for (int a = 1; a < args.length; a++) {
      int n = Integer.parseInt(args[a]);
      for (int i = 0; i < lines.size(); i++) {
        String key = decode(lines.get(i));
        out.append(n).append('\t').append(i).append('\t');
        out.append(key == null ? "not-utf8" : Integer.toString(Math.floorMod(key.hashCode(), n))).append('\n');
      }
    }
    System.out.print(out);
  }

  static String decode(String hex) {
    byte[] b = new byte[hex.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
