# frozen_string_literal: true

# The Ruby side of py/tests/test_ruby_fleet.py: a plain Dalli::Client (Debian's ruby-dalli, its
# own Dalli::Ring) sets COUNT keys PREFIX0 ... on the servers given, each with the raw value
# "v:" + key, in quiet (multi) batches. Python reads every key back, so a lost write fails the test.
#
# Usage: ruby dalli_writer.rb PREFIX COUNT HOST:PORT...
# Prints "wrote COUNT keys".
require 'dalli'

prefix = ARGV[0]
count = Integer(ARGV[1])
client = Dalli::Client.new(ARGV[2..], raw: true)
(0...count).each_slice(1000) do |slice|
  client.multi { slice.each { |i| client.set("#{prefix}#{i}", "v:#{prefix}#{i}", 0, raw: true) } }
end
client.close
puts "wrote #{count} keys"
