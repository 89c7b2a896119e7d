/*
 * Capture golden key -> node vectors from the real libmemcached (Debian's libmemcached11).
 *
 * No connection is made: servers are added with memcached_server_add_with_weight and each key is
 * routed with memcached_generate_hash(), which returns the server index the library would use.
 *
 * Usage:
 *   capture write <out_dir> <keys_hex_file> <dpkg_version_label> <captured_by>
 *       write one vector file per configuration into out_dir
 *   capture route <config_id> <keys_hex_file>
 *       print the node id for every key (one hex key per line), for ad-hoc checks
 *   capture list
 *       print the configuration ids with continuum diagnostics
 *
 * keys_hex_file: one key per line, lowercase hex of the raw bytes; an empty line is the empty key.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmemcached/memcached.h>

/* The continuum item type is opaque in the public headers; its layout is two uint32 fields
 * (server index, point value). Used only for diagnostics (point count, ties, wrap-around key). */
struct memcached_continuum_item_st {
  uint32_t index;
  uint32_t value;
};

enum mode {
  M_KETAMA_WEIGHTED, /* MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED=1 */
  M_KETAMA,          /* MEMCACHED_BEHAVIOR_KETAMA=1 (key hash stays one_at_a_time) */
  M_KETAMA_MD5,      /* MEMCACHED_BEHAVIOR_KETAMA=1, MEMCACHED_BEHAVIOR_HASH=MD5 */
  M_SPY_WEIGHTED,    /* KETAMA_WEIGHTED=1 then distribution CONSISTENT_KETAMA_SPY (upstream spy test) */
  M_SPY_MD5,         /* HASH=MD5 then distribution CONSISTENT_KETAMA_SPY, all weights 1 */
  M_STEPS,           /* the calls in config_t.steps, in that order */
};

/* One call a client makes, for the call-order configurations (M_STEPS). */
enum step {
  S_END = 0,
  S_ADD,              /* memcached_server_add_with_weight, one server at a time (PHP addServer) */
  S_PUSH,             /* memcached_server_list_append_with_weight + memcached_server_push
                         (pylibmc's constructor, PHP addServers) */
  S_KETAMA,           /* memcached_behavior_set(KETAMA, 1) (pylibmc "ketama": True) */
  S_KETAMA_WEIGHTED,  /* memcached_behavior_set(KETAMA_WEIGHTED, 1) (pylibmc "ketama_weighted",
                         PHP OPT_LIBKETAMA_COMPATIBLE) */
  S_DIST_CONSISTENT,  /* memcached_behavior_set(DISTRIBUTION, CONSISTENT) (PHP DISTRIBUTION_CONSISTENT) */
  S_DIST_KETAMA,      /* memcached_behavior_set(DISTRIBUTION, CONSISTENT_KETAMA) */
  S_DIST_WEIGHTED,    /* memcached_behavior_set(DISTRIBUTION, CONSISTENT_WEIGHTED) */
  S_HASH_MD5,         /* memcached_behavior_set(HASH, MD5) */
  S_HASH_CRC,         /* memcached_behavior_set(HASH, CRC) */
  S_HASH_FNV1A_32,    /* memcached_behavior_set(HASH, FNV1A_32) */
  S_PHP_OPTION_CONSISTENT, /* PHP setOption(OPT_DISTRIBUTION, DISTRIBUTION_CONSISTENT): skipped when
                              memcached_behavior_get already returns that value */
};
#define MAX_STEPS 8

#define MAX_SERVERS 64
#define MAX_EXTRA 8

typedef struct {
  char host[64];
  unsigned port;
  unsigned weight;
} server_t;

typedef struct {
  const char *id;
  const char *key;
} extra_t;

typedef struct {
  const char *file_id;
  const char *description;
  enum mode mode;
  int nservers;
  server_t servers[MAX_SERVERS];
  extra_t extra[MAX_EXTRA]; /* terminated by id == NULL */
  bool add_wrap_key;        /* search a deterministic key hashing past the last point */
  enum step steps[MAX_STEPS]; /* M_STEPS: the calls, S_END-terminated */
  /* M_STEPS: what the file claims libmemcached ends up with (checked against the library);
   * point_hash: the hash the continuum was last built with, when it is not the key hash. */
  bool expect_weighted;
  const char *point_hash;
} config_t;

static void add_server(config_t *c, const char *host, unsigned port, unsigned weight) {
  if (c->nservers >= MAX_SERVERS) {
    fprintf(stderr, "too many servers\n");
    exit(2);
  }
  server_t *s = &c->servers[c->nservers++];
  snprintf(s->host, sizeof s->host, "%s", host);
  s->port = port;
  s->weight = weight;
}

static void add_fixture8(config_t *c) {
  static const unsigned w[8] = {600, 300, 200, 350, 1000, 800, 950, 100};
  char host[32];
  for (int i = 0; i < 8; i++) {
    snprintf(host, sizeof host, "10.0.1.%d", i + 1);
    add_server(c, host, 11211, w[i]);
  }
}

/* 10.0.0.1:11211, 10.0.0.2:11211, 10.0.0.3:11212 (optionally + 10.0.0.4:11213), weights as given. */
static void add_small(config_t *c, int n, const unsigned *weights) {
  static const unsigned ports[4] = {11211, 11211, 11212, 11213};
  char host[32];
  for (int i = 0; i < n; i++) {
    snprintf(host, sizeof host, "10.0.0.%d", i + 1);
    add_server(c, host, ports[i], weights ? weights[i] : 1);
  }
}

/* n servers 10.0.<net>.i, i from 1; port 11211 for odd i and 11212 for even i when mixed_ports. */
static void add_many(config_t *c, int net, int n, bool mixed_ports, bool varied_weights) {
  char host[32];
  for (int i = 1; i <= n; i++) {
    snprintf(host, sizeof host, "10.0.%d.%d", net, i);
    unsigned port = (mixed_ports && i % 2 == 0) ? 11212 : 11211;
    unsigned weight = varied_weights ? 1 + (unsigned)((i * 7) % 13) : 1;
    add_server(c, host, port, weight);
  }
}

static const unsigned ONE3[3] = {1, 1, 1};
static const unsigned W123[3] = {1, 2, 3};

#define NCONFIGS 36
static config_t configs[NCONFIGS];

static void build_configs(void) {
  config_t *c;
  int n = 0;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-weighted-8";
  c->description = "libmemcached KETAMA_WEIGHTED, upstream's 8-server fixture (10.0.1.1-8:11211, weights "
                   "600,300,200,350,1000,800,950,100)";
  c->mode = M_KETAMA_WEIGHTED;
  add_fixture8(c);
  c->extra[0] = (extra_t){"up-1", "SVa_]_V41)"};
  c->extra[1] = (extra_t){"up-2", "*/Z;?V(.\\8"};
  c->extra[2] = (extra_t){"up-3", "30C1*Z*S/_"};
  c->extra[3] = (extra_t){"up-4", "ERR:EC58G>"};
  c->extra[4] = (extra_t){"up-5", "1I=cTMNTKF"};
  c->extra[5] = (extra_t){"up-wrap", "VDEAAAAA"};

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-weighted-1";
  c->description = "libmemcached KETAMA_WEIGHTED, one server (the key hash is 0 whenever there is one server)";
  c->mode = M_KETAMA_WEIGHTED;
  add_small(c, 1, ONE3);

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-weighted-3";
  c->description = "libmemcached KETAMA_WEIGHTED, 3 servers, weight 1 each; two on port 11211 (names host-i), "
                   "one on 11212 (names host:port-i)";
  c->mode = M_KETAMA_WEIGHTED;
  add_small(c, 3, ONE3);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-weighted-4";
  c->description = "libmemcached KETAMA_WEIGHTED, the 3-server topology plus 10.0.0.4:11213 (scale-out)";
  c->mode = M_KETAMA_WEIGHTED;
  {
    static const unsigned w[4] = {1, 1, 1, 1};
    add_small(c, 4, w);
  }
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-weighted-5";
  c->description = "libmemcached KETAMA_WEIGHTED, 5 servers with unequal weights 1,2,3,5,8; hostnames kept "
                   "verbatim (not resolved) and mixed ports";
  c->mode = M_KETAMA_WEIGHTED;
  add_server(c, "cache-a.example", 11211, 1);
  add_server(c, "cache-b.example", 11212, 2);
  add_server(c, "10.0.0.3", 11211, 3);
  add_server(c, "10.0.0.4", 11213, 5);
  add_server(c, "cache-e.example", 11211, 8);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-weighted-25";
  c->description = "libmemcached KETAMA_WEIGHTED, 25 equal servers 10.0.2.1-25:11211: binary32 rounding gives "
                   "156 points per server, not 160 (3900 in all)";
  c->mode = M_KETAMA_WEIGHTED;
  add_many(c, 2, 25, false, false);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-weighted-60";
  c->description = "libmemcached KETAMA_WEIGHTED, 60 servers 10.0.3.1-60, odd i on 11211 and even i on "
                   "11212, weights 1+(7i mod 13)";
  c->mode = M_KETAMA_WEIGHTED;
  add_many(c, 3, 60, true, true);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-3";
  c->description = "libmemcached BEHAVIOR_KETAMA (key hash and points one_at_a_time, 100 points per server, "
                   "unweighted), 3 servers";
  c->mode = M_KETAMA;
  add_small(c, 3, ONE3);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-4";
  c->description = "libmemcached BEHAVIOR_KETAMA (one_at_a_time, unweighted), the 3-server topology plus "
                   "10.0.0.4:11213";
  c->mode = M_KETAMA;
  {
    static const unsigned w[4] = {1, 1, 1, 1};
    add_small(c, 4, w);
  }
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-60";
  c->description = "libmemcached BEHAVIOR_KETAMA (one_at_a_time, unweighted), 60 servers 10.0.3.1-60, odd i "
                   "on 11211 and even i on 11212";
  c->mode = M_KETAMA;
  add_many(c, 3, 60, true, false);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-autoweighted-3";
  c->description = "libmemcached BEHAVIOR_KETAMA with weights 1,2,3: a weight > 1 switches weighted back on "
                   "(points are MD5, 160-scaled) while the key hash stays one_at_a_time";
  c->mode = M_KETAMA;
  add_small(c, 3, W123);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-md5-3";
  c->description = "libmemcached BEHAVIOR_KETAMA + BEHAVIOR_HASH=MD5 (100 MD5 points per server, unweighted), "
                   "3 servers";
  c->mode = M_KETAMA_MD5;
  add_small(c, 3, ONE3);
  c->add_wrap_key = true;

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-spy-weighted-8";
  c->description = "libmemcached KETAMA_WEIGHTED then distribution CONSISTENT_KETAMA_SPY (upstream "
                   "ketama_test_cases_spy setup), 8-server fixture; point names /host:port-i";
  c->mode = M_SPY_WEIGHTED;
  add_fixture8(c);
  c->extra[0] = (extra_t){"up-1", "SVa_]_V41)"};
  c->extra[1] = (extra_t){"up-2", "*/Z;?V(.\\8"};
  c->extra[2] = (extra_t){"up-3", "30C1*Z*S/_"};
  c->extra[3] = (extra_t){"up-4", "ERR:EC58G>"};
  c->extra[4] = (extra_t){"up-5", "1I=cTMNTKF"};
  c->extra[5] = (extra_t){"up-wrap", "VDEAAAAA"};

  c = &configs[n++];
  c->file_id = "libmemcached-ketama-spy-3";
  c->description = "libmemcached BEHAVIOR_HASH=MD5 then distribution CONSISTENT_KETAMA_SPY, weight 1 each "
                   "(unweighted: 100 points per server, LE32(md5(\"/host:port-i\"), 0))";
  c->mode = M_SPY_MD5;
  add_small(c, 3, ONE3);
  c->add_wrap_key = true;


  /* ---- MODULA: libmemcached's default distribution (pylibmc's default) ---- */
  {
    static const struct {
      const char *id, *desc;
      enum step hash;
      int n;
    } modula[] = {
        {"libmemcached-modula-1", "one server (memcached_generate_hash returns 0)", S_END, 1},
        {"libmemcached-modula-3", "3 servers", S_END, 3},
        {"libmemcached-modula-4", "the 3-server topology plus 10.0.0.4:11213 (scale-out)", S_END, 4},
        {"libmemcached-modula-60", "60 servers 10.0.3.1-60", S_END, 60},
        {"libmemcached-modula-md5-3", "HASH=MD5, 3 servers", S_HASH_MD5, 3},
        {"libmemcached-modula-crc-3", "HASH=CRC (15-bit values), 3 servers", S_HASH_CRC, 3},
        {"libmemcached-modula-fnv1a_32-4", "HASH=FNV1A_32, 4 servers", S_HASH_FNV1A_32, 4},
    };
    for (size_t i = 0; i < sizeof modula / sizeof modula[0]; i++) {
      c = &configs[n++];
      c->file_id = modula[i].id;
      c->description = modula[i].desc;
      c->mode = M_STEPS;
      c->steps[0] = S_PUSH;
      c->steps[1] = modula[i].hash;
      if (modula[i].n == 60) add_many(c, 3, 60, true, false);
      else {
        static const unsigned w[4] = {1, 1, 1, 1};
        add_small(c, modula[i].n, w);
      }
    }
  }

  /* ---- call order: what each client's sequence of calls leaves in force ---- */
#define ORDER(id_, desc_, weights_, weighted_, point_hash_, ...)                                    \
  do {                                                                                             \
    c = &configs[n++];                                                                             \
    c->file_id = id_;                                                                              \
    c->description = desc_;                                                                        \
    c->mode = M_STEPS;                                                                             \
    c->expect_weighted = weighted_;                                                                \
    c->point_hash = point_hash_;                                                                   \
    const enum step s_[] = {__VA_ARGS__, S_END};                                                   \
    memcpy(c->steps, s_, sizeof s_);                                                               \
    add_small(c, 3, weights_);                                                                     \
    c->add_wrap_key = true;                                                                        \
  } while (0)

  ORDER("libmemcached-order-pylibmc-init-ketama-w123",
        "pylibmc Client(servers 'host:port:weight' 1,2,3, behaviors={'ketama': True}): the constructor sets "
        "behaviours, then pushes the servers; a pushed weight > 1 turns weighted on (MD5 points), keys "
        "one_at_a_time",
        W123, true, NULL, S_KETAMA, S_PUSH);
  ORDER("libmemcached-order-pylibmc-attr-ketama-w123",
        "pylibmc Client(servers with weights 1,2,3) then mc.behaviors = {'ketama': True}: servers first, then "
        "KETAMA, which clears weighted (100 one_at_a_time points per server)",
        W123, false, NULL, S_PUSH, S_KETAMA);
  ORDER("libmemcached-order-pylibmc-attr-ketama-md5",
        "pylibmc servers first, then mc.behaviors = {'ketama': True, 'hash': 'md5'}: pylibmc sets 'hash' "
        "before 'ketama' (its behaviour table order), so the continuum is rebuilt with MD5",
        ONE3, false, NULL, S_PUSH, S_HASH_MD5, S_KETAMA);
  ORDER("libmemcached-order-pylibmc-init-ketama-weighted-w123",
        "pylibmc Client(servers with weights 1,2,3, behaviors={'ketama_weighted': True}): KETAMA_WEIGHTED "
        "(MD5 key hash, weighted), then the push",
        W123, true, NULL, S_KETAMA_WEIGHTED, S_PUSH);
  ORDER("libmemcached-order-pylibmc-attr-ketama-weighted-w123",
        "pylibmc servers with weights 1,2,3 first, then mc.behaviors = {'ketama_weighted': True}: the same "
        "continuum as the other order",
        W123, true, NULL, S_PUSH, S_KETAMA_WEIGHTED);
  ORDER("libmemcached-order-php-addserver-consistent-libketama-w123",
        "PHP memcached: addServer() x3 (weights 1,2,3), then setOption(OPT_DISTRIBUTION, "
        "DISTRIBUTION_CONSISTENT), then setOption(OPT_LIBKETAMA_COMPATIBLE, true): ketama_weighted, MD5",
        W123, true, NULL, S_ADD, S_PHP_OPTION_CONSISTENT, S_KETAMA_WEIGHTED);
  ORDER("libmemcached-order-php-libketama-consistent-addservers",
        "PHP memcached: setOption(OPT_LIBKETAMA_COMPATIBLE, true), then setOption(OPT_DISTRIBUTION, "
        "DISTRIBUTION_CONSISTENT), then addServers() with weight 1: CONSISTENT clears weighted but keeps the "
        "MD5 key hash (100 MD5 points per server)",
        ONE3, false, NULL, S_KETAMA_WEIGHTED, S_PHP_OPTION_CONSISTENT, S_PUSH);
  ORDER("libmemcached-order-php-libketama-consistent-addservers-w123",
        "the same PHP calls with weights 1,2,3: the pushed weights turn weighted on again (MD5 points, MD5 keys)",
        W123, true, NULL, S_KETAMA_WEIGHTED, S_PHP_OPTION_CONSISTENT, S_PUSH);
  ORDER("libmemcached-order-php-consistent-addserver-w123",
        "PHP memcached: setOption(OPT_DISTRIBUTION, DISTRIBUTION_CONSISTENT), then addServer() x3 (weights "
        "1,2,3): weighted (MD5 points) with the one_at_a_time key hash",
        W123, true, NULL, S_PHP_OPTION_CONSISTENT, S_ADD);
  ORDER("libmemcached-order-php-addserver-consistent-w123",
        "PHP memcached: addServer() x3 (weights 1,2,3), then setOption(OPT_DISTRIBUTION, "
        "DISTRIBUTION_CONSISTENT): unweighted, one_at_a_time",
        W123, false, NULL, S_ADD, S_PHP_OPTION_CONSISTENT);
  ORDER("libmemcached-order-c-add-ketama-w123",
        "C: memcached_server_add_with_weight x3 (weights 1,2,3), then behavior KETAMA=1: the adds happened under "
        "MODULA, so weighted stays off",
        W123, false, NULL, S_ADD, S_KETAMA);
  ORDER("libmemcached-order-c-dist-weighted",
        "C: behavior DISTRIBUTION=CONSISTENT_WEIGHTED (not KETAMA_WEIGHTED), then the servers: weighted MD5 "
        "points, but the key hash stays one_at_a_time",
        ONE3, true, NULL, S_DIST_WEIGHTED, S_ADD);
  ORDER("libmemcached-order-c-dist-ketama-weighted-w123",
        "C: behavior DISTRIBUTION=CONSISTENT_KETAMA, then servers with weights 1,2,3 added one at a time: "
        "weighted, one_at_a_time keys",
        W123, true, NULL, S_DIST_KETAMA, S_ADD);
  ORDER("libmemcached-order-c-add-ketama-hash-md5",
        "C: servers, then KETAMA=1, then HASH=MD5: setting the hash does not rebuild the continuum, so its "
        "points stay one_at_a_time while keys hash with MD5",
        ONE3, false, "one_at_a_time", S_ADD, S_KETAMA, S_HASH_MD5);
  ORDER("libmemcached-order-c-ketama-hash-md5-add",
        "C: KETAMA=1, HASH=MD5, then the servers: each add rebuilds the continuum with MD5",
        ONE3, false, NULL, S_KETAMA, S_HASH_MD5, S_ADD);
#undef ORDER

  if (n != NCONFIGS) {
    fprintf(stderr, "config count mismatch: %d\n", n);
    exit(2);
  }
}

static const char *hash_name(memcached_hash_t h) {
  switch (h) {
  case MEMCACHED_HASH_DEFAULT: return "one_at_a_time";
  case MEMCACHED_HASH_MD5: return "md5";
  case MEMCACHED_HASH_CRC: return "crc";
  case MEMCACHED_HASH_FNV1_64: return "fnv1_64";
  case MEMCACHED_HASH_FNV1A_64: return "fnv1a_64";
  case MEMCACHED_HASH_FNV1_32: return "fnv1_32";
  case MEMCACHED_HASH_FNV1A_32: return "fnv1a_32";
  case MEMCACHED_HASH_HSIEH: return "hsieh";
  case MEMCACHED_HASH_MURMUR: return "murmur";
  case MEMCACHED_HASH_JENKINS: return "jenkins";
  case MEMCACHED_HASH_MURMUR3: return "murmur3";
  case MEMCACHED_HASH_CUSTOM:
  case MEMCACHED_HASH_MAX:
  default: return NULL;
  }
}

static const char *distribution_name(memcached_server_distribution_t d) {
  switch (d) {
  case MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA: return "ketama";
  case MEMCACHED_DISTRIBUTION_CONSISTENT_WEIGHTED: return "ketama_weighted";
  case MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY: return "ketama_spy";
  case MEMCACHED_DISTRIBUTION_CONSISTENT: return "consistent";
  case MEMCACHED_DISTRIBUTION_MODULA: return "modula";
  case MEMCACHED_DISTRIBUTION_RANDOM:
  case MEMCACHED_DISTRIBUTION_VIRTUAL_BUCKET:
  case MEMCACHED_DISTRIBUTION_CONSISTENT_MAX:
  default: return NULL;
  }
}

static void check_rc(memcached_st *memc, memcached_return_t rc, const char *what) {
  if (!memcached_success(rc)) {
    fprintf(stderr, "%s failed: %s\n", what, memcached_last_error_message(memc));
    exit(1);
  }
}


static memcached_st *check_servers(memcached_st *memc, const config_t *c);

static void add_servers(memcached_st *memc, const config_t *c) {
  for (int i = 0; i < c->nservers; i++) {
    const server_t *s = &c->servers[i];
    check_rc(memc, memcached_server_add_with_weight(memc, s->host, (in_port_t) s->port, s->weight),
             "memcached_server_add_with_weight");
  }
}

static void push_servers(memcached_st *memc, const config_t *c) {
  memcached_server_list_st list = NULL;
  memcached_return_t rc = MEMCACHED_SUCCESS;
  for (int i = 0; i < c->nservers; i++) {
    const server_t *s = &c->servers[i];
    list = memcached_server_list_append_with_weight(list, s->host, (in_port_t) s->port, s->weight, &rc);
    check_rc(memc, rc, "memcached_server_list_append_with_weight");
  }
  check_rc(memc, memcached_server_push(memc, list), "memcached_server_push");
  memcached_server_list_free(list);
}

static void set(memcached_st *memc, memcached_behavior_t b, uint64_t v, const char *what) {
  check_rc(memc, memcached_behavior_set(memc, b, v), what);
}

static void run_steps(memcached_st *memc, const config_t *c) {
  for (int i = 0; i < MAX_STEPS && c->steps[i] != S_END; i++) {
    switch (c->steps[i]) {
    case S_END: break;
    case S_ADD: add_servers(memc, c); break;
    case S_PUSH: push_servers(memc, c); break;
    case S_KETAMA: set(memc, MEMCACHED_BEHAVIOR_KETAMA, 1, "KETAMA"); break;
    case S_KETAMA_WEIGHTED: set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1, "KETAMA_WEIGHTED"); break;
    case S_DIST_CONSISTENT:
      set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_CONSISTENT, "DISTRIBUTION=CONSISTENT");
      break;
    case S_DIST_KETAMA:
      set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA,
          "DISTRIBUTION=CONSISTENT_KETAMA");
      break;
    case S_DIST_WEIGHTED:
      set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_CONSISTENT_WEIGHTED,
          "DISTRIBUTION=CONSISTENT_WEIGHTED");
      break;
    case S_HASH_MD5: set(memc, MEMCACHED_BEHAVIOR_HASH, MEMCACHED_HASH_MD5, "HASH=MD5"); break;
    case S_HASH_CRC: set(memc, MEMCACHED_BEHAVIOR_HASH, MEMCACHED_HASH_CRC, "HASH=CRC"); break;
    case S_HASH_FNV1A_32: set(memc, MEMCACHED_BEHAVIOR_HASH, MEMCACHED_HASH_FNV1A_32, "HASH=FNV1A_32"); break;
    case S_PHP_OPTION_CONSISTENT:
      if (memcached_behavior_get(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION) != MEMCACHED_DISTRIBUTION_CONSISTENT)
        set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, MEMCACHED_DISTRIBUTION_CONSISTENT, "DISTRIBUTION=CONSISTENT");
      break;
    }
  }
}

/* Build the memcached_st exactly as a user would, in this call order. Returns the weighted flag
 * that libmemcached's documented rules predict, so the caller can compare with the library. */
static memcached_st *build(const config_t *c, bool *expected_weighted) {
  memcached_st *memc = memcached_create(NULL);
  if (!memc) {
    fprintf(stderr, "memcached_create failed\n");
    exit(1);
  }
  bool any_heavy = false;
  for (int i = 0; i < c->nservers; i++)
    if (c->servers[i].weight > 1) any_heavy = true;

  switch (c->mode) {
  case M_KETAMA_WEIGHTED:
    check_rc(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1), "KETAMA_WEIGHTED");
    *expected_weighted = true;
    break;
  case M_KETAMA:
    check_rc(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA, 1), "KETAMA");
    *expected_weighted = any_heavy; /* server_add turns weighted on for weight > 1 */
    break;
  case M_KETAMA_MD5:
    check_rc(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA, 1), "KETAMA");
    check_rc(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, MEMCACHED_HASH_MD5), "HASH=MD5");
    *expected_weighted = any_heavy;
    break;
  case M_SPY_WEIGHTED:
    check_rc(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1), "KETAMA_WEIGHTED");
    check_rc(memc, memcached_behavior_set_distribution(memc, MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY),
             "distribution SPY");
    *expected_weighted = true; /* SPY leaves the weighted flag alone */
    break;
  case M_SPY_MD5:
    check_rc(memc, memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, MEMCACHED_HASH_MD5), "HASH=MD5");
    check_rc(memc, memcached_behavior_set_distribution(memc, MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY),
             "distribution SPY");
    *expected_weighted = any_heavy;
    break;
  case M_STEPS:
    run_steps(memc, c);
    *expected_weighted = c->expect_weighted;
    return check_servers(memc, c);
  }
  add_servers(memc, c);
  return check_servers(memc, c);
}

static memcached_st *check_servers(memcached_st *memc, const config_t *c) {
  if (memcached_server_count(memc) != (uint32_t) c->nservers) {
    fprintf(stderr, "%s: server count mismatch\n", c->file_id);
    exit(1);
  }
  for (int i = 0; i < c->nservers; i++) {
    const memcached_instance_st *in = memcached_server_instance_by_position(memc, (uint32_t) i);
    if (strcmp(memcached_server_name(in), c->servers[i].host) != 0
        || memcached_server_port(in) != c->servers[i].port) {
      fprintf(stderr, "%s: server %d is %s:%u, expected %s:%u\n", c->file_id, i, memcached_server_name(in),
              (unsigned) memcached_server_port(in), c->servers[i].host, c->servers[i].port);
      exit(1);
    }
  }
  return memc;
}

typedef struct {
  uint32_t points;
  uint32_t ties_cross_server; /* adjacent equal point values owned by different servers */
  uint32_t max_point;
  uint32_t first_index; /* owner of continuum[0], where a wrapped key lands */
} diag_t;

static diag_t diagnose(const memcached_st *memc) {
  diag_t d = {0, 0, 0, 0};
  d.points = memc->ketama.continuum_points_counter;
  const struct memcached_continuum_item_st *ci = memc->ketama.continuum;
  if (!ci || d.points == 0) return d;
  d.first_index = ci[0].index;
  d.max_point = ci[d.points - 1].value;
  for (uint32_t i = 1; i < d.points; i++) {
    if (ci[i].value < ci[i - 1].value) {
      fprintf(stderr, "continuum not sorted: layout assumption wrong\n");
      exit(1);
    }
    if (ci[i].value == ci[i - 1].value && ci[i].index != ci[i - 1].index) d.ties_cross_server++;
  }
  return d;
}

/* ---- keys ---- */

typedef struct {
  char id[32];
  unsigned char *bytes;
  size_t len;
} key_t_;

static int hexval(int ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

static key_t_ *read_keys(const char *path, size_t *count) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "open %s: %s\n", path, strerror(errno));
    exit(1);
  }
  size_t cap = 1024, n = 0;
  key_t_ *keys = calloc(cap, sizeof *keys);
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while ((len = getline(&line, &lcap, f)) >= 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (len % 2) {
      fprintf(stderr, "odd hex length in %s\n", path);
      exit(1);
    }
    if (n == cap) {
      cap *= 2;
      keys = realloc(keys, cap * sizeof *keys);
    }
    key_t_ *k = &keys[n];
    snprintf(k->id, sizeof k->id, "k%03zu", n);
    k->len = (size_t) len / 2;
    k->bytes = malloc(k->len + 1);
    for (size_t i = 0; i < k->len; i++) {
      int hi = hexval(line[2 * i]), lo = hexval(line[2 * i + 1]);
      if (hi < 0 || lo < 0) {
        fprintf(stderr, "bad hex in %s\n", path);
        exit(1);
      }
      k->bytes[i] = (unsigned char) (hi << 4 | lo);
    }
    k->bytes[k->len] = 0;
    n++;
  }
  free(line);
  fclose(f);
  *count = n;
  return keys;
}

static bool printable_ascii(const unsigned char *b, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (b[i] < 0x20 || b[i] > 0x7e) return false;
  return true;
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char) *s;
    if (ch == '"' || ch == '\\') {
      fputc('\\', out);
      fputc(ch, out);
    } else if (ch < 0x20) {
      fprintf(out, "\\u%04x", ch);
    } else {
      fputc(ch, out);
    }
  }
  fputc('"', out);
}

static void node_id(const server_t *s, char *buf, size_t n) {
  snprintf(buf, n, "%s:%u", s->host, s->port);
}

static uint32_t route(const memcached_st *memc, const unsigned char *key, size_t len) {
  return memcached_generate_hash(memc, (const char *) key, len);
}

static void write_case(FILE *out, const config_t *c, const memcached_st *memc, const char *id,
                       const unsigned char *key, size_t len, bool *first) {
  uint32_t idx = route(memc, key, len);
  if (idx >= (uint32_t) c->nservers) {
    fprintf(stderr, "%s: index %u out of range\n", c->file_id, idx);
    exit(1);
  }
  char nid[96];
  node_id(&c->servers[idx], nid, sizeof nid);
  fputs(*first ? "\n    " : ",\n    ", out);
  *first = false;
  fputs("{ \"id\": ", out);
  json_string(out, id);
  if (printable_ascii(key, len)) {
    fputs(", \"key\": ", out);
    json_string(out, (const char *) key);
  } else {
    fputs(", \"key_hex\": \"", out);
    for (size_t i = 0; i < len; i++) fprintf(out, "%02x", key[i]);
    fputc('"', out);
  }
  fputs(", \"node\": ", out);
  json_string(out, nid);
  fputs(" }", out);
}

/* Deterministic search for a key whose key hash lies past the last continuum point. */
static bool find_wrap_key(const memcached_st *memc, const diag_t *d, char *buf, size_t n) {
  memcached_hash_t h = (memcached_hash_t) memcached_behavior_get((memcached_st *) memc, MEMCACHED_BEHAVIOR_HASH);
  if (memcached_server_count(memc) < 2) return false;
  for (unsigned i = 0; i < 10000000; i++) {
    snprintf(buf, n, "wrap-%u", i);
    if (memcached_generate_hash_value(buf, strlen(buf), h) > d->max_point) return true;
  }
  return false;
}

static void write_config(const config_t *c, const char *out_dir, const key_t_ *keys, size_t nkeys,
                         const char *version, const char *captured_by) {
  bool expected_weighted = false;
  memcached_st *memc = build(c, &expected_weighted);
  bool weighted = memc->ketama.weighted_;
  if (weighted != expected_weighted
      || (memcached_behavior_get(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED) != 0) != weighted) {
    fprintf(stderr, "%s: weighted flag %d differs from the documented rules (%d)\n", c->file_id, weighted,
            expected_weighted);
    exit(1);
  }
  const char *hname = hash_name((memcached_hash_t) memcached_behavior_get(memc, MEMCACHED_BEHAVIOR_HASH));
  const char *dname = distribution_name(memcached_behavior_get_distribution(memc));
  if (!hname || !dname) {
    fprintf(stderr, "%s: unexpected hash or distribution\n", c->file_id);
    exit(1);
  }
  diag_t d = diagnose(memc);

  char path[4096];
  snprintf(path, sizeof path, "%s/%s.json", out_dir, c->file_id);
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "open %s: %s\n", path, strerror(errno));
    exit(1);
  }
  char full_version[512];
  snprintf(full_version, sizeof full_version, "%s (%s)", memcached_lib_version(), version);

  fputs("{\n  \"id\": ", out);
  json_string(out, c->file_id);
  fputs(",\n  \"description\": ", out);
  json_string(out, c->description);
  fputs(",\n  \"provenance\": {\n    \"kind\": \"peer\",\n    \"peer\": \"libmemcached\",\n    \"version\": ", out);
  json_string(out, full_version);
  fputs(",\n    \"captured_by\": ", out);
  json_string(out, captured_by);
  bool modula = memcached_behavior_get_distribution(memc) == MEMCACHED_DISTRIBUTION_MODULA;
  if (modula) {
    /* libmemcached-modula reads only the order of the servers. */
    fputs("\n  },\n  \"spec\": {\n    \"algorithm\": \"libmemcached-modula\",\n", out);
    fprintf(out, "    \"params\": { \"hash\": \"%s\" },\n", hname);
  } else {
    fputs("\n  },\n  \"spec\": {\n    \"algorithm\": \"libmemcached\",\n", out);
    fprintf(out, "    \"params\": { \"distribution\": \"%s\", \"hash\": \"%s\", \"weighted\": %s", dname, hname,
            weighted ? "true" : "false");
    if (c->point_hash) fprintf(out, ", \"point_hash\": \"%s\"", c->point_hash);
    fputs(" },\n", out);
  }
  fputs("    \"nodes\": [", out);
  for (int i = 0; i < c->nservers; i++) {
    char nid[96];
    node_id(&c->servers[i], nid, sizeof nid);
    fputs(i ? ",\n      " : "\n      ", out);
    fputs("{ \"id\": ", out);
    json_string(out, nid);
    if (modula) {
      fputs(" }", out);
      continue;
    }
    fputs(", \"host\": ", out);
    json_string(out, c->servers[i].host);
    fprintf(out, ", \"port\": %u, \"weight\": %u }", c->servers[i].port, c->servers[i].weight);
  }
  fputs("\n    ]\n  },\n  \"cases\": [", out);

  bool first = true;
  size_t ncases = 0;
  for (size_t i = 0; i < nkeys; i++, ncases++)
    write_case(out, c, memc, keys[i].id, keys[i].bytes, keys[i].len, &first);
  for (int i = 0; i < MAX_EXTRA && c->extra[i].id; i++, ncases++)
    write_case(out, c, memc, c->extra[i].id, (const unsigned char *) c->extra[i].key, strlen(c->extra[i].key),
               &first);
  char wrap[64] = "";
  if (c->add_wrap_key && find_wrap_key(memc, &d, wrap, sizeof wrap)) {
    write_case(out, c, memc, "wrap", (const unsigned char *) wrap, strlen(wrap), &first);
    ncases++;
    if (route(memc, (const unsigned char *) wrap, strlen(wrap)) != d.first_index) {
      fprintf(stderr, "%s: wrap key did not land on continuum[0]\n", c->file_id);
      exit(1);
    }
  }
  fputs("\n  ]\n}\n", out);
  if (fclose(out) != 0) {
    fprintf(stderr, "write %s failed\n", path);
    exit(1);
  }
  printf("%-36s servers=%-3d cases=%-4zu distribution=%s hash=%s weighted=%s points=%u ties=%u wrap=%s\n",
         c->file_id, c->nservers, ncases, dname, hname, weighted ? "true" : "false", d.points,
         d.ties_cross_server, wrap[0] ? wrap : "-");
  memcached_free(memc);
}

static const config_t *find_config(const char *id) {
  for (int i = 0; i < NCONFIGS; i++)
    if (strcmp(configs[i].file_id, id) == 0) return &configs[i];
  return NULL;
}

int main(int argc, char **argv) {
  build_configs();
  if (argc == 6 && strcmp(argv[1], "write") == 0) {
    size_t nkeys = 0;
    key_t_ *keys = read_keys(argv[3], &nkeys);
    for (int i = 0; i < NCONFIGS; i++) write_config(&configs[i], argv[2], keys, nkeys, argv[4], argv[5]);
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "route") == 0) {
    const config_t *c = find_config(argv[2]);
    if (!c) {
      fprintf(stderr, "unknown config %s\n", argv[2]);
      return 2;
    }
    bool ew;
    memcached_st *memc = build(c, &ew);
    size_t nkeys = 0;
    key_t_ *keys = read_keys(argv[3], &nkeys);
    for (size_t i = 0; i < nkeys; i++) {
      char nid[96];
      node_id(&c->servers[route(memc, keys[i].bytes, keys[i].len)], nid, sizeof nid);
      printf("%s\n", nid);
    }
    memcached_free(memc);
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "list") == 0) {
    for (int i = 0; i < NCONFIGS; i++) {
      bool ew;
      memcached_st *memc = build(&configs[i], &ew);
      diag_t d = diagnose(memc);
      printf("%s points=%u ties=%u max_point=%u\n", configs[i].file_id, d.points, d.ties_cross_server,
             d.max_point);
      memcached_free(memc);
    }
    return 0;
  }
  fprintf(stderr, "usage: %s write <out_dir> <keys_hex_file> <version_label> <captured_by>\n"
                  "       %s route <config_id> <keys_hex_file>\n       %s list\n",
          argv[0], argv[0], argv[0]);
  return 2;
}
