# frozen_string_literal: true

# Captures Redis::Distributed routes by running Debian's ruby-redis: for each topology a real
# Redis::Distributed (its Redis clients name the nodes by their ids; none connects, since
# node_for only hashes), and every key of peers/keys.json through Distributed#node_for; with
# `tag: false`, through the bare Redis::HashRing#get_node. Prints one vector document per line
# for peers/write_docs.py.
require 'redis'
require 'redis/distributed'
require 'json'

peers = File.expand_path('..', __dir__)
keys = JSON.parse(File.read(File.join(peers, 'keys.json')))['keys'].each_with_index.map do |k, i|
  [format('%<tags>s-%<i>03d', tags: k['tags'], i: i), [k['hex']].pack('H*')]
end
# Keys for the tag rule's corners (each checked against the rule in the core's tests).
extra = ["{a}b", "x{a}b", "{}}", "{}", "{a\nb}c", "x\n{t}y", "x\r{t}y", "{ab", "{\n}", "\n{a}", "{{a}}",
         "{}a}", "x\n\n{q}", "{a}\n{b}", "{user1000}.following", "{user1000}.followers"].map do |k|
  id = k.bytes.all? { |b| b >= 0x20 && b < 0x7F } ? "extra-#{k}" : "extra-h-#{k.unpack1('H*')}"
  [id, k.b]
end
version = Gem.loaded_specs['redis'].version.to_s

# A key as a Ruby application holds it: a UTF-8 string when the bytes are UTF-8, else binary
# (Redis::Distributed raises on a UTF-8 string that is not valid UTF-8).
def ruby_key(bytes)
  utf8 = bytes.dup.force_encoding(Encoding::UTF_8)
  utf8.valid_encoding? ? utf8 : bytes
end

urls = ->(n) { (1..n).map { |i| "redis://10.0.0.#{i}:6379/0" } }
topologies = [
  ['1', '1 node', urls.call(1), {}],
  ['3', '3 nodes', urls.call(3), {}],
  ['4', 'the 3-node topology and a fourth node last', urls.call(4), {}],
  ['60', '60 nodes', (1..60).map { |i| "redis://cache-#{i}.example:6379/0" }, {}],
  ['ids', 'node configs in each form redis-rb names: a URL with a database, rediss://, a UNIX socket ' \
          'path, an explicit id',
   ['redis://10.0.0.1:6380/2', 'rediss://10.0.0.2:6379', { path: '/var/run/redis.sock' },
    { host: '10.0.0.4', port: 6381, id: 'cache-d' }], {}],
  ['replicas-40', '3 nodes on Redis::HashRing.new([], 40)', urls.call(3), { replicas: 40 }],
  ['notag', '3 nodes through the bare Redis::HashRing#get_node (no tag rule)', urls.call(3), { tag: false }]
]

topologies.each do |suffix, what, configs, opt|
  options = {}
  options[:ring] = Redis::HashRing.new([], opt[:replicas]) if opt[:replicas]
  dist = Redis::Distributed.new(configs, options)
  nodes = dist.nodes.map { |c| { 'id' => c.id } }
  route = opt[:tag] == false ? ->(k) { dist.ring.get_node(k) } : ->(k) { dist.node_for(k) }
  cases = (keys + extra).map do |id, key|
    { 'id' => id, 'hex' => key.unpack1('H*'), 'node' => route.call(ruby_key(key)).id }
  end
  params = {}
  params['replicas'] = opt[:replicas] if opt[:replicas]
  params['tag'] = false if opt[:tag] == false
  spec = { 'algorithm' => 'redis-rb-distributed' }
  spec['params'] = params unless params.empty?
  spec['nodes'] = nodes
  doc = {
    'id' => "redis-rb-distributed-#{suffix}",
    'description' => "redis-rb #{version} Redis::Distributed, #{what}: node ids the clients' ids; every key " \
                     'of peers/keys.json and the tag-rule corners, as UTF-8 strings where they are UTF-8 and ' \
                     "binary strings otherwise. Captured on ruby #{RUBY_VERSION}.",
    'provenance' => { 'kind' => 'peer', 'peer' => 'redis-rb', 'version' => "#{version} (Debian ruby-redis)",
                      'captured_by' => 'conformance/peers/redis-rb-distributed/capture.sh' },
    'spec' => spec,
    'cases' => cases
  }
  puts JSON.generate(doc)
end
