// Capture golden vectors from the real Guava Hashing.consistentHash (Debian's libguava-java).
//
// Two key hashes (VECTORS.md preset `guava`):
//   u64be       - consistentHash(long input, buckets); the case key is the 8-byte big-endian input.
//   murmur3_128 - consistentHash(Hashing.murmur3_128().hashString(key, UTF_8), buckets) over keys.json.
//
// Usage: java -cp guava.jar:. Capture <out_dir> <keys_hex_file> <version> <captured_by>

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;

public final class Capture {

  static final int[] U64_BUCKETS = {1, 3, 4, 5, 11, 60, 100, 1000};
  static final int[] MURMUR_BUCKETS = {1, 3, 4, 5, 60};
  static final int U64_INPUTS = 200;
  static final long SEED = 20261129L;

  static int failures = 0;

  static void expect(String what, long got, long want) {
    if (got != want) {
      System.out.println("MISMATCH " + what + ": got " + got + ", want " + want);
      failures++;
    }
  }

  /** Golden values listed in upstream test values (PEERS.md#guava) (Guava's own HashingTest / Murmur3 tests). */
  static void checkGoldens() {
    int[] g100 = {0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83};
    for (int i = 0; i < g100.length; i++) expect("consistentHash(" + i + ",100)", Hashing.consistentHash(i, 100), g100[i]);
    expect("consistentHash(10863919174838991,11)", Hashing.consistentHash(10863919174838991L, 11), 6);
    expect("consistentHash(2016238256797177309,11)", Hashing.consistentHash(2016238256797177309L, 11), 3);
    expect("consistentHash(1673758223894951030,11)", Hashing.consistentHash(1673758223894951030L, 11), 5);
    expect("consistentHash(2,100001)", Hashing.consistentHash(2L, 100001), 80343);
    expect("consistentHash(2201,100001)", Hashing.consistentHash(2201L, 100001), 22152);
    expect("consistentHash(2202,100001)", Hashing.consistentHash(2202L, 100001), 15018);
    HashCode hell = Hashing.murmur3_128().hashString("hell", StandardCharsets.UTF_8);
    expect("murmur3_128(hell).h1", hell.asLong(), 0x629942693e10f867L);
    expect("murmur3_128(hell).h2", ByteBuffer.wrap(hell.asBytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8), 0x92db0b82baeb5347L);
    expect("murmur3_128(hell).padToLong", hell.padToLong(), 0x629942693e10f867L);
  }

  static List<Long> u64Inputs() {
    Set<Long> in = new LinkedHashSet<>();
    for (long i = 0; i < 20; i++) in.add(i);
    for (long v : new long[] {10863919174838991L, 2016238256797177309L, 1673758223894951030L, 2201L, 2202L, -1L, Long.MIN_VALUE, Long.MAX_VALUE,
        1L << 32, 0xffffffffL, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
      in.add(v);
    }
    Random r = new Random(SEED);
    while (in.size() < U64_INPUTS) in.add(r.nextLong());
    return new ArrayList<>(in);
  }

  static String json(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') sb.append('\\').append(ch);
      else if (ch < 0x20) sb.append(String.format("\\u%04x", (int) ch));
      else sb.append(ch);
    }
    return sb.append('"').toString();
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.toString();
  }

  static byte[] unhex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return b;
  }

  static String strictUtf8(byte[] b) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  static boolean printableAscii(byte[] b) {
    for (byte x : b) if (x < 0x20 || x > 0x7e) return false;
    return true;
  }

  static void writeFile(Path out, String id, String description, String keyHash, int buckets, List<String> cases, String version, String capturedBy)
      throws Exception {
    StringBuilder sb = new StringBuilder();
    sb.append("{\n  \"id\": ").append(json(id)).append(",\n");
    sb.append("  \"description\": ").append(json(description)).append(",\n");
    sb.append("  \"provenance\": {\n    \"kind\": \"peer\",\n    \"peer\": \"guava\",\n");
    sb.append("    \"version\": ").append(json(version)).append(",\n");
    sb.append("    \"captured_by\": ").append(json(capturedBy)).append("\n  },\n");
    sb.append("  \"spec\": {\n    \"algorithm\": \"guava\",\n");
    sb.append("    \"params\": { \"key_hash\": ").append(json(keyHash)).append(" },\n");
    sb.append("    \"nodes\": [");
    for (int i = 0; i < buckets; i++) {
      sb.append(i == 0 ? "\n      " : (i % 8 == 0 ? ",\n      " : ", ")).append("{ \"id\": \"bucket-").append(i).append("\" }");
    }
    sb.append("\n    ]\n  },\n  \"cases\": [");
    for (int i = 0; i < cases.size(); i++) sb.append(i == 0 ? "\n    " : ",\n    ").append(cases.get(i));
    sb.append("\n  ]\n}\n");
    Files.write(out.resolve(id + ".json"), sb.toString().getBytes(StandardCharsets.UTF_8));
    System.out.printf("%-36s buckets=%-5d cases=%d%n", id, buckets, cases.size());
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: Capture <out_dir> <keys_hex_file> <version> <captured_by>");
      System.exit(2);
    }
    Path out = Paths.get(args[0]);
    String version = args[2];
    String capturedBy = args[3];
    checkGoldens();

    List<Long> inputs = u64Inputs();
    for (int b : U64_BUCKETS) {
      List<String> cases = new ArrayList<>();
      for (long v : inputs) {
        byte[] k = ByteBuffer.allocate(8).putLong(v).array(); // big-endian
        int bucket = Hashing.consistentHash(v, b);
        cases.add("{ \"id\": \"n" + v + "\", \"key_hex\": \"" + hex(k) + "\", \"node\": \"bucket-" + bucket + "\" }");
      }
      writeFile(out, "guava-consistenthash-u64be-" + b,
          "Guava Hashing.consistentHash(long, " + b + "); key = the long as 8 big-endian bytes (0..19, Guava's golden inputs, edge values, java.util.Random("
              + SEED + ") longs)",
          "u64be", b, cases, version, capturedBy);
    }

    List<String> lines = Files.readAllLines(Paths.get(args[1]), StandardCharsets.US_ASCII);
    List<String> skipped = new ArrayList<>();
    for (int b : MURMUR_BUCKETS) {
      List<String> cases = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        String id = String.format("k%03d", i);
        byte[] bytes = unhex(lines.get(i).trim());
        String text = strictUtf8(bytes);
        if (text == null) {
          if (b == MURMUR_BUCKETS[0]) skipped.add(id);
          continue;
        }
        HashCode h = Hashing.murmur3_128().hashString(text, StandardCharsets.UTF_8);
        if (!h.equals(Hashing.murmur3_128().hashBytes(bytes))) throw new IllegalStateException("hashString != hashBytes for " + id);
        int bucket = Hashing.consistentHash(h, b);
        String k = printableAscii(bytes) ? "\"key\": " + json(text) : "\"key_hex\": \"" + hex(bytes) + "\"";
        cases.add("{ \"id\": " + json(id) + ", " + k + ", \"node\": \"bucket-" + bucket + "\" }");
      }
      writeFile(out, "guava-consistenthash-murmur3-" + b,
          "Guava Hashing.consistentHash(Hashing.murmur3_128().hashString(key, UTF_8), " + b + ") over the shared key set (HashCode.padToLong = first 8 bytes LE)",
          "murmur3_128", b, cases, version, capturedBy);
    }
    if (!skipped.isEmpty()) System.out.println("skipped (not valid UTF-8): " + skipped);
    if (failures > 0) {
      System.out.println(failures + " golden value(s) failed");
      System.exit(1);
    }
    System.out.println("all golden values matched");
  }
}
