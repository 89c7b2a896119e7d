// The released jar as a user gets it (scripts/dist/test-java.sh runs this in an empty folder
// holding only keyroute-<v>.jar, Debian's jna.jar and the compiled tests, with no Rust
// toolchain on PATH): the native library must come from inside the jar, its kr_version(), the
// jar's manifest and its META-INF/maven pom must all carry the expected version, and a router
// must route. ConformanceTest then routes a few vector files through the same jar.
//
// Usage: java -cp keyroute-<v>.jar:jna.jar:classes DistCheck VERSION
// Closes with "N passed, M failed".

import io.github.keyroute.Keyroute;
import io.github.keyroute.Router;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

public final class DistCheck {
  static int passed = 0;
  static int failed = 0;

  static void check(String name, boolean ok) {
    if (ok) {
      passed++;
      System.out.println("ok   " + name);
    } else {
      failed++;
      System.out.println("FAIL " + name);
    }
  }

  static String resource(String path) throws IOException {
    try (InputStream in = DistCheck.class.getClassLoader().getResourceAsStream(path)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  public static void main(String[] args) throws Exception {
    String version = args[0];
    String source;
    try {
      source = Keyroute.librarySource();
    } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
      System.out.println("FAIL the native library cannot be loaded: " + e);
      System.out.println("0 passed, 1 failed");
      System.exit(1);
      return;
    }
    check("the native library is loaded from inside the jar (" + source + ")", source.startsWith("jar:") && source.endsWith("/libkeyroute.so"));
    check("kr_version() is " + version + " (got " + Keyroute.version() + ")", Keyroute.version().equals(version));
    String implementation = Keyroute.class.getPackage().getImplementationVersion();
    check("the jar's Implementation-Version is " + version + " (got " + implementation + ")", version.equals(implementation));
    Properties pom = new Properties();
    String props = resource("META-INF/maven/io.github.keyroute/keyroute/pom.properties");
    if (props != null) {
      pom.load(new java.io.StringReader(props));
    }
    check("META-INF/maven pom.properties: io.github.keyroute:keyroute:" + version,
        "io.github.keyroute".equals(pom.getProperty("groupId")) && "keyroute".equals(pom.getProperty("artifactId"))
            && version.equals(pom.getProperty("version")));
    String pomXml = resource("META-INF/maven/io.github.keyroute/keyroute/pom.xml");
    check("META-INF/maven pom.xml names the version and the JNA dependency", pomXml != null
        && pomXml.contains("<version>" + version + "</version>") && pomXml.contains("<artifactId>jna</artifactId>"));
    try (Router r = Router.fromJson("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"cache-0\"},{\"id\":\"cache-1\"},{\"id\":\"cache-2\"}]}")) {
      // native-ring-3.json: "foo" -> cache-0, "user:123456" -> cache-1, "a" -> cache-2.
      check("route: foo, user:123456, a", r.nodeId(r.route("foo")).equals("cache-0")
          && r.routeId("user:123456").equals("cache-1") && r.nodeId(r.route("a".getBytes(StandardCharsets.UTF_8))).equals("cache-2"));
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
