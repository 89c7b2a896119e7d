/* Bad input through the C ABI: every NULL a caller can pass, text that is not UTF-8, lengths
 * no buffer can have, short buffers, indices out of range, keys and requests an algorithm
 * refuses, builder misuse. Each must give its status code (and leave out-parameters
 * untouched), never a crash; valgrind and AddressSanitizer watch for stray reads and writes. */
#include <stdint.h>

#include "check.h"

static const char RING3[] =
    "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}";
static const char BAD_UTF8[] = "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"\xff\xfe\"}]}";
static const uint8_t ANY[1] = {'k'};

static kr_router *ring3(void) {
    kr_router *r = NULL;
    CHECK_STATUS(kr_router_from_json(TXT(RING3), &r), KR_OK);
    return r;
}

static void test_null_pointers(void) {
    kr_router *r = ring3(), *out = NULL;
    kr_builder *b = NULL;
    kr_shared_router *s = NULL;
    uint32_t node = 77, nodes[4] = {77, 77, 77, 77}, count = 77;
    uint64_t u64 = 77;
    const char *id = NULL;
    size_t len = 77;
    bool has = false;
    kr_key keys[1];

    /* Building. */
    CHECK_STATUS(kr_router_from_json(NULL, 10, &out), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_from_json(TXT(RING3), NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_from_json(NULL, 0, &out), KR_INVALID_JSON); /* (NULL, 0) is "" */
    CHECK(out == NULL);
    CHECK_STATUS(kr_router_clone(NULL, &out), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_clone(r, NULL), KR_NULL_POINTER);
    CHECK(out == NULL);

    /* Routing: a NULL router, a NULL out-parameter, a NULL key with a length. */
    CHECK_STATUS(kr_route(NULL, ANY, 1, &node), KR_NULL_POINTER);
    CHECK_STATUS(kr_route(r, ANY, 1, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_route(r, NULL, 1, &node), KR_NULL_POINTER);
    CHECK(node == 77);
    CHECK_STATUS(kr_route_id(NULL, ANY, 1, &id, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_id(r, ANY, 1, NULL, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_id(r, ANY, 1, &id, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_id(r, NULL, 3, &id, &len), KR_NULL_POINTER);
    CHECK(id == NULL && len == 77);

    keys[0].ptr = ANY;
    keys[0].len = 1;
    CHECK_STATUS(kr_route_batch(NULL, keys, 1, nodes, 4), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_batch(r, NULL, 1, nodes, 4), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_batch(r, keys, 1, NULL, 4), KR_NULL_POINTER);
    keys[0].ptr = NULL; /* NULL with a length: refused, and no byte behind it is read */
    CHECK_STATUS(kr_route_batch(r, keys, 1, nodes, 4), KR_NULL_POINTER);
    CHECK(strstr(kr_last_error_message(), "keys[0]") != NULL);

    nodes[0] = nodes[1] = 77;
    CHECK_STATUS(kr_replicas(NULL, ANY, 1, nodes, 2), KR_NULL_POINTER);
    CHECK_STATUS(kr_replicas(r, ANY, 1, NULL, 2), KR_NULL_POINTER);
    CHECK_STATUS(kr_replicas(r, NULL, 1, nodes, 2), KR_NULL_POINTER);
    CHECK(nodes[0] == 77 && nodes[1] == 77);

    CHECK_STATUS(kr_slot(NULL, ANY, 1, &has, &node), KR_NULL_POINTER);
    CHECK_STATUS(kr_slot(r, ANY, 1, NULL, &node), KR_NULL_POINTER);
    CHECK_STATUS(kr_slot(r, ANY, 1, &has, NULL), KR_NULL_POINTER);

    /* Accessors. */
    CHECK_STATUS(kr_router_node_count(NULL, &count), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_node_count(r, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_node_id(NULL, 0, &id, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_node_id(r, 0, NULL, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_node_id(r, 0, &id, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_fingerprint(NULL, &u64), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_fingerprint(r, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_version(NULL, &u64), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_version(r, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_canonical_json(NULL, &id, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_canonical_json(r, NULL, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_router_canonical_json(r, &id, NULL), KR_NULL_POINTER);
    CHECK(count == 77 && u64 == 77 && id == NULL && len == 77);

    /* Builder. */
    CHECK_STATUS(kr_builder_new(NULL, 4, &b), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_new(TXT("ring"), NULL), KR_NULL_POINTER);
    CHECK(b == NULL);
    CHECK_STATUS(kr_builder_set_params_json(NULL, TXT("{}")), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_set_version(NULL, 1), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_add_node(NULL, TXT("a"), 1, NULL, 0), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_set_node_address(NULL, TXT("h"), 1), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_set_node_name(NULL, TXT("n")), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_add_node_slots(NULL, 0, 1), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_build(NULL, &out), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_new(TXT("ring"), &b), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, NULL, 1, 1, NULL, 0), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_add_node(b, TXT("a"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_set_params_json(b, NULL, 2), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_set_node_address(b, NULL, 1, 1), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_set_node_name(b, NULL, 1), KR_NULL_POINTER);
    CHECK_STATUS(kr_builder_build(b, NULL), KR_NULL_POINTER);
    kr_builder_free(b);

    /* Shared router. */
    CHECK_STATUS(kr_shared_router_new(NULL, &s), KR_NULL_POINTER);
    CHECK_STATUS(kr_shared_router_new(r, NULL), KR_NULL_POINTER);
    CHECK(s == NULL);
    CHECK_STATUS(kr_shared_router_new(r, &s), KR_OK);
    CHECK_STATUS(kr_shared_router_load(NULL, &out), KR_NULL_POINTER);
    CHECK_STATUS(kr_shared_router_load(s, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_shared_router_store(NULL, r), KR_NULL_POINTER);
    CHECK_STATUS(kr_shared_router_store(s, NULL), KR_NULL_POINTER);
    CHECK(out == NULL);
    kr_shared_router_free(s);

    /* A NULL failure has a message naming what was NULL. */
    CHECK_STATUS(kr_route(r, ANY, 1, NULL), KR_NULL_POINTER);
    CHECK(strstr(kr_last_error_message(), "node") != NULL);
    kr_router_free(r);
}

static void test_invalid_utf8(void) {
    kr_router *out = NULL;
    kr_builder *b = NULL;

    CHECK_STATUS(kr_router_from_json(TXT(BAD_UTF8), &out), KR_INVALID_UTF8);
    CHECK(out == NULL);
    CHECK(strstr(kr_last_error_message(), "UTF-8") != NULL);
    CHECK_STATUS(kr_builder_new(TXT("ri\xc3"), &b), KR_INVALID_UTF8); /* truncated sequence */
    CHECK(b == NULL);
    CHECK_STATUS(kr_builder_new(TXT("ring"), &b), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, TXT("\xc0\xaf"), 1, NULL, 0), KR_INVALID_UTF8); /* overlong */
    CHECK_STATUS(kr_builder_add_node(b, TXT("a"), 1, TXT("\xed\xa0\x80")), KR_INVALID_UTF8); /* surrogate */
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("{\"x\":\"\xff\"}")), KR_INVALID_UTF8);
    CHECK_STATUS(kr_builder_add_node(b, TXT("a"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_set_node_address(b, TXT("\x80"), 11211), KR_INVALID_UTF8);
    CHECK_STATUS(kr_builder_set_node_name(b, TXT("\xf8\x88\x80\x80\x80")), KR_INVALID_UTF8);
    /* Nothing bad was added: the builder still builds its one node. */
    CHECK_STATUS(kr_builder_build(b, &out), KR_OK);
    {
        uint32_t n = 0;
        CHECK_STATUS(kr_router_node_count(out, &n), KR_OK);
        CHECK(n == 1);
    }
    kr_router_free(out);
    kr_builder_free(b);

    /* Keys are bytes, not text: invalid UTF-8 routes fine on a native ring. */
    {
        kr_router *r = ring3();
        uint32_t node = 77;
        CHECK_STATUS(kr_route(r, (const uint8_t *)"\xff\xfe", 2, &node), KR_OK);
        CHECK(node < 3);
        kr_router_free(r);
    }
}

static void test_impossible_lengths(void) {
    kr_router *r = ring3(), *out = NULL;
    uint32_t node = 77, nodes[2] = {77, 77};
    kr_key key;

    /* Lengths above isize::MAX are refused before any byte is read. */
    CHECK_STATUS(kr_route(r, ANY, SIZE_MAX, &node), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_router_from_json(RING3, SIZE_MAX, &out), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_replicas(r, ANY, 1, nodes, SIZE_MAX), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_route_batch(r, &key, SIZE_MAX, nodes, 2), KR_INVALID_PARAMETER);
    key.ptr = ANY;
    key.len = SIZE_MAX;
    CHECK_STATUS(kr_route_batch(r, &key, 1, nodes, 2), KR_INVALID_PARAMETER);
    CHECK(strstr(kr_last_error_message(), "keys[0].len") != NULL);
    CHECK(node == 77 && out == NULL);
    kr_router_free(r);
}

static void test_refused_requests(void) {
    kr_router *r = ring3(), *jump = NULL, *out = NULL;
    uint32_t node = 77, nodes[4] = {77, 77, 77, 77};
    const char *id = NULL;
    size_t len = 77;
    kr_key keys[3];
    static const uint8_t eight[8] = {0, 0, 0, 0, 0, 0, 0, 5};

    /* Output buffers too small; node indices out of range. */
    keys[0].ptr = ANY;
    keys[0].len = 1;
    keys[1] = keys[0];
    keys[2] = keys[0];
    CHECK_STATUS(kr_route_batch(r, keys, 3, nodes, 2), KR_BUFFER_TOO_SMALL);
    CHECK_STATUS(kr_route_batch(r, keys, 3, NULL, 0), KR_BUFFER_TOO_SMALL);
    CHECK_STATUS(kr_router_node_id(r, 3, &id, &len), KR_NODE_OUT_OF_RANGE);
    CHECK_STATUS(kr_router_node_id(r, UINT32_MAX, &id, &len), KR_NODE_OUT_OF_RANGE);
    CHECK(id == NULL && len == 77);
    CHECK_STATUS(kr_replicas(r, ANY, 1, nodes, 4), KR_REPLICAS_EXCEED_NODES);

    /* Jump over raw u64 keys: a key that is not 8 bytes is refused; no replica order. */
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"jump\",\"params\":{\"key_hash\":\"u64be\"},"
                                         "\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}]}"),
                                     &jump),
                 KR_OK);
    CHECK_STATUS(kr_route(jump, ANY, 1, &node), KR_INVALID_KEY);
    CHECK_STATUS(kr_route_id(jump, ANY, 1, &id, &len), KR_INVALID_KEY);
    CHECK(node == 77 && id == NULL);
    CHECK_STATUS(kr_replicas(jump, eight, 8, nodes, 2), KR_REPLICAS_UNSUPPORTED);
    /* A batch with one refused key fails with that key's code. */
    keys[0].ptr = eight;
    keys[0].len = 8;
    keys[1].ptr = ANY;
    keys[1].len = 1;
    CHECK_STATUS(kr_route_batch(jump, keys, 2, nodes, 4), KR_INVALID_KEY);
    /* A NULL span later in a batch is found and named, whatever else the batch holds. */
    {
        kr_key many[40];
        uint32_t out[40];
        int i;
        for (i = 0; i < 40; i++) {
            many[i].ptr = ANY;
            many[i].len = 1;
        }
        many[37].ptr = NULL;
        CHECK_STATUS(kr_route_batch(r, many, 40, out, 40), KR_NULL_POINTER);
        CHECK(strstr(kr_last_error_message(), "keys[37]") != NULL);
        /* The next batch on this thread is not affected. */
        many[37].ptr = ANY;
        CHECK_STATUS(kr_route_batch(r, many, 40, out, 40), KR_OK);
    }
    kr_router_free(jump);

    /* Specs the bindings refuse, each with its code. */
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"ring\",\"nodes\":["), &out), KR_INVALID_JSON);
    CHECK_STATUS(kr_router_from_json(TXT("[1,2,3]"), &out), KR_INVALID_SPEC);
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"ring\",\"nodes\":[]}"), &out), KR_EMPTY_TOPOLOGY);
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"a\"}]}"), &out),
                 KR_DUPLICATE_NODE_ID);
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\",\"weight\":0}]}"), &out),
                 KR_ZERO_TOTAL_WEIGHT);
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"maglev\",\"params\":{\"table_size\":65536},"
                                         "\"nodes\":[{\"id\":\"a\"}]}"),
                                     &out),
                 KR_TABLE_SIZE_NOT_PRIME);
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"}],\"x\":1}"), &out),
                 KR_INVALID_SPEC);
    /* Embedded NUL inside the length: it is part of the text, so this is not valid JSON. */
    CHECK_STATUS(kr_router_from_json(TXT("{\"algorithm\":\"ring\"}\0xx"), &out), KR_INVALID_JSON);
    CHECK(out == NULL);
    kr_router_free(r);
}

static void test_builder_misuse(void) {
    kr_builder *b = NULL;
    kr_router *out = NULL;

    CHECK_STATUS(kr_builder_new(TXT("ring"), &b), KR_OK);
    /* Node fields before any node. */
    CHECK_STATUS(kr_builder_set_node_address(b, TXT("10.0.0.1"), 11211), KR_NODE_OUT_OF_RANGE);
    CHECK_STATUS(kr_builder_set_node_name(b, TXT("n")), KR_NODE_OUT_OF_RANGE);
    CHECK_STATUS(kr_builder_add_node_slots(b, 0, 1), KR_NODE_OUT_OF_RANGE);
    /* No nodes yet. */
    CHECK_STATUS(kr_builder_build(b, &out), KR_EMPTY_TOPOLOGY);
    /* Params that are not a JSON object, or not JSON; nothing changes. */
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("[1]")), KR_INVALID_SPEC);
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("{")), KR_INVALID_JSON);
    CHECK_STATUS(kr_builder_add_node(b, TXT("a"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &out), KR_OK);
    kr_router_free(out);
    out = NULL;
    /* Unknown parameter, bad values, duplicate id, out-of-range version: refused at build. */
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("{\"vnodes\":40}")), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &out), KR_INVALID_SPEC);
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("{\"points_per_weight\":0}")), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &out), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_builder_set_params_json(b, TXT("{}")), KR_OK);
    CHECK_STATUS(kr_builder_set_version(b, (uint64_t)1 << 53), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &out), KR_INVALID_SPEC);
    CHECK_STATUS(kr_builder_set_version(b, ((uint64_t)1 << 53) - 1), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, TXT("a"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &out), KR_DUPLICATE_NODE_ID);
    CHECK(out == NULL);
    kr_builder_free(b);

    /* An unknown algorithm, an empty id. */
    b = NULL;
    CHECK_STATUS(kr_builder_new(TXT("consistent"), &b), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, TXT("a"), 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &out), KR_UNKNOWN_ALGORITHM);
    kr_builder_free(b);
    b = NULL;
    CHECK_STATUS(kr_builder_new(TXT("ring"), &b), KR_OK);
    CHECK_STATUS(kr_builder_add_node(b, "", 0, 1, NULL, 0), KR_OK);
    CHECK_STATUS(kr_builder_build(b, &out), KR_INVALID_NODE_ID);
    CHECK(out == NULL);
    kr_builder_free(b);
}

/* Transitions, routing by hash, ownership and diffs: every NULL, short buffers, lengths no
 * buffer can have, misaligned arrays. Out-parameters stay untouched on failure (a buffer's
 * count excepted: it says how many are needed). */
static void test_transitions_hashes_and_analysis(void) {
    kr_router *r = ring3();
    kr_transition *t = NULL, *t_out = (kr_transition *)(uintptr_t)1;
    kr_diff *d = NULL, *d_out = (kr_diff *)(uintptr_t)1;
    kr_placement p = {77, 77, true};
    kr_ownership_summary own;
    kr_diff_figures fig;
    kr_flow flows[16];
    kr_node_change nodes[3];
    kr_moved_arc arcs[1];
    uint32_t node = 77, out[4] = {77, 77, 77, 77}, count = 77;
    uint64_t hash = 77, hashes[2] = {1, 2};
    uint8_t raw[64];
    double progress = 77, shares[3] = {77, 77, 77};
    const char *id = NULL;
    size_t len = 77, n = 77;
    bool cut = true;

    /* kr_transition: NULL routers, a NULL out-parameter, a progress out of range. */
    CHECK_STATUS(kr_transition_new(NULL, r, 0.5, &t_out), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_new(r, NULL, 0.5, &t_out), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_new(r, r, 0.5, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_new(r, r, 1.0001, &t_out), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_transition_new(r, r, -1e-300, &t_out), KR_INVALID_PARAMETER);
    CHECK(t_out == (kr_transition *)(uintptr_t)1);
    CHECK_STATUS(kr_transition_new(r, r, 0.5, &t), KR_OK);
    CHECK_STATUS(kr_transition_progress(NULL, &progress), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_progress(t, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_set_progress(NULL, 0.5), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_route(NULL, ANY, 1, &node), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_route(t, ANY, 1, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_route(t, NULL, 1, &node), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_route(t, ANY, SIZE_MAX, &node), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_transition_route_with_fallback(NULL, ANY, 1, &p), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_route_with_fallback(t, ANY, 1, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_route_with_fallback(t, NULL, 1, &p), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_has_cut_over(NULL, ANY, 1, &cut), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_has_cut_over(t, ANY, 1, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_has_cut_over(t, NULL, 1, &cut), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_node_count(NULL, &count), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_node_count(t, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_node_id(NULL, 0, &id, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_node_id(t, 0, NULL, &len), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_node_id(t, 0, &id, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_transition_node_id(t, 3, &id, &len), KR_NODE_OUT_OF_RANGE);
    CHECK_STATUS(kr_transition_node_id(t, UINT32_MAX, &id, &len), KR_NODE_OUT_OF_RANGE);
    CHECK(progress == 77 && node == 77 && p.owner == 77 && p.has_previous && cut && count == 77);
    CHECK(id == NULL && len == 77);
    kr_transition_free(t);

    /* Routing by hash. */
    CHECK_STATUS(kr_key_hash(NULL, ANY, 1, &hash), KR_NULL_POINTER);
    CHECK_STATUS(kr_key_hash(r, ANY, 1, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_key_hash(r, NULL, 1, &hash), KR_NULL_POINTER);
    CHECK_STATUS(kr_key_hash(r, ANY, SIZE_MAX, &hash), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_route_hash(NULL, 1, &node), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_hash(r, 1, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_hash_batch(NULL, hashes, 2, out, 4), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_hash_batch(r, NULL, 2, out, 4), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_hash_batch(r, hashes, 2, NULL, 4), KR_NULL_POINTER);
    CHECK_STATUS(kr_route_hash_batch(r, hashes, 2, out, 1), KR_BUFFER_TOO_SMALL);
    CHECK_STATUS(kr_route_hash_batch(r, hashes, 2, NULL, 0), KR_BUFFER_TOO_SMALL);
    CHECK_STATUS(kr_route_hash_batch(r, hashes, SIZE_MAX, out, 4), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_route_hash_batch(r, hashes, 2, out, SIZE_MAX), KR_INVALID_PARAMETER);
    /* Arrays off their alignment are refused, never read. */
    CHECK_STATUS(kr_route_hash_batch(r, (const uint64_t *)(void *)(raw + 1), 2, out, 4), KR_INVALID_PARAMETER);
    CHECK_STATUS(kr_route_hash_batch(r, hashes, 2, (uint32_t *)(void *)(raw + 1), 4), KR_INVALID_PARAMETER);
    CHECK(hash == 77 && node == 77 && out[0] == 77 && out[1] == 77);

    /* Ownership. */
    CHECK_STATUS(kr_ownership(NULL, shares, 3, &own), KR_NULL_POINTER);
    CHECK_STATUS(kr_ownership(r, NULL, 3, &own), KR_NULL_POINTER);
    CHECK_STATUS(kr_ownership(r, NULL, 0, &own), KR_BUFFER_TOO_SMALL);
    CHECK_STATUS(kr_ownership(r, shares, 2, &own), KR_BUFFER_TOO_SMALL);
    CHECK_STATUS(kr_ownership(r, shares, SIZE_MAX, &own), KR_OK); /* only the node count is written */
    CHECK(shares[0] != 77);

    /* Diffs. */
    CHECK_STATUS(kr_diff_new(NULL, r, &d_out), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_new(r, NULL, &d_out), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_new(r, r, NULL), KR_NULL_POINTER);
    CHECK(d_out == (kr_diff *)(uintptr_t)1);
    CHECK_STATUS(kr_diff_new(r, r, &d), KR_OK);
    CHECK_STATUS(kr_diff_summary(NULL, &fig), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_summary(d, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_summary(d, &fig), KR_OK);
    CHECK(fig.moved == 0 && fig.moved_arc_count == 0 && fig.node_count == 3 && fig.flow_count == 3);
    CHECK_STATUS(kr_diff_flows(NULL, flows, 16, &n), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_flows(d, flows, 16, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_flows(d, NULL, 16, &n), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_flows(d, flows, 2, &n), KR_BUFFER_TOO_SMALL);
    CHECK(n == 3);
    CHECK_STATUS(kr_diff_nodes(NULL, nodes, 3, &n), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_nodes(d, nodes, 3, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_nodes(d, NULL, 3, &n), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_nodes(d, nodes, 0, &n), KR_BUFFER_TOO_SMALL);
    CHECK_STATUS(kr_diff_moved_arcs(NULL, arcs, 1, &n), KR_NULL_POINTER);
    CHECK_STATUS(kr_diff_moved_arcs(d, arcs, 1, NULL), KR_NULL_POINTER);
    n = 77;
    CHECK_STATUS(kr_diff_moved_arcs(d, NULL, 0, &n), KR_OK); /* nothing moved: nothing to copy */
    CHECK(n == 0);
    kr_diff_free(d);

    /* Capabilities. */
    {
        kr_capabilities c;
        memset(&c, 0x5a, sizeof c);
        CHECK_STATUS(kr_router_capabilities(NULL, &c), KR_NULL_POINTER);
        CHECK_STATUS(kr_router_capabilities(r, NULL), KR_NULL_POINTER);
        CHECK(c.slots == 0x5a5a5a5a);
    }
    kr_router_free(r);
}

int main(void) {
    test_null_pointers();
    test_invalid_utf8();
    test_impossible_lengths();
    test_refused_requests();
    test_builder_misuse();
    test_transitions_hashes_and_analysis();
    return check_finish();
}
