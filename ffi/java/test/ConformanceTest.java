// The conformance corpus through the Java package: every case of every vector file given, as
// flattened by ffi/java/vectors.py (the JDK reads no JSON). Each file's router is built from its
// spec; each case routes its key through route(byte[]) (and route(String) for text keys,
// route(String) from the UTF-16 code units for key_utf16 cases), compares the node id, the
// replicas and the slot, and expects the case's error (typed exception, stable code and name)
// where it gives one. Every file's keys also go through routeBatch in one call.
//
// Usage: java -cp keyroute.jar:jna.jar:classes ConformanceTest vectors.tsv [--min-files N]
// Closes with "N passed, M failed" (cases); exits non-zero on any failure, on a corpus of fewer
// files than --min-files, or on a file with no case run.

import io.github.keyroute.KeyrouteException;
import io.github.keyroute.Router;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;

public final class ConformanceTest {
  static int passed = 0;
  static int failed = 0;
  static int skipped = 0;
  static int files = 0;
  static int batchChecks = 0;

  static byte[] hex(String s) {
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  static String text(String hex) {
    return new String(hex(hex), StandardCharsets.UTF_8);
  }

  static void fail(String file, String id, String why) {
    failed++;
    if (failed <= 40) {
      System.out.println("FAIL " + file + " " + id + ": " + why);
    }
  }

  /** The failure of an expected error: null when {@code e} is it. */
  static String checkError(String expected, KeyrouteException e) {
    String want = expected.startsWith("e:") ? expected.substring(2) : null;
    String got = e.codeName() + ":" + e.code();
    if (want == null) {
      return "unexpected " + e;
    }
    if (!want.equals(got)) {
      return "expected " + want + ", got " + got + " (" + e.getMessage() + ")";
    }
    String cls = e.getClass().getSimpleName();
    String plain = pascal(e.codeName()) + "Exception";
    if (e.errorCode() == null || !(cls.equals(plain) || cls.equals("Keyroute" + plain))) {
      return "error " + got + " raised as " + cls;
    }
    return null;
  }

  static String pascal(String snake) {
    StringBuilder sb = new StringBuilder();
    for (String part : snake.split("_")) {
      sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return sb.toString();
  }

  /** One case; returns null when it passes, else why not. */
  static String runCase(Router fileRouter, String[] f, List<byte[]> batchKeys, List<String> batchWant) {
    String ownSpec = f[2];
    String limits = f[3];
    String key = f[4];
    String replicasCount = f[5];
    String expected = f[6];
    String replicas = f[7];
    String slot = f[8];
    Router own = null;
    Router r = fileRouter;
    try {
      if (!ownSpec.equals("-")) {
        try {
          own = build(hex(ownSpec), limits.equals("-") ? null : text(limits));
        } catch (KeyrouteException e) {
          return checkError(expected, e);
        }
        r = own;
      }
      if (r == null) {
        return "no spec";
      }
      if (key.equals("-")) {
        return expected.startsWith("e:") ? "expected " + expected + ", the spec built" : null;
      }
      String viaString = null;
      byte[] bytes;
      if (key.startsWith("u:")) {
        String[] units = key.substring(2).split(",");
        char[] cs = new char[key.length() == 2 ? 0 : units.length];
        for (int i = 0; i < cs.length; i++) {
          cs[i] = (char) Integer.parseInt(units[i]);
        }
        viaString = new String(cs);
        bytes = null;
      } else {
        bytes = hex(key.substring(2));
        if (key.startsWith("t:")) {
          viaString = new String(bytes, StandardCharsets.UTF_8);
        }
      }
      if (!replicasCount.equals("-")) {
        try {
          int[] got = bytes != null ? r.replicas(bytes, Integer.parseInt(replicasCount))
              : r.replicas(viaString, Integer.parseInt(replicasCount));
          return "expected " + expected + ", got replicas " + Arrays.toString(got);
        } catch (KeyrouteException e) {
          return checkError(expected, e);
        }
      }
      int node;
      try {
        node = bytes != null ? r.route(bytes) : r.route(viaString);
      } catch (KeyrouteException e) {
        return checkError(expected, e);
      }
      if (expected.startsWith("e:")) {
        return "expected " + expected + ", got node " + r.nodeId(node);
      }
      String want = text(expected.substring(2));
      String got = r.nodeId(node);
      if (!got.equals(want)) {
        return "node " + got + ", expected " + want;
      }
      if (viaString != null && r.route(viaString) != node) {
        return "route(String) disagrees with route(byte[])";
      }
      if (bytes != null && !r.routeId(bytes).equals(want)) {
        return "routeId disagrees with route";
      }
      if (!replicas.equals("-")) {
        String[] ids = replicas.split(",");
        int[] rep = bytes != null ? r.replicas(bytes, ids.length) : r.replicas(viaString, ids.length);
        for (int i = 0; i < ids.length; i++) {
          if (!r.nodeId(rep[i]).equals(text(ids[i]))) {
            return "replica " + i + " is " + r.nodeId(rep[i]) + ", expected " + text(ids[i]);
          }
        }
      }
      if (!slot.equals("-")) {
        OptionalInt s = bytes != null ? r.slot(bytes) : r.slot(viaString);
        if (!s.isPresent() || s.getAsInt() != Integer.parseInt(slot)) {
          return "slot " + s + ", expected " + slot;
        }
      }
      if (own == null && bytes != null) {
        batchKeys.add(bytes);
        batchWant.add(want);
      }
      return null;
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /** A router from raw spec bytes (some are not UTF-8 on purpose), as the library sees them. */
  static Router build(byte[] spec, String limits) {
    return limits == null ? Router.fromJson(spec) : Router.fromJson(spec, limits);
  }

  static void finishFile(String file, Router r, List<byte[]> keys, List<String> want, int cases) {
    if (file == null) {
      return;
    }
    if (cases == 0) {
      fail(file, "-", "no case ran");
    }
    if (r != null && !keys.isEmpty()) {
      int[] got = r.routeBatch(keys.toArray(new byte[0][]));
      for (int i = 0; i < got.length; i++) {
        if (!r.nodeId(got[i]).equals(want.get(i))) {
          fail(file, "batch[" + i + "]", "routeBatch gives " + r.nodeId(got[i]) + ", expected " + want.get(i));
          break;
        }
      }
      batchChecks += got.length;
    }
    if (r != null) {
      r.close();
    }
  }

  public static void main(String[] args) throws IOException {
    int minFiles = args.length > 2 && args[1].equals("--min-files") ? Integer.parseInt(args[2]) : 1;
    String file = null;
    Router router = null;
    List<byte[]> batchKeys = new ArrayList<>();
    List<String> batchWant = new ArrayList<>();
    int cases = 0;
    try (BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        String[] f = line.split("\t", -1);
        switch (f[0]) {
          case "file":
            finishFile(file, router, batchKeys, batchWant, cases);
            file = f[1];
            files++;
            cases = 0;
            batchKeys.clear();
            batchWant.clear();
            router = f[2].equals("-") ? null : Router.fromJson(text(f[2]));
            break;
          case "skip":
            skipped++;
            cases++;
            break;
          case "case":
            cases++;
            String why;
            try {
              why = runCase(router, f, batchKeys, batchWant);
            } catch (RuntimeException e) {
              why = "threw " + e;
            }
            if (why == null) {
              passed++;
            } else {
              fail(file, f[1], why);
            }
            break;
          default:
            throw new IOException("unknown line kind " + f[0]);
        }
      }
    }
    finishFile(file, router, batchKeys, batchWant, cases);
    System.out.println(files + " files, " + (passed + failed) + " cases, " + batchChecks + " keys also routed by batch, "
        + skipped + " cases not for Java (key_type, spec_toml)");
    if (files < minFiles) {
      System.out.println("FAIL: " + files + " vector files, expected at least " + minFiles);
      failed++;
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
