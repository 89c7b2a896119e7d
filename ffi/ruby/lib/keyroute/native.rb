# frozen_string_literal: true

require 'ffi'

module Keyroute
  # The C ABI (ffi/include/keyroute.h) through ruby-ffi. Internal: use Router and Transition.
  #
  # The library is KEYROUTE_LIB (a path to libkeyroute.so) when set, else the one pkg-config
  # knows (`pkg-config --variable=libdir keyroute`), else `libkeyroute` on the loader's path.
  module Native
    extend FFI::Library

    def self.candidates
      found = []
      found << ENV['KEYROUTE_LIB'] if ENV['KEYROUTE_LIB'] && !ENV['KEYROUTE_LIB'].empty?
      libdir = begin
        IO.popen(%w[pkg-config --variable=libdir keyroute], err: File::NULL, &:read).strip
      rescue SystemCallError
        ''
      end
      found << File.join(libdir, 'libkeyroute.so') unless libdir.empty?
      found << 'keyroute'
    end

    ffi_lib candidates

    # One key of a batch.
    class Key < FFI::Struct
      layout :ptr, :pointer, :len, :size_t
    end

    # Where a key routes during a transition.
    class Placement < FFI::Struct
      layout :owner, :uint32, :previous, :uint32, :has_previous, :bool
    end

    attach_function :kr_version, [], :string
    attach_function :kr_last_error_message, [], :string
    attach_function :kr_router_from_json, %i[pointer size_t pointer], :uint32
    attach_function :kr_router_from_json_with_limits, %i[pointer size_t pointer size_t pointer], :uint32
    attach_function :kr_router_free, [:pointer], :void
    attach_function :kr_route, %i[pointer pointer size_t pointer], :uint32
    attach_function :kr_route_utf16, %i[pointer pointer size_t pointer], :uint32
    attach_function :kr_route_batch, %i[pointer pointer size_t pointer size_t], :uint32
    attach_function :kr_replicas, %i[pointer pointer size_t pointer size_t], :uint32
    attach_function :kr_slot, %i[pointer pointer size_t pointer pointer], :uint32
    attach_function :kr_router_node_count, %i[pointer pointer], :uint32
    attach_function :kr_router_node_id, %i[pointer uint32 pointer pointer], :uint32
    attach_function :kr_router_fingerprint, %i[pointer pointer], :uint32
    attach_function :kr_router_canonical_json, %i[pointer pointer pointer], :uint32
    attach_function :kr_key_hash, %i[pointer pointer size_t pointer], :uint32
    attach_function :kr_route_hash, %i[pointer uint64 pointer], :uint32
    attach_function :kr_transition_new, %i[pointer pointer double pointer], :uint32
    attach_function :kr_transition_free, [:pointer], :void
    attach_function :kr_transition_progress, %i[pointer pointer], :uint32
    attach_function :kr_transition_set_progress, %i[pointer double], :uint32
    attach_function :kr_transition_route, %i[pointer pointer size_t pointer], :uint32
    attach_function :kr_transition_route_with_fallback, %i[pointer pointer size_t pointer], :uint32
    attach_function :kr_transition_has_cut_over, %i[pointer pointer size_t pointer], :uint32
    attach_function :kr_transition_node_count, %i[pointer pointer], :uint32
    attach_function :kr_transition_node_id, %i[pointer uint32 pointer pointer], :uint32
  end
end
