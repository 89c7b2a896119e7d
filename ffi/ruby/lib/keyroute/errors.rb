# frozen_string_literal: true

module Keyroute
  # Every error keyroute raises. A kind of the error table is a subclass (errors_gen.rb,
  # generated: `Keyroute::InvalidSpecError`, …) whose `code` is the stable code every surface
  # reports and whose `name` is its snake_case name.
  class Error < StandardError
    # The stable code (Integer), the kind's name and its category (nil for ClosedError).
    def code = self.class::CODE
    def name = self.class::NAME
    def category = self.class::CATEGORY
  end

  # A call on a Router or Transition after its close.
  class ClosedError < Error
    CODE = nil
    NAME = 'closed'
    CATEGORY = nil

    def initialize(msg = 'keyroute: the handle is closed') = super
  end
end

require_relative 'errors_gen'

module Keyroute
  # Raises the error of a failed C call (status != 0) with the C library's message, read on
  # the same thread straight after the call (ruby-ffi keeps the GVL over a call, and a Ruby
  # thread stays on its native thread, so the per-thread message is the call's).
  def self.check(status)
    return if status.zero?

    klass = ERRORS.fetch(status) { raise Error, "keyroute: unknown status #{status}" }
    raise klass, Native.kr_last_error_message || klass::NAME
  end
end
