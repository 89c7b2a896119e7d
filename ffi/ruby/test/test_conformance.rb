# frozen_string_literal: true

# The conformance corpus through the gem: every case of every vector file, with the loading
# contract of the C runner (ffi/tests/conformance.c) and the Go one. The file's spec builds a
# router; a case may carry its own spec (`spec`, compacted; `spec_json`; `spec_hex`;
# `spec_repeat`), built under its `limits` or the defaults. The key is `key` (text), `key_hex`
# or `key_repeat` (bytes), or `key_utf16` (Router#route_utf16). Expected results are node ids,
# replicas and slots, or an error compared by code, name and exception class. Where the router
# routes on a key hash, route_hash of key_hash must give the same owner. Every file's plain keys
# also go through route_batch in one call. Cases no Ruby caller can express are counted as not
# for this surface: `key_type` (a key of a wrong type) and `spec_toml` (the CLI's TOML).
#
# The corpus is KEYROUTE_VECTORS (an installed corpus), else the checkout's
# conformance/vectors/v1. Fewer than KEYROUTE_MIN_FILES files (default 100) fail, as does a
# file with no case run.
require 'minitest/autorun'
require 'json'
require 'keyroute'

class TestConformance < Minitest::Test
  DIR = ENV.fetch('KEYROUTE_VECTORS') { File.expand_path('../../../conformance/vectors/v1', __dir__) }

  def repeat(r)
    conv = r['hex'] ? ->(s) { [s].pack('H*') } : ->(s) { s.b }
    conv.call(r['head'] || '') + (conv.call(r['unit'] || '') * r['times']) + conv.call(r['tail'] || '')
  end

  def own_spec(c)
    return JSON.generate(c['spec']) if c.key?('spec')
    return c['spec_json'] if c.key?('spec_json')
    return [c['spec_hex']].pack('H*') if c.key?('spec_hex')
    return repeat(c['spec_repeat']) if c.key?('spec_repeat')

    nil
  end

  # nil when `err` is the case's expected error, else why not.
  def expect_error(c, err)
    return "unexpected error #{err.class}: #{err.message}" unless c['error'] && c['code']
    return "error #{err.class} is not a Keyroute::Error" unless err.is_a?(Keyroute::Error)
    return "error #{err.name} (#{err.code}), expected #{c['error']} (#{c['code']})" if err.code != c['code'] || err.name != c['error']
    return "error class #{err.class} is not the kind's" unless err.instance_of?(Keyroute::ERRORS.fetch(c['code']))

    nil
  end

  def run_case(file_router, c, batch, counts)
    r = file_router
    own = nil
    spec = own_spec(c)
    if spec
      begin
        own = c.key?('limits') ? Keyroute::Router.new(spec, limits: JSON.generate(c['limits'])) : Keyroute::Router.new(spec)
      rescue Keyroute::Error => e
        return expect_error(c, e)
      end
      r = own
    end
    return 'the case has no spec and the file has none' unless r

    check_key(r, file_router, c, batch, counts)
  ensure
    own&.close
  end

  def key_of(c)
    return c['key'].b if c.key?('key')
    return [c['key_hex']].pack('H*') if c.key?('key_hex')
    return repeat(c['key_repeat']) if c.key?('key_repeat')

    nil
  end

  def check_key(r, file_router, c, batch, counts)
    if c.key?('key_utf16') && !c.key?('key')
      begin
        node = r.route_utf16(c['key_utf16'])
      rescue Keyroute::Error => e
        return expect_error(c, e)
      end
      return "node #{r.node_id(node).inspect}, expected #{c.inspect}" if c['error'] || r.node_id(node) != c['node']

      return nil
    end
    key = key_of(c)
    return (c['error'] ? "expected #{c['error']}, the spec built" : nil) if key.nil?

    if c.key?('replicas_count')
      begin
        got = r.replicas(key, c['replicas_count'])
      rescue Keyroute::Error => e
        return expect_error(c, e)
      end
      return "expected an error, got replicas #{got}"
    end
    begin
      node = r.route(key)
    rescue Keyroute::Error => e
      return expect_error(c, e)
    end
    return "expected error #{c['error']}, got node #{r.node_id(node).inspect}" if c['error']
    return "node #{r.node_id(node).inspect}, expected #{c['node'].inspect}" if r.node_id(node) != c['node']
    return 'route_id disagrees with route' if r.route_id(key) != c['node']

    begin
      h = r.key_hash(key)
      return "routing the key's hash #{h} disagrees with route" if r.route_hash(h) != node

      counts[:hashed] += 1
    rescue Keyroute::RouteHashUnsupportedError
      begin
        r.route_hash(0)
        return 'key_hash refused, route_hash did not'
      rescue Keyroute::RouteHashUnsupportedError
        nil
      end
    end
    return "slot #{r.slot(key).inspect}, expected #{c['slot']}" if c.key?('slot') && r.slot(key) != c['slot']

    if c.key?('replicas')
      got = r.replicas(key, c['replicas'].size).map { |i| r.node_id(i) }
      return "replicas #{got}, expected #{c['replicas']}" if got != c['replicas']
    end
    if r.equal?(file_router)
      batch[:keys] << key
      batch[:want] << c['node']
    end
    nil
  end

  def test_conformance
    paths = Dir.glob(File.join(DIR, '*.json')).sort
    min_files = Integer(ENV.fetch('KEYROUTE_MIN_FILES', '100'))
    assert_operator paths.size, :>=, min_files, "the corpus at #{DIR} has #{paths.size} files"
    counts = Hash.new(0)
    failures = []
    paths.each do |path|
      f = JSON.parse(File.read(path))
      name = File.basename(path)
      counts[:peer] += 1 if f.dig('provenance', 'kind') == 'peer'
      file_router = nil
      if f.key?('spec')
        begin
          file_router = Keyroute::Router.new(JSON.generate(f['spec']))
        rescue Keyroute::Error => e
          failures << "#{name}: the file's spec does not build: #{e.message}"
          counts[:failed] += f['cases'].size
          next
        end
      end
      ran = 0
      batch = { keys: [], want: [] }
      f['cases'].each do |c|
        if c.key?('key_type') || c.key?('spec_toml')
          counts[:skipped] += 1
          next
        end
        ran += 1
        why = run_case(file_router, c, batch, counts)
        if why
          counts[:failed] += 1
          failures << "#{name} #{c['id']}: #{why}"
        else
          counts[:passed] += 1
        end
      end
      failures << "#{name}: no case ran" if f['cases'].empty? || (ran + counts[:skipped]).zero?
      if file_router && !batch[:keys].empty?
        got = file_router.route_batch_ids(batch[:keys])
        if got == batch[:want]
          counts[:batched] += got.size
        else
          failures << "#{name}: route_batch disagrees with route"
        end
      end
      file_router&.close
    end
    puts format('conformance: %<files>d files (%<peer>d captured from peers): %<passed>d passed, %<failed>d failed, ' \
                '%<skipped>d not for this surface; %<hashed>d through route_hash, %<batched>d through route_batch',
                files: paths.size, peer: counts[:peer], passed: counts[:passed], failed: counts[:failed],
                skipped: counts[:skipped], hashed: counts[:hashed], batched: counts[:batched])
    assert_empty failures.first(40), "#{failures.size} failures"
    assert_operator counts[:passed], :>, 0
  end
end
