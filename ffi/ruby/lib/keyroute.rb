# frozen_string_literal: true

# keyroute: consistent-hashing routing, the same answer in every language. This gem is
# ruby-ffi over the installed C library (libkeyroute).
require_relative 'keyroute/native'
require_relative 'keyroute/errors'
require_relative 'keyroute/router'

module Keyroute
  # The loaded C library's version.
  def self.library_version = Native.kr_version
end
