# frozen_string_literal: true

# The gem's own tests: every method, errors by kind and code, close and GC discipline.
require 'minitest/autorun'
require 'keyroute'

class TestRouter < Minitest::Test
  SPEC = { algorithm: 'ring', nodes: [{ id: 'cache-a' }, { id: 'cache-b' }, { id: 'cache-c' }] }.freeze

  def setup
    @r = Keyroute::Router.new(SPEC)
  end

  def teardown
    @r.close
  end

  def test_routes_and_ids
    assert_equal %w[cache-a cache-b cache-c], @r.node_ids
    assert_equal 3, @r.node_count
    node = @r.route('user:42')
    assert_includes 0..2, node
    assert_equal @r.node_id(node), @r.route_id('user:42')
    assert_equal node, @r.route('user:42'.b), 'a key is its bytes, whatever its encoding'
    assert_equal node, @r.route_hash(@r.key_hash('user:42'))
    assert_equal node, Keyroute::Router.from_json(JSON.generate(SPEC)).route('user:42')
    assert_match(/"algorithm":"ring"/, @r.canonical_json)
    assert_equal Keyroute::Router.new(SPEC).fingerprint, @r.fingerprint
  end

  def test_batch_is_per_key_route
    keys = (0...2000).map { |i| "key-#{i}" } + ['', "\xff\x00bin".b, 'é' * 40]
    assert_equal keys.map { |k| @r.route(k) }, @r.route_batch(keys)
    assert_equal keys.map { |k| @r.route_id(k) }, @r.route_batch_ids(keys)
    assert_equal [], @r.route_batch([])
  end

  def test_replicas_and_slot
    reps = @r.replicas('k', 3)
    assert_equal 3, reps.uniq.size
    assert_equal @r.route('k'), reps.first
    assert_raises(Keyroute::ReplicasExceedNodesError) { @r.replicas('k', 4) }
    assert_nil @r.slot('k')
    cluster = Keyroute::Router.new(algorithm: 'redis-cluster',
                                   nodes: [{ id: 'a', slots: [[0, 8191]] }, { id: 'b', slots: [[8192, 16_383]] }])
    assert_equal 12_182, cluster.slot('foo')
    assert_raises(Keyroute::RouteHashUnsupportedError) { cluster.key_hash('foo') }
  end

  def test_errors_by_kind_carry_the_stable_code
    e = assert_raises(Keyroute::InvalidJsonError) { Keyroute::Router.new('{') }
    assert_equal Keyroute::InvalidJsonError::CODE, e.code
    assert_equal 'invalid_json', e.name
    assert_kind_of Keyroute::Error, e
    e = assert_raises(Keyroute::UnknownAlgorithmError) { Keyroute::Router.new(algorithm: 'nope', nodes: [{ id: 'a' }]) }
    assert_equal 'unknown_algorithm', e.name
    assert_raises(Keyroute::InvalidUtf8Error) { @r.route_utf16([0xD800]) }
    # Every kind of the table is a class with its code, and the codes are distinct.
    assert_operator Keyroute::ERRORS.size, :>=, 30
    Keyroute::ERRORS.each do |code, klass|
      assert_equal code, klass::CODE
      assert_operator klass, :<, Keyroute::Error
      assert Keyroute::DESCRIPTIONS.fetch(code)
    end
  end

  def test_limits
    e = assert_raises(Keyroute::TooManyNodesError) { Keyroute::Router.new(SPEC, limits: { max_nodes: 2 }) }
    assert_equal 'too_many_nodes', e.name
  end

  def test_calls_after_close_raise
    r = Keyroute::Router.new(SPEC)
    r.close
    r.close # idempotent
    assert r.closed?
    %i[route route_id key_hash].each { |m| assert_raises(Keyroute::ClosedError) { r.public_send(m, 'k') } }
    assert_raises(Keyroute::ClosedError) { r.route_batch(['k']) }
    assert_raises(Keyroute::ClosedError) { r.replicas('k', 1) }
    assert_raises(Keyroute::ClosedError) { Keyroute::Transition.new(r, @r) }
  end

  # Routers dropped unclosed are freed by the garbage collector: kr_router_free runs for them
  # (counted through a module prepended to the C binding, which the AutoPointers call).
  def test_dropped_routers_are_freed_by_the_gc
    freed = []
    counter = Module.new do
      define_method(:kr_router_free) do |p|
        freed << p.address
        super(p)
      end
    end
    Keyroute::Native.singleton_class.prepend(counter)
    200.times { Keyroute::Router.new(SPEC).route('k') }
    5.times { GC.start(full_mark: true, immediate_sweep: true) }
    # The conservative GC may keep a few alive through stale stack words; most must be freed.
    assert_operator freed.size, :>=, 150, "#{freed.size} of 200 dropped routers freed"
    r = Keyroute::Router.new(SPEC)
    address = r.instance_variable_get(:@ptr).address
    r.close
    assert_includes freed, address, 'close frees at once'
  end

  # Threads share routers: each gets its own answers (no out-parameter is shared between them).
  def test_threads_share_a_router
    keys = (0...3000).map { |i| "t#{i}" }
    want = @r.route_batch(keys)
    results = Array.new(4) { Thread.new { keys.map { |k| @r.route(k) } } }.map(&:value)
    results.each { |got| assert_equal want, got }
  end

  def test_transition
    from = Keyroute::Router.new(SPEC)
    to = Keyroute::Router.new(algorithm: 'ring', nodes: SPEC[:nodes] + [{ id: 'cache-d' }])
    t = Keyroute::Transition.new(from, to, 0.0)
    assert_equal %w[cache-a cache-b cache-c cache-d], t.node_ids
    keys = (0...500).map { |i| "k#{i}" }
    assert_equal(keys.map { |k| from.route_id(k) }, keys.map { |k| t.route_id(k) })
    t.progress = 1.0
    assert_in_delta 1.0, t.progress
    assert_equal(keys.map { |k| to.route_id(k) }, keys.map { |k| t.route_id(k) })
    moved = keys.select { |k| from.route_id(k) != to.route_id(k) }
    refute_empty moved
    owner, previous = t.route_with_fallback(moved.first)
    assert_equal to.route_id(moved.first), t.node_ids[owner]
    assert_equal from.route_id(moved.first), t.node_ids[previous]
    assert t.cut_over?(moved.first)
    t.close
    assert_raises(Keyroute::ClosedError) { t.route('k') }
  end

  def test_presets_from_ruby_peers
    dalli = Keyroute::Router.new(algorithm: 'dalli', nodes: [{ id: '10.0.0.1:11211' }, { id: '10.0.0.2:11211', weight: 2 }])
    assert_equal 2, dalli.node_count
    redis = Keyroute::Router.new(algorithm: 'redis-rb-distributed',
                                 nodes: [{ id: 'redis://10.0.0.1:6379/0' }, { id: 'redis://10.0.0.2:6379/0' }])
    assert_equal redis.route('{user1000}.following'), redis.route('{user1000}.followers')
    assert_equal redis.route('user1000'), redis.route('{user1000}.following')
  end
end
