/* Threads: several threads route through one kr_shared_router (and one plain kr_router) while
 * another thread builds new topologies and swaps them in. Every answer a reader gets must be the
 * answer of one whole topology: a reader loads a snapshot, checks its fingerprint is one of the
 * two views, and checks each route against that view's precomputed answers.
 *
 * Deterministic coverage: readers start on view A (the writer waits at a barrier until each has
 * routed once), and after the writer's last store (view B) each reader makes one more pass, so
 * every reader sees both views whatever the scheduler does. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

enum { READERS = 4, KEYS = 256, SWAPS = 60, MIN_PASSES = 20 };

static const char VIEW_A[] =
    "{\"algorithm\":\"ring\",\"version\":1,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}";

static kr_shared_router *shared;
static kr_router *plain; /* an immutable router used by every reader at once */
static uint64_t fingerprint[2];
static uint32_t expected[2][KEYS];
static char key_text[KEYS][16];
static size_t key_len[KEYS];
static kr_key batch_keys[KEYS];

static pthread_barrier_t started;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int writer_done;

struct reader_result {
    unsigned long passes, routes, mismatches, errors;
    int saw[2];
};

/* View B: A plus a fourth node, assembled with the builder. */
static kr_status build_view_b(kr_router **out) {
    kr_builder *b = NULL;
    kr_status s = kr_builder_new(TXT("ring"), &b);
    if (s == KR_OK) s = kr_builder_add_node(b, TXT("a"), 1, NULL, 0);
    if (s == KR_OK) s = kr_builder_add_node(b, TXT("b"), 1, NULL, 0);
    if (s == KR_OK) s = kr_builder_add_node(b, TXT("c"), 1, NULL, 0);
    if (s == KR_OK) s = kr_builder_add_node(b, TXT("d"), 1, NULL, 0);
    if (s == KR_OK) s = kr_builder_set_version(b, 2);
    if (s == KR_OK) s = kr_builder_build(b, out);
    kr_builder_free(b);
    return s;
}

static int is_done(void) {
    int d;
    pthread_mutex_lock(&lock);
    d = writer_done;
    pthread_mutex_unlock(&lock);
    return d;
}

/* One pass: load a snapshot, check it is a whole view, route every key through it. */
static void reader_pass(struct reader_result *res) {
    kr_router *snap = NULL;
    uint64_t fp = 0;
    int view, i;
    uint32_t batch[KEYS];

    if (kr_shared_router_load(shared, &snap) != KR_OK || kr_router_fingerprint(snap, &fp) != KR_OK) {
        res->errors++;
        kr_router_free(snap);
        return;
    }
    view = fp == fingerprint[0] ? 0 : fp == fingerprint[1] ? 1 : -1;
    if (view < 0) {
        res->mismatches++;
        kr_router_free(snap);
        return;
    }
    res->saw[view] = 1;
    for (i = 0; i < KEYS; i++) {
        uint32_t node = UINT32_MAX, fixed = UINT32_MAX;
        if (kr_route(snap, (const uint8_t *)key_text[i], key_len[i], &node) != KR_OK ||
            kr_route(plain, (const uint8_t *)key_text[i], key_len[i], &fixed) != KR_OK) {
            res->errors++;
            continue;
        }
        res->routes += 2;
        if (node != expected[view][i] || fixed != expected[0][i]) res->mismatches++;
    }
    if (kr_route_batch(snap, batch_keys, KEYS, batch, KEYS) != KR_OK) {
        res->errors++;
    } else {
        res->routes += KEYS;
        if (memcmp(batch, expected[view], sizeof batch) != 0) res->mismatches++;
    }
    kr_router_free(snap);
    res->passes++;
}

static void *reader(void *arg) {
    struct reader_result *res = arg;
    reader_pass(res); /* on view A: the writer has not stored anything yet */
    pthread_barrier_wait(&started);
    while (!is_done() || res->passes < MIN_PASSES) reader_pass(res);
    reader_pass(res); /* after the writer's last store: view B */
    return NULL;
}

static void *writer(void *arg) {
    unsigned long *errors = arg;
    int i;
    pthread_barrier_wait(&started);
    for (i = 0; i < SWAPS; i++) {
        kr_router *next = NULL;
        /* Build a fresh router each time, alternating B and A so that the last one is B. */
        kr_status s = (SWAPS - 1 - i) % 2 == 0 ? build_view_b(&next) : kr_router_from_json(TXT(VIEW_A), &next);
        if (s != KR_OK || kr_shared_router_store(shared, next) != KR_OK) (*errors)++;
        kr_router_free(next);
    }
    pthread_mutex_lock(&lock);
    writer_done = 1;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void) {
    kr_router *a = NULL, *b = NULL;
    pthread_t readers[READERS], w;
    struct reader_result results[READERS];
    unsigned long writer_errors = 0, routes = 0;
    int i;

    CHECK_STATUS(kr_router_from_json(TXT(VIEW_A), &a), KR_OK);
    CHECK_STATUS(build_view_b(&b), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(a, &fingerprint[0]), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(b, &fingerprint[1]), KR_OK);
    CHECK(fingerprint[0] != fingerprint[1]);
    for (i = 0; i < KEYS; i++) {
        key_len[i] = (size_t)snprintf(key_text[i], sizeof key_text[i], "user:%d", i * 7919);
        batch_keys[i].ptr = (const uint8_t *)key_text[i];
        batch_keys[i].len = key_len[i];
        CHECK_STATUS(kr_route(a, (const uint8_t *)key_text[i], key_len[i], &expected[0][i]), KR_OK);
        CHECK_STATUS(kr_route(b, (const uint8_t *)key_text[i], key_len[i], &expected[1][i]), KR_OK);
    }
    {
        int moved = 0;
        for (i = 0; i < KEYS; i++) moved += expected[0][i] != expected[1][i];
        CHECK(moved > 0); /* the two views differ on some keys, so a torn view would show */
    }
    CHECK_STATUS(kr_shared_router_new(a, &shared), KR_OK);
    plain = a;
    kr_router_free(b);

    CHECK(pthread_barrier_init(&started, NULL, READERS + 1) == 0);
    memset(results, 0, sizeof results);
    for (i = 0; i < READERS; i++) CHECK(pthread_create(&readers[i], NULL, reader, &results[i]) == 0);
    CHECK(pthread_create(&w, NULL, writer, &writer_errors) == 0);
    CHECK(pthread_join(w, NULL) == 0);
    for (i = 0; i < READERS; i++) CHECK(pthread_join(readers[i], NULL) == 0);
    pthread_barrier_destroy(&started);

    CHECK(writer_errors == 0);
    for (i = 0; i < READERS; i++) {
        CHECK(results[i].errors == 0);
        CHECK(results[i].mismatches == 0);
        CHECK(results[i].saw[0] && results[i].saw[1]);
        routes += results[i].routes;
    }
    printf("threads: %d readers, %lu routes, %d topology swaps\n", READERS, routes, SWAPS);

    kr_shared_router_free(shared);
    kr_router_free(a);
    return check_finish();
}
