/* Threads: several threads route through one kr_shared_router (and one plain kr_router) while
 * another thread builds new topologies and swaps them in. Every answer a reader gets must be the
 * answer of one whole topology: a reader loads a snapshot, checks its fingerprint is one of the
 * two views, and checks each route against that view's precomputed answers.
 *
 * Deterministic coverage: readers start on view A (the writer waits at a barrier until each has
 * routed once), and after the writer's last store (view B) each reader makes one more pass, so
 * every reader sees both views whatever the scheduler does.
 *
 * Then the same for a kr_transition from A to B: readers route through it while a writer moves
 * its progress from 0 to 1 in steps. Every answer must be the key's owner in A or in B (with the
 * owner in A as its fallback once cut over), a key once cut over stays so (progress only grows),
 * and after the last step every key routes as in B. */
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

static kr_transition *transition;
static int progress_done;
static unsigned long transition_passes; /* under `lock`; `passed` signals each increment */
static pthread_cond_t passed = PTHREAD_COND_INITIALIZER;
enum { STEPS = 40 };

struct transition_result {
    unsigned long routes, wrong, errors, regressions;
    unsigned char cut[KEYS];
};

static int is_progress_done(void) {
    int d;
    pthread_mutex_lock(&lock);
    d = progress_done;
    pthread_mutex_unlock(&lock);
    return d;
}

/* One pass over every key through the transition; `final` wants every key as in B. */
static void transition_pass(struct transition_result *res, int final) {
    int i;
    for (i = 0; i < KEYS; i++) {
        kr_placement p = {UINT32_MAX, UINT32_MAX, false};
        if (kr_transition_route_with_fallback(transition, (const uint8_t *)key_text[i], key_len[i], &p) != KR_OK) {
            res->errors++;
            continue;
        }
        res->routes++;
        if (p.has_previous) {
            if (p.owner != expected[1][i] || p.previous != expected[0][i]) res->wrong++;
            res->cut[i] = 1;
        } else {
            if (p.owner != expected[0][i] && p.owner != expected[1][i]) res->wrong++;
            if (res->cut[i] && p.owner != expected[1][i]) res->regressions++;
        }
        if (final && p.owner != expected[1][i]) res->wrong++;
    }
}

static void *transition_reader(void *arg) {
    struct transition_result *res = arg;
    transition_pass(res, 0);
    pthread_barrier_wait(&started);
    while (!is_progress_done()) {
        transition_pass(res, 0);
        pthread_mutex_lock(&lock);
        transition_passes++;
        pthread_cond_signal(&passed);
        pthread_mutex_unlock(&lock);
    }
    transition_pass(res, 1); /* after the last step: progress 1 */
    return NULL;
}

static void *progress_writer(void *arg) {
    unsigned long *errors = arg;
    int i;
    pthread_barrier_wait(&started);
    for (i = 1; i <= STEPS; i++) {
        unsigned long seen;
        pthread_mutex_lock(&lock);
        seen = transition_passes;
        pthread_mutex_unlock(&lock);
        if (kr_transition_set_progress(transition, (double)i / STEPS) != KR_OK) (*errors)++;
        /* Readers route meanwhile: each step lasts about one pass of every reader. */
        pthread_mutex_lock(&lock);
        while (transition_passes < seen + READERS) pthread_cond_wait(&passed, &lock);
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    progress_done = 1;
    pthread_mutex_unlock(&lock);
    return NULL;
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
    /* A's nodes, then B's new one: the transition's indices are B's. */
    CHECK_STATUS(kr_transition_new(a, b, 0.0, &transition), KR_OK);
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

    {
        static struct transition_result tres[READERS];
        unsigned long progress_errors = 0, troutes = 0;
        CHECK(pthread_barrier_init(&started, NULL, READERS + 1) == 0);
        for (i = 0; i < READERS; i++) CHECK(pthread_create(&readers[i], NULL, transition_reader, &tres[i]) == 0);
        CHECK(pthread_create(&w, NULL, progress_writer, &progress_errors) == 0);
        CHECK(pthread_join(w, NULL) == 0);
        for (i = 0; i < READERS; i++) CHECK(pthread_join(readers[i], NULL) == 0);
        pthread_barrier_destroy(&started);
        CHECK(progress_errors == 0);
        for (i = 0; i < READERS; i++) {
            CHECK(tres[i].errors == 0);
            CHECK(tres[i].wrong == 0);
            CHECK(tres[i].regressions == 0);
            troutes += tres[i].routes;
        }
        printf("threads: %d readers, %lu routes through a transition, %d progress steps\n", READERS, troutes, STEPS);
        kr_transition_free(transition);
    }

    kr_shared_router_free(shared);
    kr_router_free(a);
    return check_finish();
}
