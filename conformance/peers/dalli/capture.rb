# frozen_string_literal: true

# Captures Dalli::Ring routes by running Debian's ruby-dalli: for each topology, the real
# Dalli::Client servers (Dalli::Protocol::Binary, which parse the server strings and name
# them) in a real Dalli::Ring, and every key of peers/keys.json through Ring#server_for_key.
# No memcached is needed: each server answers `alive?` with true, so the ring never connects
# (Dalli's failover, which rehashes past dead servers, is not what is captured).
# Prints one vector document per line for peers/write_docs.py.
require 'dalli'
require 'json'

peers = File.expand_path('..', __dir__)
keys = JSON.parse(File.read(File.join(peers, 'keys.json')))['keys'].each_with_index.map do |k, i|
  [format('%<tags>s-%<i>03d', tags: k['tags'], i: i), [k['hex']].pack('H*')]
end
version = Gem.loaded_specs['dalli'].version.to_s

def ring_for(strings)
  servers = strings.map do |s|
    server = Dalli::Protocol::Binary.new(s, {})
    server.define_singleton_method(:alive?) { true }
    server
  end
  Dalli::Ring.new(servers, {})
end

topologies = [
  ['1', '1 server', ['10.0.0.1:11211']],
  ['3', '3 servers, weight 1', (1..3).map { |i| "10.0.0.#{i}:11211" }],
  ['4', 'the 3-server topology and a fourth server last', (1..4).map { |i| "10.0.0.#{i}:11211" }],
  ['5w', '5 servers with weights 1..5 (host:port:weight)', (1..5).map { |i| "10.0.0.#{i}:11211:#{i}" }],
  ['60', '60 servers, weight 1', (1..60).map { |i| "cache-#{i}.example:11211" }],
  ['names', 'server strings in each form Dalli names: a host without a port (named host:11211), ' \
            'a bracketed IPv6 address (named without brackets), UNIX sockets with and without a weight',
   ['cache-a', '[::1]:11212', '/var/run/memcached/a.sock', '/var/run/memcached/b.sock:3', 'cache-b:11213:2']]
]

topologies.each do |suffix, what, strings|
  ring = ring_for(strings)
  nodes = ring.servers.map { |s| { 'id' => s.name, 'weight' => s.weight } }
  if ring.continuum
    values = ring.continuum.map(&:value)
    ties = values.each_cons(2).count { |a, b| a == b }
    raise "dalli-#{suffix}: #{ties} equal points (Ruby's sort_by orders them; keyroute does not model it)" if ties.positive?
  end
  cases = keys.map do |id, key|
    { 'id' => id, 'hex' => key.unpack1('H*'), 'node' => ring.server_for_key(key).name }
  end
  doc = {
    'id' => "dalli-#{suffix}",
    'description' => "Dalli #{version} Dalli::Ring, #{what}: servers given to the ring as strings " \
                     "#{strings.first(5).inspect}#{strings.size > 5 ? ' …' : ''}, node ids their Dalli names; every key of " \
                     "peers/keys.json (as a binary string) through Ring#server_for_key. Captured on ruby #{RUBY_VERSION}.",
    'provenance' => { 'kind' => 'peer', 'peer' => 'dalli', 'version' => "#{version} (Debian ruby-dalli)",
                      'captured_by' => 'conformance/peers/dalli/capture.sh' },
    'spec' => { 'algorithm' => 'dalli', 'nodes' => nodes },
    'cases' => cases
  }
  puts JSON.generate(doc)
end
