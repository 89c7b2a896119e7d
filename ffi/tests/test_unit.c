/* Unit tests of the C ABI: building (JSON and builder), routing, ids, batches, replicas,
 * slots, fingerprints, handles, status names, bounded loads, hot keys, transitions, routing by
 * key hash, ownership and diffs, capabilities. Expected routes are pinned from the conformance
 * vectors (native-ring-3, native-ring-zones, native-jump-u64be-4, native-slots-3). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char RING3[] =
    "{\"algorithm\":\"ring\",\"params\":{\"points_per_weight\":160},"
    "\"nodes\":[{\"id\":\"cache-0\"},{\"id\":\"cache-1\"},{\"id\":\"cache-2\"}]}";

static const char ZONES[] =
    "{\"algorithm\":\"ring\",\"nodes\":["
    "{\"id\":\"a1\",\"zone\":\"zone-a\"},{\"id\":\"a2\",\"zone\":\"zone-a\"},"
    "{\"id\":\"b1\",\"zone\":\"zone-b\"},{\"id\":\"b2\",\"zone\":\"zone-b\"},"
    "{\"id\":\"c1\",\"zone\":\"zone-c\"},{\"id\":\"c2\",\"zone\":\"zone-c\"}]}";

static kr_router *from_json(const char *json) {
    kr_router *r = NULL;
    CHECK_STATUS(kr_router_from_json(json, strlen(json), &r), KR_OK);
    CHECK(r != NULL);
    return r;
}

/* The id of a node index, checked against a string. */
static int id_is(const kr_router *r, uint32_t index, const char *want) {
    const char *id = NULL;
    size_t len = 0;
    if (kr_router_node_id(r, index, &id, &len) != KR_OK) return 0;
    return len == strlen(want) && memcmp(id, want, len) == 0;
}

static void test_route_and_ids(void) {
    kr_router *r = from_json(RING3);
    uint32_t node = UINT32_MAX, count = 0;
    const char *id = NULL;
    size_t len = 0;

    CHECK_STATUS(kr_router_node_count(r, &count), KR_OK);
    CHECK(count == 3);

    /* native-ring-3: foo -> cache-0, bar -> cache-0 (replicas cache-0, cache-2, cache-1). */
    CHECK_STATUS(kr_route(r, KEY("foo"), &node), KR_OK);
    CHECK(id_is(r, node, "cache-0"));
    CHECK_STATUS(kr_route_id(r, KEY("bar"), &id, &len), KR_OK);
    CHECK_SPAN(id, len, "cache-0");

    /* route_id agrees with route + node_id for many keys; every index is in range. */
    {
        int agree = 1, i;
        char key[32];
        for (i = 0; i < 2000; i++) {
            int n = snprintf(key, sizeof key, "key-%d", i);
            const char *rid = NULL, *nid = NULL;
            size_t rlen = 0, nlen = 0;
            if (kr_route(r, (const uint8_t *)key, (size_t)n, &node) != KR_OK || node >= count ||
                kr_route_id(r, (const uint8_t *)key, (size_t)n, &rid, &rlen) != KR_OK ||
                kr_router_node_id(r, node, &nid, &nlen) != KR_OK || rid != nid || rlen != nlen) {
                agree = 0;
            }
        }
        CHECK(agree);
    }

    /* The empty key: (NULL, 0) and ("", 0) are the same key. */
    {
        uint32_t a = UINT32_MAX, b = UINT32_MAX;
        CHECK_STATUS(kr_route(r, NULL, 0, &a), KR_OK);
        CHECK_STATUS(kr_route(r, (const uint8_t *)"", 0, &b), KR_OK);
        CHECK(a == b && a < count);
    }

    /* Binary keys with NUL bytes route like any other bytes. */
    {
        static const uint8_t bin[] = {0x00, 0xff, 0x00, 0x80};
        uint32_t a = UINT32_MAX, b = UINT32_MAX;
        CHECK_STATUS(kr_route(r, bin, sizeof bin, &a), KR_OK);
        CHECK_STATUS(kr_route(r, bin, sizeof bin, &b), KR_OK);
        CHECK(a == b && a < count);
    }
    kr_router_free(r);
}

static void test_batch_matches_single(void) {
    enum { N = 3000 };
    kr_router *r = from_json(RING3);
    static char storage[N][16];
    static kr_key keys[N];
    static uint32_t batch[N];
    int i, same = 1;

    for (i = 0; i < N; i++) {
        int n = snprintf(storage[i], sizeof storage[i], "user:%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    keys[7].ptr = NULL; /* the empty key, as (NULL, 0) */
    keys[7].len = 0;
    CHECK_STATUS(kr_route_batch(r, keys, N, batch, N), KR_OK);
    for (i = 0; i < N; i++) {
        uint32_t one = UINT32_MAX;
        if (kr_route(r, keys[i].ptr, keys[i].len, &one) != KR_OK || one != batch[i]) same = 0;
    }
    CHECK(same);

    /* A larger output buffer is fine; an empty batch is fine, even with NULL arrays. */
    {
        static uint32_t wide[N + 5];
        CHECK_STATUS(kr_route_batch(r, keys, 5, wide, N + 5), KR_OK);
        CHECK(memcmp(wide, batch, 5 * sizeof(uint32_t)) == 0);
        CHECK_STATUS(kr_route_batch(r, NULL, 0, NULL, 0), KR_OK);
    }
    kr_router_free(r);
}

static void test_replicas_and_zones(void) {
    kr_router *r = from_json(ZONES);
    uint32_t rep[3] = {0, 0, 0}, owner = UINT32_MAX;

    /* native-ring-zones: foo -> c2, replicas c2, a1, b1 (one per zone). */
    CHECK_STATUS(kr_replicas(r, KEY("foo"), rep, 3), KR_OK);
    CHECK(id_is(r, rep[0], "c2") && id_is(r, rep[1], "a1") && id_is(r, rep[2], "b1"));
    CHECK_STATUS(kr_route(r, KEY("foo"), &owner), KR_OK);
    CHECK(owner == rep[0]);

    /* All six nodes, distinct. */
    {
        uint32_t all[6];
        int i, j, distinct = 1;
        CHECK_STATUS(kr_replicas(r, KEY("user:42"), all, 6), KR_OK);
        for (i = 0; i < 6; i++)
            for (j = i + 1; j < 6; j++)
                if (all[i] == all[j]) distinct = 0;
        CHECK(distinct);
    }
    /* Zero replicas asked: nothing to write. */
    CHECK_STATUS(kr_replicas(r, KEY("foo"), NULL, 0), KR_OK);
    kr_router_free(r);
}

static void test_builder_equals_json(void) {
    kr_builder *b = NULL;
    kr_router *built = NULL, *parsed = from_json(ZONES), *bigger = NULL;
    uint64_t fb = 0, fp = 1, version = 0;
    uint32_t count = 0;
    static const char *ids[] = {"a1", "a2", "b1", "b2", "c1", "c2"};
    static const char *zones[] = {"zone-a", "zone-a", "zone-b", "zone-b", "zone-c", "zone-c"};
    int i;

    CHECK_STATUS(kr_builder_new(TXT("ring"), &b), KR_OK);
    for (i = 0; i < 6; i++)
        CHECK_STATUS(kr_builder_add_node(b, ids[i], strlen(ids[i]), 1, zones[i], strlen(zones[i])), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &built), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(built, &fb), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(parsed, &fp), KR_OK);
    CHECK(fb == fp);

    /* The same canonical form, byte for byte. */
    {
        const char *cb = NULL, *cp = NULL;
        size_t lb = 0, lp = 0;
        CHECK_STATUS(kr_router_canonical_json(built, &cb, &lb), KR_OK);
        CHECK_STATUS(kr_router_canonical_json(parsed, &cp, &lp), KR_OK);
        CHECK(lb == lp && memcmp(cb, cp, lb) == 0);
        CHECK(lb > 0 && memcmp(cb, "{\"algorithm\":\"ring\"", 19) == 0);
    }

    /* The builder keeps its nodes: one more node and a version give the next view. */
    CHECK_STATUS(kr_builder_add_node(b, TXT("d1"), 2, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_set_version(b, 7), KR_OK);
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("{\"points_per_weight\":40}")), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &bigger), KR_OK);
    CHECK_STATUS(kr_router_node_count(bigger, &count), KR_OK);
    CHECK(count == 7 && id_is(bigger, 6, "d1"));
    CHECK_STATUS(kr_router_version(bigger, &version), KR_OK);
    CHECK(version == 7);
    {
        const char *c = NULL;
        size_t n = 0;
        CHECK_STATUS(kr_router_canonical_json(bigger, &c, &n), KR_OK);
        CHECK(n > 0); /* not NUL-terminated: search the span */
        {
            static const char want[] = "\"params\":{\"points_per_weight\":40}";
            size_t k;
            int found = 0;
            for (k = 0; k + sizeof want - 1 <= n; k++)
                if (memcmp(c + k, want, sizeof want - 1) == 0) found = 1;
            CHECK(found);
        }
    }
    kr_builder_free(b); /* routers outlive their builder */
    CHECK(id_is(built, 0, "a1"));
    kr_router_free(built);
    kr_router_free(parsed);
    kr_router_free(bigger);
}

static void test_builder_preset_fields(void) {
    /* A spec with host/port/name and explicit slots, through the builder. */
    kr_builder *b = NULL;
    kr_router *r = NULL;
    bool has = false;
    uint32_t slot = 0, node = UINT32_MAX;
    static const char SLOTS[] =
        "{\"algorithm\":\"slots\",\"params\":{\"count\":16},\"nodes\":["
        "{\"id\":\"s0\",\"slots\":[[0,7]]},{\"id\":\"s1\",\"slots\":[[8,12],[13,15]]}]}";
    kr_router *parsed = from_json(SLOTS);
    uint64_t f1 = 0, f2 = 1;

    CHECK_STATUS(kr_builder_new(TXT("slots"), &b), KR_OK);
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("{\"count\":16}")), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, TXT("s0"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_add_node_slots(b, 0, 7), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, TXT("s1"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_add_node_slots(b, 8, 12), KR_OK);
    CHECK_STATUS(kr_builder_add_node_slots(b, 13, 15), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &r), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(r, &f1), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(parsed, &f2), KR_OK);
    CHECK(f1 == f2);
    CHECK_STATUS(kr_slot(r, KEY("user:1"), &has, &slot), KR_OK);
    CHECK(has && slot < 16);
    CHECK_STATUS(kr_route(r, KEY("user:1"), &node), KR_OK);
    CHECK(node == (slot <= 7 ? 0u : 1u));
    kr_router_free(r);
    kr_router_free(parsed);
    kr_builder_free(b);

    /* host/port/name are carried into the spec (a ring ignores them, but the canonical form
     * keeps them). */
    b = NULL;
    r = NULL;
    CHECK_STATUS(kr_builder_new(TXT("ring"), &b), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, TXT("10.0.0.1:11211"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_set_node_address(b, TXT("10.0.0.1"), 11211), KR_OK);
    CHECK_STATUS(kr_builder_set_node_name(b, TXT("host/10.0.0.1:11211")), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &r), KR_OK);
    {
        static const char want[] =
            "{\"algorithm\":\"ring\",\"nodes\":[{\"host\":\"10.0.0.1\",\"id\":\"10.0.0.1:11211\","
            "\"name\":\"host/10.0.0.1:11211\",\"port\":11211,\"weight\":1}],"
            "\"params\":{\"points_per_weight\":160},\"version\":0}";
        const char *c = NULL;
        size_t n = 0;
        CHECK_STATUS(kr_router_canonical_json(r, &c, &n), KR_OK);
        CHECK_SPAN(c, n, want);
    }
    kr_router_free(r);
    kr_builder_free(b);
}

static void test_slots_and_jump(void) {
    kr_router *r = from_json("{\"algorithm\":\"slots\",\"nodes\":[{\"id\":\"cache-0\"},"
                             "{\"id\":\"cache-1\"},{\"id\":\"cache-2\"}],\"params\":{\"count\":1024}}");
    kr_router *ring = from_json(RING3);
    kr_router *jump = from_json("{\"algorithm\":\"jump\",\"params\":{\"key_hash\":\"u64be\"},\"nodes\":["
                                "{\"id\":\"cache-0\"},{\"id\":\"cache-1\"},{\"id\":\"cache-2\"},{\"id\":\"cache-3\"}]}");
    bool has = false;
    uint32_t slot = UINT32_MAX, node = UINT32_MAX;
    static const uint8_t two[8] = {0, 0, 0, 0, 0, 0, 0, 2};

    /* native-slots-3: foo -> cache-2; its slot is below the count. */
    CHECK_STATUS(kr_route(r, KEY("foo"), &node), KR_OK);
    CHECK(id_is(r, node, "cache-2"));
    CHECK_STATUS(kr_slot(r, KEY("foo"), &has, &slot), KR_OK);
    CHECK(has && slot < 1024);
    /* A ring has no slots: has_slot is false and slot untouched. */
    slot = 12345;
    CHECK_STATUS(kr_slot(ring, KEY("foo"), &has, &slot), KR_OK);
    CHECK(!has && slot == 12345);
    /* native-jump-u64be-4: 0x0000000000000002 -> cache-3. */
    CHECK_STATUS(kr_route(jump, two, 8, &node), KR_OK);
    CHECK(id_is(jump, node, "cache-3"));
    kr_router_free(r);
    kr_router_free(ring);
    kr_router_free(jump);
}

static void test_handles(void) {
    kr_router *r = from_json(RING3), *c = NULL, *loaded = NULL;
    kr_shared_router *s = NULL;
    uint64_t f1 = 0, f2 = 1, f3 = 2;

    CHECK_STATUS(kr_router_clone(r, &c), KR_OK);
    kr_router_free(r); /* the clone keeps the router alive */
    CHECK_STATUS(kr_router_fingerprint(c, &f1), KR_OK);
    CHECK(id_is(c, 2, "cache-2"));

    CHECK_STATUS(kr_shared_router_new(c, &s), KR_OK);
    CHECK_STATUS(kr_shared_router_load(s, &loaded), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(loaded, &f2), KR_OK);
    CHECK(f1 == f2);
    kr_router_free(loaded);

    {
        kr_router *z = from_json(ZONES);
        CHECK_STATUS(kr_shared_router_store(s, z), KR_OK);
        kr_router_free(z); /* the shared router holds its own reference */
    }
    CHECK_STATUS(kr_shared_router_load(s, &loaded), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(loaded, &f3), KR_OK);
    CHECK(f3 != f1 && id_is(loaded, 5, "c2"));
    kr_shared_router_free(s); /* loaded handles outlive the shared router */
    CHECK(id_is(loaded, 0, "a1"));
    kr_router_free(loaded);
    kr_router_free(c);

    /* Releasing NULL is a no-op. */
    kr_router_free(NULL);
    kr_builder_free(NULL);
    kr_shared_router_free(NULL);
    CHECK(1);
}

static void test_status_names_and_messages(void) {
    /* Every code of the header's enum names itself as the error table does. */
    static const struct {
        kr_status code;
        const char *name;
    } table[] = {
        {KR_OK, "ok"},
        {KR_INVALID_JSON, "invalid_json"},
        {KR_INVALID_SPEC, "invalid_spec"},
        {KR_UNKNOWN_ALGORITHM, "unknown_algorithm"},
        {KR_EMPTY_TOPOLOGY, "empty_topology"},
        {KR_DUPLICATE_NODE_ID, "duplicate_node_id"},
        {KR_ZERO_TOTAL_WEIGHT, "zero_total_weight"},
        {KR_TOO_MANY_NODES, "too_many_nodes"},
        {KR_TOO_MANY_POINTS, "too_many_points"},
        {KR_INVALID_NODE_ID, "invalid_node_id"},
        {KR_WEIGHTS_UNSUPPORTED, "weights_unsupported"},
        {KR_REPLICAS_EXCEED_NODES, "replicas_exceed_nodes"},
        {KR_REPLICAS_UNSUPPORTED, "replicas_unsupported"},
        {KR_TABLE_SIZE_NOT_PRIME, "table_size_not_prime"},
        {KR_TABLE_SIZE_OUT_OF_RANGE, "table_size_out_of_range"},
        {KR_INVALID_PARAMETER, "invalid_parameter"},
        {KR_INVALID_KEY, "invalid_key"},
        {KR_BUFFER_TOO_SMALL, "buffer_too_small"},
        {KR_NULL_POINTER, "null_pointer"},
        {KR_INVALID_UTF8, "invalid_utf8"},
        {KR_NODE_OUT_OF_RANGE, "node_out_of_range"},
        {KR_INTERNAL, "internal"},
    };
    size_t i;
    for (i = 0; i < sizeof table / sizeof table[0]; i++) {
        const char *name = kr_status_name(table[i].code);
        CHECK(name != NULL && strcmp(name, table[i].name) == 0);
    }
    CHECK(kr_status_name(100) == NULL);
    CHECK(kr_status_name(UINT32_MAX) == NULL);
    CHECK(kr_version() != NULL && strlen(kr_version()) > 0);
    /* The header's version is the library's, and the run-time check agrees; it refuses a header
     * of another ABI line (0.MINOR under 0.x, MAJOR from 1.0) or newer than the library. */
    CHECK(strcmp(kr_version(), KEYROUTE_VERSION_STRING) == 0);
    CHECK(KEYROUTE_VERSION_COMPATIBLE());
    CHECK(!kr_version_compatible(KEYROUTE_VERSION_MAJOR + 1, KEYROUTE_VERSION_MINOR, KEYROUTE_VERSION_PATCH));
    CHECK(!kr_version_compatible(KEYROUTE_VERSION_MAJOR, KEYROUTE_VERSION_MINOR + 1, 0));
    CHECK(!kr_version_compatible(KEYROUTE_VERSION_MAJOR, KEYROUTE_VERSION_MINOR, KEYROUTE_VERSION_PATCH + 1));
    if (KEYROUTE_VERSION_MAJOR == 0 && KEYROUTE_VERSION_MINOR > 0)
        CHECK(!kr_version_compatible(0, KEYROUTE_VERSION_MINOR - 1, 0));
    if (KEYROUTE_VERSION_PATCH > 0)
        CHECK(kr_version_compatible(KEYROUTE_VERSION_MAJOR, KEYROUTE_VERSION_MINOR, KEYROUTE_VERSION_PATCH - 1));

    /* The last message describes the last failure and survives later successes. */
    {
        kr_router *r = NULL, *ok = NULL;
        CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"nope\",\"nodes\":[{\"id\":\"a\"}]}"), &r),
                     KR_UNKNOWN_ALGORITHM);
        CHECK(r == NULL);
        CHECK(strstr(kr_last_error_message(), "nope") != NULL);
        ok = from_json(RING3);
        CHECK(strstr(kr_last_error_message(), "nope") != NULL);
        kr_router_free(ok);
    }
}

/* Bounded loads: an idle key is served at home; 100 requests for one hot key fill its home to
 * ceil(1.25 * 100 / 4) = 32 and spill over, never past 32 on any node; releases bring the key
 * home; bad calls are refused without changing anything. */
static void test_bounded_loads(void) {
    static const char RING4[] =
        "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}";
    kr_router *r = from_json(RING4);
    kr_bounded *b = NULL, *untouched = (kr_bounded *)&b;
    uint32_t home = 0, node = 0, rank = 0, load = 0, total = 0, nodes[100];
    int i, away = 0, within = 1;

    CHECK_STATUS(kr_bounded_new(r, 0.5, &untouched), KR_INVALID_PARAMETER);
    CHECK(untouched == (kr_bounded *)&b);
    CHECK_STATUS(kr_bounded_new(NULL, 1.25, &b), KR_NULL_POINTER);
    CHECK_STATUS(kr_bounded_new(r, 1.25, &b), KR_OK);
    kr_router_free(r); /* the bounded-load handle keeps its own reference */

    CHECK_STATUS(kr_bounded_pick(b, KEY("hot"), &home, &rank), KR_OK);
    CHECK(rank == 0);
    for (i = 0; i < 100; i++) {
        CHECK_STATUS(kr_bounded_acquire(b, KEY("hot"), &nodes[i], &rank), KR_OK);
        away += rank != 0;
    }
    for (node = 0; node < 4; node++) {
        CHECK_STATUS(kr_bounded_load(b, node, &load, &total), KR_OK);
        within &= load <= 32;
        if (node == home) CHECK(load == 32);
    }
    CHECK(within && away == 68 && total == 100);
    CHECK_STATUS(kr_bounded_load(b, 4, &load, NULL), KR_NODE_OUT_OF_RANGE);
    CHECK_STATUS(kr_bounded_acquire(b, KEY("k"), NULL, &rank), KR_NULL_POINTER);
    for (i = 0; i < 100; i++) CHECK_STATUS(kr_bounded_release(b, nodes[i]), KR_OK);
    CHECK_STATUS(kr_bounded_release(b, home), KR_INVALID_PARAMETER); /* nothing left to release */
    CHECK_STATUS(kr_bounded_release(b, 99), KR_NODE_OUT_OF_RANGE);
    CHECK_STATUS(kr_bounded_load(b, home, NULL, &total), KR_OK);
    CHECK(total == 0);
    CHECK_STATUS(kr_bounded_pick(b, KEY("hot"), &node, &rank), KR_OK);
    CHECK(node == home && rank == 0);
    kr_bounded_free(b);
    kr_bounded_free(NULL);

    {
        static const char JUMP[] = "{\"algorithm\":\"jump\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}";
        kr_router *j = from_json(JUMP);
        CHECK_STATUS(kr_bounded_new(j, 1.25, &b), KR_REPLICAS_UNSUPPORTED);
        CHECK_STATUS(kr_spread(j, KEY("hot"), 2, 0, &node), KR_REPLICAS_UNSUPPORTED);
        kr_router_free(j);
    }
}

/* Read spreading: the selector picks among the key's first r replicas, owner first. */
static void test_spread(void) {
    kr_router *r = from_json(RING3);
    uint32_t order[3], node = UINT32_MAX, before = UINT32_MAX;
    uint64_t s;
    CHECK_STATUS(kr_replicas(r, KEY("hot"), order, 3), KR_OK);
    for (s = 0; s < 9; s++) {
        CHECK_STATUS(kr_spread(r, KEY("hot"), 3, s, &node), KR_OK);
        CHECK(node == order[s % 3]);
    }
    before = node;
    CHECK_STATUS(kr_spread(r, KEY("hot"), 0, 0, &node), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_spread(r, KEY("hot"), 4, 0, &node), KR_REPLICAS_EXCEED_NODES);
    CHECK_STATUS(kr_spread(r, KEY("hot"), 2, 0, NULL), KR_NULL_POINTER);
    CHECK(node == before);
    /* The client selector is XXH3-64 of the id: the empty id's is XXH3's published value. */
    CHECK_STATUS(kr_client_selector(NULL, 0, &s), KR_OK);
    CHECK(s == UINT64_C(0x2D06800538D394C2));
    CHECK_STATUS(kr_client_selector((const uint8_t *)"web-1", 5, &s), KR_OK);
    CHECK_STATUS(kr_spread(r, KEY("hot"), 3, s, &node), KR_OK);
    CHECK(node == order[s % 3]);
    CHECK_STATUS(kr_client_selector(NULL, 1, &s), KR_NULL_POINTER);
    CHECK_STATUS(kr_client_selector((const uint8_t *)"x", 1, NULL), KR_NULL_POINTER);
    kr_router_free(r);
}

/* Hot keys: the detector finds the key that makes a third of the requests. */
struct top_seen {
    char key[16];
    uint32_t count;
    size_t calls;
};

static void remember(void *context, const uint8_t *key, size_t key_len, uint32_t count) {
    struct top_seen *seen = (struct top_seen *)context;
    if (seen->calls++ == 0 && key_len < sizeof seen->key) {
        memcpy(seen->key, key, key_len);
        seen->key[key_len] = '\0';
        seen->count = count;
    }
}

static void test_hot_keys(void) {
    kr_hotkeys *h = NULL;
    struct top_seen seen = {{0}, 0, 0};
    uint32_t estimate = 0, heat = 0;
    uint64_t total = 0;
    size_t listed = 0;
    char cold[32];
    int i;
    CHECK_STATUS(kr_hotkeys_new(4096, 64, 4, &h), KR_OK);
    for (i = 0; i < 3000; i++) {
        if (i % 3 == 0) {
            CHECK_STATUS(kr_hotkeys_observe(h, KEY("hot"), &estimate), KR_OK);
        } else {
            int n = snprintf(cold, sizeof cold, "cold:%d", i);
            CHECK_STATUS(kr_hotkeys_observe(h, (const uint8_t *)cold, (size_t)n, NULL), KR_OK);
        }
    }
    CHECK(estimate >= 1000);
    CHECK_STATUS(kr_hotkeys_heat(h, KEY("hot"), &heat, &total), KR_OK);
    CHECK(heat >= 1000 && total == 3000);
    CHECK(heat >= 0.3 * (double)total); /* hot by share */
    CHECK_STATUS(kr_hotkeys_top(h, 3, remember, &seen, &listed), KR_OK);
    /* Keys seen once fall below the admission bar as candidates fill up: only "hot" is listed. */
    CHECK(listed >= 1 && seen.calls == listed && strcmp(seen.key, "hot") == 0 && seen.count == heat);
    CHECK_STATUS(kr_hotkeys_decay(h), KR_OK);
    CHECK_STATUS(kr_hotkeys_heat(h, KEY("hot"), &heat, &total), KR_OK);
    CHECK(heat >= 500 && heat < 1000);
    CHECK(total >= 1496 && total <= 1500); /* each of the 4 shards halves its own count */
    CHECK_STATUS(kr_hotkeys_top(h, 3, NULL, &seen, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_hotkeys_heat(h, KEY("hot"), NULL, NULL), KR_NULL_POINTER);
    kr_hotkeys_free(h);
    h = NULL;
    CHECK_STATUS(kr_hotkeys_new(4096, 0, 4, &h), KR_INVALID_PARAMETER);
    CHECK(h == NULL);
    CHECK_STATUS(kr_hotkeys_new(4096, 64, 257, &h), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_hotkeys_new(4096, 64, 4, NULL), KR_NULL_POINTER);
}

static const char RING4[] =
    "{\"algorithm\":\"ring\",\"params\":{\"points_per_weight\":160},"
    "\"nodes\":[{\"id\":\"cache-0\"},{\"id\":\"cache-1\"},{\"id\":\"cache-2\"},{\"id\":\"cache-3\"}]}";

/* Whether transition node `t_index` and router node `r_index` have the same id. */
static int same_node(const kr_transition *t, uint32_t t_index, const kr_router *r, uint32_t r_index) {
    const char *a = NULL, *b = NULL;
    size_t a_len = 0, b_len = 0;
    return kr_transition_node_id(t, t_index, &a, &a_len) == KR_OK &&
           kr_router_node_id(r, r_index, &b, &b_len) == KR_OK && a_len == b_len && memcmp(a, b, a_len) == 0;
}

static void test_transition(void) {
    kr_router *a = from_json(RING3), *b = from_json(RING4);
    kr_transition *t = NULL;
    uint32_t count = 0, node = UINT32_MAX, in_a = 0, in_b = 0;
    double progress = -1;
    int i, like_a = 1, like_b = 1, fallback_ok = 1, monotone = 1;
    unsigned cut_at_half = 0, cut_at_end = 0;
    const char *id = NULL;
    size_t id_len = 0;
    char key[32];

    CHECK_STATUS(kr_transition_new(a, b, 0.0, &t), KR_OK);
    CHECK_STATUS(kr_transition_node_count(t, &count), KR_OK);
    CHECK(count == 4); /* A's three, then cache-3 */
    CHECK_STATUS(kr_transition_node_id(t, 3, &id, &id_len), KR_OK);
    CHECK_SPAN(id, id_len, "cache-3");
    CHECK_STATUS(kr_transition_progress(t, &progress), KR_OK);
    CHECK(progress == 0.0);
    /* At 0 every key routes as in A, and none has a previous owner. */
    for (i = 0; i < 2000; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        kr_placement p = {77, 77, true};
        if (kr_transition_route(t, (const uint8_t *)key, (size_t)n, &node) != KR_OK ||
            kr_route(a, (const uint8_t *)key, (size_t)n, &in_a) != KR_OK || !same_node(t, node, a, in_a) ||
            kr_transition_route_with_fallback(t, (const uint8_t *)key, (size_t)n, &p) != KR_OK ||
            p.owner != node || p.has_previous || p.previous != p.owner) {
            like_a = 0;
        }
    }
    CHECK(like_a);

    /* Halfway: a key has cut over exactly when it routes as in B and differs from A. */
    CHECK_STATUS(kr_transition_set_progress(t, 0.5), KR_OK);
    CHECK_STATUS(kr_transition_progress(t, &progress), KR_OK);
    CHECK(progress == 0.5);
    for (i = 0; i < 2000; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        kr_placement p = {77, 77, false};
        bool cut = false;
        CHECK_STATUS(kr_transition_route_with_fallback(t, (const uint8_t *)key, (size_t)n, &p), KR_OK);
        CHECK_STATUS(kr_transition_has_cut_over(t, (const uint8_t *)key, (size_t)n, &cut), KR_OK);
        kr_route(a, (const uint8_t *)key, (size_t)n, &in_a);
        kr_route(b, (const uint8_t *)key, (size_t)n, &in_b);
        if (p.has_previous) {
            cut_at_half++;
            if (!cut || !same_node(t, p.owner, b, in_b) || !same_node(t, p.previous, a, in_a)) fallback_ok = 0;
        } else if (!same_node(t, p.owner, a, in_a) && !same_node(t, p.owner, b, in_b)) {
            fallback_ok = 0;
        }
    }
    CHECK(fallback_ok);
    CHECK(cut_at_half > 0);

    /* At 1 every key routes as in B; the keys cut over at 0.5 are still cut over. */
    CHECK_STATUS(kr_transition_set_progress(t, 1.0), KR_OK);
    for (i = 0; i < 2000; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        kr_placement p = {77, 77, false};
        if (kr_transition_route_with_fallback(t, (const uint8_t *)key, (size_t)n, &p) != KR_OK ||
            kr_route(b, (const uint8_t *)key, (size_t)n, &in_b) != KR_OK || !same_node(t, p.owner, b, in_b)) {
            like_b = 0;
        }
        if (p.has_previous) cut_at_end++;
    }
    CHECK(like_b);
    if (cut_at_end < cut_at_half) monotone = 0;
    CHECK(monotone);
    /* About a quarter of the keys move to cache-3, half of them by 0.5. */
    CHECK(cut_at_end > 300 && cut_at_end < 700);
    CHECK(cut_at_half > cut_at_end / 4 && cut_at_half < cut_at_end * 3 / 4);

    /* A progress outside [0, 1] is refused and the transition keeps its own. */
    CHECK_STATUS(kr_transition_set_progress(t, 1.5), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_transition_set_progress(t, -0.1), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_transition_set_progress(t, (double)NAN), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_transition_progress(t, &progress), KR_OK);
    CHECK(progress == 1.0);
    /* The ids borrowed before stay valid after progress changes. */
    CHECK_SPAN(id, id_len, "cache-3");
    CHECK_STATUS(kr_transition_node_id(t, 4, &id, &id_len), KR_NODE_OUT_OF_RANGE);
    kr_transition_free(t);

    /* The transition holds its own copy: the routers may be released first. */
    t = NULL;
    CHECK_STATUS(kr_transition_new(a, b, 0.25, &t), KR_OK);
    kr_router_free(a);
    kr_router_free(b);
    CHECK_STATUS(kr_transition_route(t, KEY("foo"), &node), KR_OK);
    CHECK(node < 4);
    kr_transition_free(t);
    kr_transition_free(NULL);
}

static void test_route_hash(void) {
    kr_router *ring = from_json(RING3);
    kr_router *jump = from_json("{\"algorithm\":\"jump\",\"params\":{\"key_hash\":\"u64be\"},\"nodes\":["
                                "{\"id\":\"cache-0\"},{\"id\":\"cache-1\"},{\"id\":\"cache-2\"},{\"id\":\"cache-3\"}]}");
    kr_router *rdv = from_json("{\"algorithm\":\"rendezvous\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}");
    static const uint8_t two[8] = {0, 0, 0, 0, 0, 0, 0, 2};
    uint64_t hash = 0, hashes[64];
    uint32_t node = UINT32_MAX, by_hash = UINT32_MAX, nodes[64];
    int i, agree = 1;
    char key[32];

    /* native-ring-3: foo -> cache-0, by key and by its hash. */
    CHECK_STATUS(kr_key_hash(ring, KEY("foo"), &hash), KR_OK);
    CHECK_STATUS(kr_route_hash(ring, hash, &by_hash), KR_OK);
    CHECK(id_is(ring, by_hash, "cache-0"));
    /* Jump over u64be keys routes on the key itself: 2 -> cache-3. */
    CHECK_STATUS(kr_key_hash(jump, two, 8, &hash), KR_OK);
    CHECK(hash == 2);
    CHECK_STATUS(kr_route_hash(jump, 2, &node), KR_OK);
    CHECK(id_is(jump, node, "cache-3"));
    CHECK_STATUS(kr_key_hash(jump, KEY("short"), &hash), KR_INVALID_KEY);

    /* A batch of hashes routes as each hash does. */
    for (i = 0; i < 64; i++) {
        int n = snprintf(key, sizeof key, "user:%d", i);
        CHECK_STATUS(kr_key_hash(ring, (const uint8_t *)key, (size_t)n, &hashes[i]), KR_OK);
    }
    CHECK_STATUS(kr_route_hash_batch(ring, hashes, 64, nodes, 64), KR_OK);
    for (i = 0; i < 64; i++) {
        int n = snprintf(key, sizeof key, "user:%d", i);
        if (kr_route(ring, (const uint8_t *)key, (size_t)n, &node) != KR_OK || node != nodes[i]) agree = 0;
    }
    CHECK(agree);
    CHECK_STATUS(kr_route_hash_batch(ring, NULL, 0, NULL, 0), KR_OK);

    /* Rendezvous ranks nodes per key: there is no hash to route on. */
    hash = 77;
    CHECK_STATUS(kr_key_hash(rdv, KEY("foo"), &hash), KR_ROUTE_HASH_UNSUPPORTED);
    CHECK(hash == 77);
    CHECK_STATUS(kr_route_hash(rdv, 1, &node), KR_ROUTE_HASH_UNSUPPORTED);
    CHECK_STATUS(kr_route_hash_batch(rdv, hashes, 1, nodes, 1), KR_ROUTE_HASH_UNSUPPORTED);
    kr_router_free(ring);
    kr_router_free(jump);
    kr_router_free(rdv);
}

static void test_ownership_and_diff(void) {
    kr_router *a = from_json(RING3), *b = from_json(RING4);
    kr_router *jump = from_json("{\"algorithm\":\"jump\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}");
    kr_router *probe = from_json("{\"algorithm\":\"multi-probe\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}");
    kr_ownership_summary own;
    kr_diff *d = NULL;
    kr_diff_figures fig;
    kr_flow *flows;
    kr_node_change nodes[8];
    kr_moved_arc *arcs;
    double shares[4] = {0, 0, 0, 0}, sum = 0, onto_new = 0, gained = 0, lost = 0;
    size_t count = 0, i;
    int flows_ok = 1, arcs_ok = 1, nodes_ok = 1;

    /* Ownership: a ring is measured exactly, jump in closed form. */
    CHECK_STATUS(kr_ownership(b, shares, 4, &own), KR_OK);
    for (i = 0; i < 4; i++) sum += shares[i];
    CHECK(sum > 0.999999 && sum < 1.000001);
    CHECK(own.method == KR_ANALYSIS_METHOD_EXACT && own.sample_keys == 0);
    CHECK(own.max_over_mean >= 1.0 && own.min_over_mean <= 1.0 && own.cv >= 0);
    CHECK_STATUS(kr_ownership(jump, shares, 2, &own), KR_OK);
    CHECK(own.method == KR_ANALYSIS_METHOD_EXPECTED && shares[0] == 0.5 && shares[1] == 0.5);
    /* Multi-probe's shares come from 2^18 sample keys: too slow under valgrind (the Rust tests
     * check every sampled algorithm); its capabilities say so without routing any. */
    {
        kr_capabilities c;
        CHECK_STATUS(kr_router_capabilities(probe, &c), KR_OK);
        CHECK(c.analysis == KR_ANALYSIS_METHOD_SAMPLED && c.sample_keys > 0);
    }
    shares[0] = 77;
    CHECK_STATUS(kr_ownership(b, shares, 3, &own), KR_BUFFER_TOO_SMALL);
    CHECK(shares[0] == 77);

    /* The diff of adding cache-3 to a ring: about a quarter moves, all of it onto cache-3. */
    CHECK_STATUS(kr_diff_new(a, b, &d), KR_OK);
    CHECK_STATUS(kr_diff_summary(d, &fig), KR_OK);
    CHECK(fig.method == KR_ANALYSIS_METHOD_EXACT && fig.sample_keys == 0);
    CHECK(fig.ideal_moved > 0.2499999 && fig.ideal_moved < 0.2500001);
    CHECK(fig.moved > 0.2 && fig.moved < 0.3);
    CHECK(fig.node_count == 4 && fig.flow_count >= 4 && fig.moved_arc_count > 0);

    /* Sizing, then copying the flows. */
    CHECK_STATUS(kr_diff_flows(d, NULL, 0, &count), KR_BUFFER_TOO_SMALL);
    CHECK(count == fig.flow_count);
    flows = calloc(count, sizeof *flows);
    CHECK(flows != NULL);
    if (flows != NULL) {
        CHECK_STATUS(kr_diff_flows(d, flows, count - 1, &count), KR_BUFFER_TOO_SMALL);
        CHECK(count == fig.flow_count && flows[0].share == 0);
        CHECK_STATUS(kr_diff_flows(d, flows, count, &count), KR_OK);
        sum = 0;
        for (i = 0; i < count; i++) {
            sum += flows[i].share;
            if (flows[i].moved) {
                onto_new += flows[i].share;
                if (flows[i].to_index != 3) flows_ok = 0;
            } else if (flows[i].from_index != flows[i].to_index) {
                flows_ok = 0;
            }
        }
        CHECK(flows_ok);
        CHECK(sum > 0.999999 && sum < 1.000001);
        CHECK(onto_new > fig.moved - 1e-9 && onto_new < fig.moved + 1e-9);
        free(flows);
    }

    /* Per node, as `keyroute plan` prints it: cache-3 is new, gains what the others lose. */
    CHECK_STATUS(kr_diff_nodes(d, nodes, 8, &count), KR_OK);
    CHECK(count == 4);
    for (i = 0; i < count; i++) {
        gained += nodes[i].gained;
        lost += nodes[i].lost;
        if (nodes[i].after - nodes[i].before - (nodes[i].gained - nodes[i].lost) > 1e-9 ||
            nodes[i].after - nodes[i].before - (nodes[i].gained - nodes[i].lost) < -1e-9) {
            nodes_ok = 0;
        }
        if (i < 3 && (nodes[i].from_index != i || nodes[i].to_index != i || nodes[i].gained != 0)) nodes_ok = 0;
    }
    CHECK(nodes_ok);
    CHECK(nodes[3].from_index == KR_NO_NODE && nodes[3].to_index == 3 && nodes[3].before == 0);
    CHECK(nodes[3].gained > fig.moved - 1e-9 && nodes[3].gained < fig.moved + 1e-9);
    CHECK(gained > lost - 1e-9 && gained < lost + 1e-9);
    CHECK_STATUS(kr_diff_nodes(d, nodes, 3, &count), KR_BUFFER_TOO_SMALL);
    CHECK(count == 4);

    /* The moved pieces of the hash space, in order, all onto cache-3. */
    arcs = calloc(fig.moved_arc_count, sizeof *arcs);
    CHECK(arcs != NULL);
    if (arcs != NULL) {
        CHECK_STATUS(kr_diff_moved_arcs(d, arcs, fig.moved_arc_count, &count), KR_OK);
        CHECK(count == fig.moved_arc_count);
        for (i = 0; i < count; i++) {
            if (arcs[i].start > arcs[i].end || arcs[i].to_index != 3 || arcs[i].from_index > 2 ||
                (i > 0 && arcs[i].start <= arcs[i - 1].end)) {
                arcs_ok = 0;
            }
        }
        CHECK(arcs_ok);
        free(arcs);
    }
    kr_diff_free(d);
    kr_diff_free(NULL);

    /* Two jump routers: closed form, no pieces of hash space. */
    d = NULL;
    {
        kr_router *jump3 = from_json("{\"algorithm\":\"jump\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}");
        CHECK_STATUS(kr_diff_new(jump, jump3, &d), KR_OK);
        CHECK_STATUS(kr_diff_summary(d, &fig), KR_OK);
        CHECK(fig.method == KR_ANALYSIS_METHOD_EXPECTED && fig.moved_arc_count == 0);
        CHECK(fig.moved > 0.3333332 && fig.moved < 0.3333334);
        CHECK_STATUS(kr_diff_moved_arcs(d, NULL, 0, &count), KR_OK);
        CHECK(count == 0);
        kr_diff_free(d);
        kr_router_free(jump3);
    }
    kr_router_free(a);
    kr_router_free(b);
    kr_router_free(jump);
    kr_router_free(probe);
}

static void test_capabilities(void) {
    kr_router *ring = from_json(RING3);
    kr_router *jump = from_json("{\"algorithm\":\"jump\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}");
    kr_router *slots = from_json("{\"algorithm\":\"slots\",\"nodes\":[{\"id\":\"cache-0\"},"
                                 "{\"id\":\"cache-1\"}],\"params\":{\"count\":1024}}");
    kr_router *probe = from_json("{\"algorithm\":\"multi-probe\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}");
    kr_capabilities c;

    /* A native ring: weights, replicas, routing by hash, exact analysis, its points per weight. */
    CHECK_STATUS(kr_router_capabilities(ring, &c), KR_OK);
    CHECK(c.weights == KR_WEIGHTS_HONOURED && c.replicas && c.route_hash && c.slots == 0);
    CHECK(c.analysis == KR_ANALYSIS_METHOD_EXACT && c.sample_keys == 0 && c.points_per_weight == 160);
    CHECK(!c.rebalance);
    /* Jump: equal weights only, no replica order, routes by hash, closed-form analysis. */
    CHECK_STATUS(kr_router_capabilities(jump, &c), KR_OK);
    CHECK(c.weights == KR_WEIGHTS_REFUSED && !c.replicas && c.route_hash && c.slots == 0);
    CHECK(c.analysis == KR_ANALYSIS_METHOD_EXPECTED && c.points_per_weight == 0);
    /* A slot table: its slot count, a minimal-move rebalance, no hash routing; its analysis is
     * the method kr_ownership reports. */
    CHECK_STATUS(kr_router_capabilities(slots, &c), KR_OK);
    CHECK(c.slots == 1024 && !c.route_hash && c.rebalance && c.points_per_weight == 0);
    {
        double shares[2];
        kr_ownership_summary own;
        CHECK_STATUS(kr_ownership(slots, shares, 2, &own), KR_OK);
        CHECK(own.method == c.analysis);
    }
    /* Multi-probe: analysed from sample keys, and says how many. */
    CHECK_STATUS(kr_router_capabilities(probe, &c), KR_OK);
    CHECK(c.analysis == KR_ANALYSIS_METHOD_SAMPLED && c.sample_keys > 0 && !c.route_hash);
    kr_router_free(ring);
    kr_router_free(jump);
    kr_router_free(slots);
    kr_router_free(probe);
}

int main(void) {
    test_route_and_ids();
    test_batch_matches_single();
    test_replicas_and_zones();
    test_builder_equals_json();
    test_builder_preset_fields();
    test_slots_and_jump();
    test_handles();
    test_status_names_and_messages();
    test_bounded_loads();
    test_spread();
    test_hot_keys();
    test_transition();
    test_route_hash();
    test_ownership_and_diff();
    test_capabilities();
    return check_finish();
}
