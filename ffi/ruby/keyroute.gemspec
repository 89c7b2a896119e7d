# frozen_string_literal: true

# The keyroute gem: ruby-ffi over the installed C library (libkeyroute). Its version is the
# workspace's (scripts/dist/version.sh), given by scripts/dist/build-ruby.sh as KEYROUTE_VERSION.
Gem::Specification.new do |s|
  s.name = 'keyroute'
  s.version = ENV.fetch('KEYROUTE_VERSION') { `#{File.join(__dir__, '../../scripts/dist/version.sh')}`.strip }
  s.summary = 'Consistent-hashing routing: which node owns this key, the same in every language'
  s.description = 'keyroute for Ruby: routers, transitions and errors by code over the keyroute C library ' \
                  '(ruby-ffi), and Dalli routed by keyroute.'
  s.authors = ['keyroute contributors']
  s.licenses = %w[MIT Apache-2.0]
  s.homepage = 'https://example.invalid/keyroute'
  s.required_ruby_version = '>= 3.0'
  s.files = Dir['lib/**/*.rb'] + Dir['test/*.rb'] + Dir['LICENSE-*'] + ['README.md']
  s.require_paths = ['lib']
  s.add_runtime_dependency 'ffi', '~> 1.15'
end
