# frozen_string_literal: true

# The gem's speed against the Ruby rings, in one run (ffi/ruby/bench.sh builds and points it at
# the release library): keyroute per call (Router#route) and batched (Router#route_batch, 1,000
# keys a call) against Dalli 3.0's Dalli::Ring#server_for_key (servers answering alive? with
# true, so nothing connects) with the `dalli` preset, and redis-rb 4.8's
# Redis::Distributed#node_for with the `redis-rb-distributed` preset, at N = 10, 100 and 1000
# nodes. Prints a Markdown table of medians (ns per key) over the passes and ratios (the Ruby
# ring's time / keyroute's: above 1, keyroute is faster).
#
# Usage: ruby bench.rb [KEYS [PASSES]]   (200,000 keys, 5 passes by default)
require 'dalli'
require 'redis'
require 'redis/distributed'
require 'keyroute'

KEYS = Integer(ARGV[0] || 200_000)
PASSES = Integer(ARGV[1] || 5)
keys = Array.new(KEYS) { |i| format('user:%07d', i) }.freeze

def ns_per_key(keys, passes)
  times = Array.new(passes) do
    t = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - t
  end
  times.sort[passes / 2].fdiv(keys.size)
end

def host(i) = "10.#{i / 65_536}.#{(i / 256) % 256}.#{i % 256}"

rows = []
check = []
[10, 100, 1000].each do |n|
  servers = Array.new(n) do |i|
    s = Dalli::Protocol::Binary.new("#{host(i)}:11211", {})
    s.define_singleton_method(:alive?) { true }
    s
  end
  ring = Dalli::Ring.new(servers, threadsafe: false)
  dalli = Keyroute::Router.new(algorithm: 'dalli', nodes: servers.map { |s| { id: s.name } })
  check << (keys.first(10_000).map { |k| ring.server_for_key(k).name } == dalli.route_batch_ids(keys.first(10_000)))
  rows << ['dalli', n,
           ns_per_key(keys, PASSES) { keys.each { |k| ring.server_for_key(k) } },
           ns_per_key(keys, PASSES) { keys.each { |k| dalli.route(k) } },
           ns_per_key(keys, PASSES) { keys.each_slice(1000) { |s| dalli.route_batch(s) } }]

  dist = Redis::Distributed.new(Array.new(n) { |i| "redis://#{host(i)}:6379/0" })
  redis = Keyroute::Router.new(algorithm: 'redis-rb-distributed', nodes: dist.nodes.map { |c| { id: c.id } })
  check << (keys.first(10_000).map { |k| dist.node_for(k).id } == redis.route_batch_ids(keys.first(10_000)))
  rows << ['redis-rb', n,
           ns_per_key(keys, PASSES) { keys.each { |k| dist.node_for(k) } },
           ns_per_key(keys, PASSES) { keys.each { |k| redis.route(k) } },
           ns_per_key(keys, PASSES) { keys.each_slice(1000) { |s| redis.route_batch(s) } }]
end
raise 'a Ruby ring and its preset disagree' unless check.all?

puts "ruby #{RUBY_VERSION}, ruby-ffi #{FFI::VERSION}, dalli #{Gem.loaded_specs['dalli'].version}, " \
     "redis-rb #{Gem.loaded_specs['redis'].version}, keyroute #{Keyroute.library_version}; " \
     "#{KEYS} keys, median of #{PASSES} passes (every preset agreed with its ring on 10,000 keys)"
puts
puts '| ring | N | Ruby ring ns/key | keyroute per call | keyroute batched (1,000) | ratio per call | ratio batched |'
puts '|---|---:|---:|---:|---:|---:|---:|'
rows.each do |name, n, peer, call, batch|
  puts format('| %<name>s | %<n>d | %<peer>.0f | %<call>.0f | %<batch>.0f | %<rc>.2f | %<rb>.2f |',
              name: name, n: n, peer: peer, call: call, batch: batch, rc: peer / call, rb: peer / batch)
end
