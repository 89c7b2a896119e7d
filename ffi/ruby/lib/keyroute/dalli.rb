# frozen_string_literal: true

require 'dalli'
require 'keyroute'

module Keyroute
  # Dalli routed by keyroute. Dalli 3.0 builds its Dalli::Ring inside the client (the private
  # Dalli::Client#ring) and has no option to pass another, so the hook is a pair of subclasses:
  # Keyroute::Dalli::Client is a Dalli::Client whose ring is a Keyroute::Dalli::Ring, a
  # Dalli::Ring that routes with a keyroute router built from the client's servers. Everything
  # else (protocol, namespaces, the long-key digest, serialisation) is Dalli's own.
  #
  #   client = Keyroute::Dalli::Client.new(%w[10.0.0.1:11211 10.0.0.2:11211],
  #                                        keyroute: { algorithm: 'libmemcached',
  #                                                    params: { distribution: 'ketama' } })
  #
  # The `keyroute:` option is a spec without its nodes: `algorithm` (default `dalli`, which
  # routes as Dalli's own ring does) and optional `params`. The nodes are the servers, in the
  # client's order, with Dalli's names as ids and Dalli's weights; for the presets that take
  # servers (`libmemcached`, `spymemcached`, `twemproxy`) also their host and port.
  module Dalli
    # The algorithms whose nodes are memcached servers with a host and port.
    SERVER_FORM = %w[libmemcached spymemcached twemproxy].freeze

    # The spec a keyroute option gives for Dalli servers (Dalli::Protocol::Binary instances).
    def self.spec(servers, keyroute = {})
      keyroute = keyroute.transform_keys(&:to_s)
      algorithm = keyroute.fetch('algorithm', 'dalli').to_s
      nodes = servers.map do |s|
        node = { 'id' => s.name, 'weight' => s.weight }
        node.merge!('host' => s.hostname, 'port' => s.port) if SERVER_FORM.include?(algorithm) && s.port
        node
      end
      spec = { 'algorithm' => algorithm, 'nodes' => nodes }
      spec['params'] = keyroute['params'] if keyroute['params']
      spec
    end

    # A Dalli::Ring whose routes are keyroute's. A dead owner's keys go to the next live node of
    # keyroute's replica order (the same fallback in every language), when the client fails over.
    class Ring < ::Dalli::Ring
      # The keyroute router (node i is servers[i]).
      attr_reader :router

      def initialize(servers, options, keyroute = {}) # rubocop:disable Lint/MissingSuper
        @servers = servers
        @continuum = nil
        threadsafe! unless options[:threadsafe] == false
        @failover = options[:failover] != false
        @router = Keyroute::Router.new(Keyroute::Dalli.spec(servers, keyroute))
      end

      def server_for_key(key)
        server = @servers[@router.route(key)]
        return server if server.alive?

        fallback(key) || raise(::Dalli::RingError, 'No server available')
      end

      # All keys routed in one keyroute call; keys of a dead owner fall back one by one.
      def keys_grouped_by_server(key_arr)
        owners = @router.route_batch(key_arr)
        alive = {}
        groups = Hash.new { |h, k| h[k] = [] }
        key_arr.each_with_index do |key, i|
          server = @servers[owners[i]]
          alive[server] = server.alive? unless alive.key?(server)
          groups[alive[server] ? server : fallback(key)] << key
        end
        groups
      end

      private

      def fallback(key)
        return nil unless @failover && @servers.size > 1

        @router.replicas(key, @servers.size).drop(1).map { |i| @servers[i] }.find(&:alive?)
      rescue Keyroute::Error
        nil # an algorithm without a replica order (modulo presets): no fallback
      end
    end

    # A Dalli::Client routed by keyroute: `keyroute:` (see Keyroute::Dalli) picks the algorithm.
    class Client < ::Dalli::Client
      def initialize(servers = nil, options = {})
        @keyroute = options.fetch(:keyroute, {})
        super(servers, options.reject { |k, _| k == :keyroute })
      end

      private

      def ring
        @ring ||= Keyroute::Dalli::Ring.new(
          @servers.map { |s| protocol_implementation.new(s, @options) }, @options, @keyroute
        )
      end
    end
  end
end
