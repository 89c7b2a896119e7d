# frozen_string_literal: true

# Dalli routed by keyroute, on real memcached servers this test starts on 127.0.0.1 (free
# ports; stopped by pid): 100,000 keys set through Keyroute::Dalli::Client, each then found on
# the server keyroute routes it to and on no other (a single-server Dalli client per server),
# and read back in full by a plain Dalli::Client, whose own Dalli::Ring must agree with the
# `dalli` preset for every key.
require 'minitest/autorun'
require 'socket'
require 'keyroute/dalli'

Dalli.logger.level = Logger::ERROR # the dead-server test's connection warnings

class TestDalli < Minitest::Test
  N_KEYS = 100_000
  SERVERS = 3

  def self.free_port
    s = TCPServer.new('127.0.0.1', 0)
    s.addr[1]
  ensure
    s&.close
  end

  def self.start_memcached
    memcached = ['/usr/bin/memcached', 'memcached'].find { |m| File.executable?(m) } || 'memcached'
    servers = Array.new(SERVERS) do
      port = free_port
      pid = Process.spawn(memcached, '-l', '127.0.0.1', '-p', port.to_s, '-U', '0', '-m', '256', '-u', 'root',
                          out: File::NULL, err: File::NULL)
      [port, pid]
    end
    servers.each do |port, _|
      200.times do
        TCPSocket.new('127.0.0.1', port).close
        break
      rescue SystemCallError
        sleep 0.05
      end
    end
    servers
  end

  MEMCACHED = start_memcached
  Minitest.after_run do
    MEMCACHED.each do |_, pid|
      Process.kill('TERM', pid)
      Process.wait(pid)
    end
  end

  def names = MEMCACHED.map { |port, _| "127.0.0.1:#{port}" }

  def keys(prefix) = Array.new(N_KEYS) { |i| "#{prefix}#{i}" }

  # Which keys each server holds, asked of each server alone.
  def holdings(keys)
    names.to_h do |name|
      one = ::Dalli::Client.new(name, raw: true)
      found = keys.each_slice(5000).flat_map { |slice| one.get_multi(slice).keys }
      one.close
      [name, found]
    end
  end

  def write(client, keys)
    keys.each_slice(1000) { |slice| client.multi { slice.each { |k| client.set(k, "v:#{k}", 0, raw: true) } } }
  end

  def test_keys_land_where_keyroute_routes_them_and_dalli_agrees
    client = Keyroute::Dalli::Client.new(names)
    ks = keys('dalli:')
    write(client, ks)
    ring = client.send(:ring)
    router = ring.router
    want = router.route_batch_ids(ks)
    held = holdings(ks)
    got = {}
    held.each { |name, found| found.each { |k| (got[k] ||= []) << name } }
    misplaced = ks.each_with_index.reject { |k, i| got[k] == [want[i]] }
    puts "dalli: #{N_KEYS} keys through Keyroute::Dalli::Client on #{SERVERS} memcached: " \
         "#{held.map { |n, f| "#{n} #{f.size}" }.join(', ')}; #{misplaced.size} misplaced"
    assert_empty misplaced.first(5), "#{misplaced.size} keys not (only) on the server keyroute routes them to"

    # Dalli's own ring over the same servers reads every key back, and agrees key by key.
    plain = ::Dalli::Client.new(names, raw: true)
    read = ks.each_slice(5000).sum { |slice| plain.get_multi(slice).size }
    assert_equal N_KEYS, read, "a plain Dalli::Client (Dalli::Ring) found #{read} of #{N_KEYS}"
    dalli_ring = plain.send(:ring)
    disagree = ks.each_with_index.count { |k, i| dalli_ring.server_for_key(k).name != want[i] }
    assert_equal 0, disagree, "Dalli::Ring and keyroute's dalli preset disagree on #{disagree} keys"
    plain.close
    client.close
  end

  def test_another_algorithm_through_the_hook
    client = Keyroute::Dalli::Client.new(names, keyroute: { algorithm: 'libmemcached', params: { distribution: 'ketama' } })
    ks = keys('ketama:').first(20_000)
    write(client, ks)
    router = client.send(:ring).router
    spec = Keyroute::Router.new(algorithm: 'libmemcached', params: { distribution: 'ketama' },
                                nodes: MEMCACHED.map { |port, _| { id: "127.0.0.1:#{port}", host: '127.0.0.1', port: port } })
    assert_equal spec.route_batch_ids(ks), router.route_batch_ids(ks)
    held = holdings(ks)
    want = router.route_batch_ids(ks).zip(ks).group_by(&:first).transform_values { |v| v.map(&:last).sort }
    names.each { |n| assert_equal want.fetch(n, []), held[n].sort, n }
    # get_multi groups keys by server in one keyroute call.
    assert_equal ks.size, ks.each_slice(5000).sum { |s| client.get_multi(s).size }
    client.close
  end

  def test_a_dead_owner_falls_back_to_the_next_replica
    client = Keyroute::Dalli::Client.new(names + ['127.0.0.1:1'], socket_timeout: 0.2, socket_max_failures: 1)
    ring = client.send(:ring)
    key = (0..).lazy.map { |i| "dead#{i}" }.find { |k| ring.router.route_id(k) == '127.0.0.1:1' }
    assert client.set(key, 'v', 0, raw: true)
    second = ring.router.replicas(key, 2).last
    assert_equal ring.router.node_id(second), ring.server_for_key(key).name
    client.close
  end
end
