# frozen_string_literal: true

require 'json'

module Keyroute
  # C memory owned by a Ruby object: freed by #close at once, or by the garbage collector
  # (an FFI::AutoPointer) when the object is dropped unclosed. Calls after #close raise
  # ClosedError. ruby-ffi keeps the GVL over each C call, so #close cannot free memory a call
  # on another Ruby thread is using.
  module Handle
    # Frees the C memory now; idempotent.
    def close
      ptr = @ptr
      @ptr = nil
      ptr&.free
      nil
    end

    # Whether #close was called.
    def closed? = @ptr.nil?

    private

    def ptr = @ptr || raise(ClosedError)

    # A u32 out-parameter of this thread's own: Ruby may switch threads between a C call and the
    # read of what it wrote, so routers and transitions share no buffer between threads.
    def u32_out = (Thread.current[:keyroute_u32] ||= FFI::MemoryPointer.new(:uint32))

    def own(out, free)
      @ptr = FFI::AutoPointer.new(out.read_pointer, free)
    end

    def read_ids(count_fn, id_fn)
      count = FFI::MemoryPointer.new(:uint32)
      Keyroute.check(Native.public_send(count_fn, ptr, count))
      id = FFI::MemoryPointer.new(:pointer)
      len = FFI::MemoryPointer.new(:size_t)
      Array.new(count.read_uint32) do |i|
        Keyroute.check(Native.public_send(id_fn, ptr, i, id, len))
        id.read_pointer.read_bytes(len.read(:size_t)).force_encoding(Encoding::UTF_8).freeze
      end.freeze
    end
  end

  # A router built from a spec: which node owns a key, the same answer as every other keyroute
  # surface. Routes are node indices into #node_ids (or the ids themselves with #route_id).
  class Router
    include Handle

    # The node ids, in the spec's order (frozen strings).
    attr_reader :node_ids

    # Builds a router from a spec: a JSON String or a Hash (turned into JSON), or the spec's
    # fields as keywords (`Router.new(algorithm: 'ring', nodes: [...])`). `limits` (a JSON
    # String or Hash) overrides the default resource limits.
    def self.from_json(spec, limits: nil) = new(spec, limits: limits)

    def initialize(spec = nil, limits: nil, **fields)
      spec ||= fields
      json = spec.is_a?(String) ? spec : JSON.generate(spec)
      out = FFI::MemoryPointer.new(:pointer)
      if limits.nil?
        Keyroute.check(Native.kr_router_from_json(json, json.bytesize, out))
      else
        lim = limits.is_a?(String) ? limits : JSON.generate(limits)
        Keyroute.check(Native.kr_router_from_json_with_limits(json, json.bytesize, lim, lim.bytesize, out))
      end
      own(out, Native.method(:kr_router_free))
      @node_ids = read_ids(:kr_router_node_count, :kr_router_node_id)
    end

    # Number of nodes.
    def node_count = @node_ids.size

    # The id of node `index`.
    def node_id(index) = @node_ids.fetch(index)

    # The owner of `key` (a String, taken as its bytes) as a node index.
    def route(key)
      key = key.to_s
      Keyroute.check(Native.kr_route(ptr, key, key.bytesize, u32_out))
      u32_out.read_uint32
    end

    # The owner of `key` as its node id.
    def route_id(key) = @node_ids[route(key)]

    # The owner of text given as UTF-16 code units (Integers), by the key text policy every
    # surface shares (invalid_utf8 for a lone surrogate).
    def route_utf16(units)
      buf = FFI::MemoryPointer.new(:uint16, [units.size, 1].max)
      buf.write_array_of_uint16(units)
      Keyroute.check(Native.kr_route_utf16(ptr, buf, units.size, u32_out))
      u32_out.read_uint32
    end

    # The owners of many keys as node indices, in one C call (the keys are packed into one
    # buffer and described by one array of kr_key).
    def route_batch(keys)
      n = keys.size
      return [] if n.zero?

      keys = keys.map(&:to_s) unless keys.all?(String)
      packed = keys.pack('a*' * n) # the bytes back to back, whatever each key's encoding
      data = FFI::MemoryPointer.new(:uint8, [packed.bytesize, 1].max)
      data.put_bytes(0, packed)
      at = data.address
      descriptors = Array.new(2 * n)
      keys.each_with_index do |k, i|
        len = k.bytesize
        descriptors[2 * i] = at
        descriptors[2 * i + 1] = len
        at += len
      end
      desc = FFI::MemoryPointer.new(Native::Key, n)
      desc.put_bytes(0, descriptors.pack('Q*'))
      nodes = FFI::MemoryPointer.new(:uint32, n)
      Keyroute.check(Native.kr_route_batch(ptr, desc, n, nodes, n))
      nodes.read_array_of_uint32(n)
    end

    # The owners of many keys as node ids.
    def route_batch_ids(keys) = route_batch(keys).map { |i| @node_ids[i] }

    # `count` distinct nodes for `key`, in preference order (node indices).
    def replicas(key, count)
      key = key.to_s
      nodes = FFI::MemoryPointer.new(:uint32, [count, 1].max)
      Keyroute.check(Native.kr_replicas(ptr, key, key.bytesize, nodes, count))
      nodes.read_array_of_uint32(count)
    end

    # The slot of `key` for routers built on a slot table (native slots, Redis Cluster), else nil.
    def slot(key)
      key = key.to_s
      has = FFI::MemoryPointer.new(:bool)
      slot = FFI::MemoryPointer.new(:uint32)
      Keyroute.check(Native.kr_slot(ptr, key, key.bytesize, has, slot))
      has.read(:bool) ? slot.read_uint32 : nil
    end

    # The 64-bit number this router routes `key` on (route_hash_unsupported where there is none).
    def key_hash(key)
      key = key.to_s
      h = FFI::MemoryPointer.new(:uint64)
      Keyroute.check(Native.kr_key_hash(ptr, key, key.bytesize, h))
      h.read_uint64
    end

    # The owner of any key whose #key_hash is `hash`.
    def route_hash(hash)
      Keyroute.check(Native.kr_route_hash(ptr, hash, u32_out))
      u32_out.read_uint32
    end

    # The spec in canonical form (defaults filled in), as JSON.
    def canonical_json
      json = FFI::MemoryPointer.new(:pointer)
      len = FFI::MemoryPointer.new(:size_t)
      Keyroute.check(Native.kr_router_canonical_json(ptr, json, len))
      json.read_pointer.read_bytes(len.read(:size_t)).force_encoding(Encoding::UTF_8)
    end

    # A 64-bit fingerprint of the placement (equal for routers that route every key alike).
    def fingerprint
      f = FFI::MemoryPointer.new(:uint64)
      Keyroute.check(Native.kr_router_fingerprint(ptr, f))
      f.read_uint64
    end

    # The C handle, for Transition (internal).
    def handle = ptr

    def inspect = "#<Keyroute::Router #{closed? ? 'closed' : "#{node_count} nodes"}>"
  end

  # Keys moving from one router to another: a key routes by `to` once its cut-over point is
  # under `progress` (0.0 to 1.0), else by `from`. Node indices are into #node_ids, the union
  # of both routers' nodes.
  class Transition
    include Handle

    attr_reader :node_ids

    def initialize(from, to, progress = 0.0)
      out = FFI::MemoryPointer.new(:pointer)
      Keyroute.check(Native.kr_transition_new(from.handle, to.handle, Float(progress), out))
      own(out, Native.method(:kr_transition_free))
      @node_ids = read_ids(:kr_transition_node_count, :kr_transition_node_id)
    end

    def progress
      p = FFI::MemoryPointer.new(:double)
      Keyroute.check(Native.kr_transition_progress(ptr, p))
      p.read_double
    end

    def progress=(value)
      Keyroute.check(Native.kr_transition_set_progress(ptr, Float(value)))
    end

    # The node that owns `key` now (an index into #node_ids).
    def route(key)
      key = key.to_s
      Keyroute.check(Native.kr_transition_route(ptr, key, key.bytesize, u32_out))
      u32_out.read_uint32
    end

    def route_id(key) = @node_ids[route(key)]

    # `[owner, previous]`: previous is the node that held the key before it cut over (read
    # from it on a miss), or nil when it has not moved.
    def route_with_fallback(key)
      key = key.to_s
      pl = Native::Placement.new
      Keyroute.check(Native.kr_transition_route_with_fallback(ptr, key, key.bytesize, pl))
      [pl[:owner], pl[:has_previous] ? pl[:previous] : nil]
    end

    # Whether `key` has cut over to `to`.
    def cut_over?(key)
      key = key.to_s
      b = FFI::MemoryPointer.new(:bool)
      Keyroute.check(Native.kr_transition_has_cut_over(ptr, key, key.bytesize, b))
      b.read(:bool)
    end

    def inspect = "#<Keyroute::Transition #{closed? ? 'closed' : "#{node_ids.size} nodes"}>"
  end
end
