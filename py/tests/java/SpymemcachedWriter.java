// The Java side of py/tests/test_mixed_fleet.py: a real spymemcached MemcachedClient with its own
// ketama locator (ConnectionFactoryBuilder, Locator.CONSISTENT, KETAMA_HASH: KetamaNodeLocator)
// sets COUNT keys PREFIX0 ... on the servers given, each with the value "v:" + key, and waits for
// every write. FailureMode.Retry keeps each key on its own server while connections are made.
//
// Usage: java -cp spymemcached.jar:classes SpymemcachedWriter PREFIX COUNT HOST:PORT...
// Prints "wrote COUNT keys"; exits 1 when a write failed.

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedClient;

public final class SpymemcachedWriter {
  public static void main(String[] args) throws Exception {
    System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SunLogger");
    Logger.getLogger("net.spy.memcached").setLevel(Level.WARNING);
    String prefix = args[0];
    int count = Integer.parseInt(args[1]);
    String servers = String.join(" ", Arrays.asList(args).subList(2, args.length));
    MemcachedClient client = new MemcachedClient(new ConnectionFactoryBuilder()
        .setLocatorType(ConnectionFactoryBuilder.Locator.CONSISTENT)
        .setHashAlg(DefaultHashAlgorithm.KETAMA_HASH)
        .setFailureMode(FailureMode.Retry)
        .setOpTimeout(60_000)
        .build(), AddrUtil.getAddresses(servers));
    int failed = 0;
    try {
      List<Future<Boolean>> pending = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String key = prefix + i;
        pending.add(client.set(key, 0, "v:" + key));
        if (pending.size() == 10_000 || i == count - 1) {
          for (Future<Boolean> f : pending) {
            failed += f.get(60, TimeUnit.SECONDS) ? 0 : 1;
          }
          pending.clear();
        }
      }
    } finally {
      client.shutdown(10, TimeUnit.SECONDS);
    }
    System.out.println("wrote " + (count - failed) + " keys");
    System.exit(failed == 0 ? 0 : 1);
  }
}
