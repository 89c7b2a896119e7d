/* Views in C: a kr_live_view (publish, refusals, routes against a plain kr_router and a
 * kr_transition, snapshots outliving a swap, a rollout's fallback and ends, a reader thread
 * routing while the main thread publishes), a watched file (atomic renames, a refusal, the
 * census on the file source, a stop leaving it, the callback refusing to stop its own watch),
 * and a real etcd (two publishers expecting the same version: exactly one wins; watches
 * counting their callbacks; the fleet status in sync).
 *
 * Usage: test_views HOST:PORT, an etcd member's client address (ffi/test.sh starts one on a
 * free port of 127.0.0.1). Each run uses keys of its own (its pid), so runs can share it.
 * Waits poll the live view with a deadline (no timing is asserted). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define SPEC_A "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}"
#define SPEC_B "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}"

enum { KEYS = 1000, WAIT_MS = 30000 };

static char doc_buf[4096];

/* A plain view document of SPEC at VERSION (static storage, overwritten by the next call). */
static const char *doc(unsigned version, const char *spec) {
    snprintf(doc_buf, sizeof doc_buf, "{\"version\":%u,\"spec\":%s}", version, spec);
    return doc_buf;
}

static kr_status publish(kr_live_view *lv, const char *text, uint64_t *version) {
    return kr_live_view_publish(lv, (const uint8_t *)text, strlen(text), version);
}

/* Publishes a plain document of SPEC at VERSION to the source URL, expecting EXPECT there. */
static kr_status publish_to(const char *url, unsigned version, const char *spec, uint64_t expect, uint64_t *out) {
    const char *text = doc(version, spec);
    return kr_publish_view(url, strlen(url), (const uint8_t *)text, strlen(text), expect, NULL, 0, out);
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits until the live view's version is WANT (polling; gives up after WAIT_MS). */
static int wait_version(const kr_live_view *lv, uint64_t want) {
    for (long waited = 0; waited < WAIT_MS; waited += 10) {
        uint64_t v = 0;
        if (kr_live_view_version(lv, &v) == KR_OK && v == want) return 1;
        sleep_ms(10);
    }
    return 0;
}

static int span_eq(const char *a, size_t a_len, const char *b, size_t b_len) {
    return a_len == b_len && (a_len == 0 || memcmp(a, b, a_len) == 0);
}

/* Whether the id of VIEW's node INDEX is the id of ROUTER's node RINDEX. */
static int same_node(const kr_view *view, uint32_t index, const kr_router *router, uint32_t rindex) {
    const char *a = NULL, *b = NULL;
    size_t a_len = 0, b_len = 0;
    if (kr_view_node_id(view, index, &a, &a_len) != KR_OK) return 0;
    if (kr_router_node_id(router, rindex, &b, &b_len) != KR_OK) return 0;
    return span_eq(a, a_len, b, b_len);
}

static void key_of(unsigned i, char *out, size_t *len) {
    *len = (size_t)snprintf(out, 16, "key:%u", i);
}

/* ---------------------------------------------------------------- the live view */

static void test_publish_and_refusals(void) {
    kr_live_view *lv = NULL;
    uint64_t version = 0, count = 99;
    uint32_t node = 0;
    kr_view *view = NULL;
    CHECK_STATUS(kr_live_view_new(NULL, 0, &lv), KR_OK);
    CHECK_STATUS(kr_live_view_version(lv, &version), KR_NO_VIEW);
    CHECK_STATUS(kr_live_view_route(lv, KEY("k"), &node, &version), KR_NO_VIEW);
    CHECK_STATUS(kr_live_view_load(lv, &view), KR_NO_VIEW);
    CHECK(view == NULL);

    CHECK_STATUS(publish(lv, doc(1, SPEC_A), &version), KR_OK);
    CHECK(version == 1);
    /* Stale, duplicate ids, garbage, a version of 0: each refused, the view stays at 1. */
    CHECK_STATUS(publish(lv, doc(1, SPEC_B), &version), KR_STALE_VERSION);
    CHECK_STATUS(publish(lv, doc(2, "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"a\"}]}"), &version),
                 KR_DUPLICATE_NODE_ID);
    CHECK_STATUS(publish(lv, "{\"version\":3,\"spec\":", &version), KR_INVALID_JSON);
    CHECK_STATUS(publish(lv, doc(0, SPEC_B), &version), KR_INVALID_VIEW);
    CHECK_STATUS(kr_live_view_publish(lv, NULL, 5, &version), KR_NULL_POINTER);
    CHECK_STATUS(kr_live_view_version(lv, &version), KR_OK);
    CHECK(version == 1);
    CHECK_STATUS(kr_live_view_refusals(lv, &count), KR_OK);
    CHECK(count == 4);

    char *json = NULL;
    size_t json_len = 0;
    CHECK_STATUS(kr_live_view_last_refusal_json(lv, &json, &json_len), KR_OK);
    CHECK(json != NULL && strlen(json) == json_len && strstr(json, "\"error\":\"invalid_view\"") != NULL);
    kr_string_free(json);
    CHECK_STATUS(kr_live_view_status_json(lv, &json, &json_len), KR_OK);
    CHECK(json != NULL && strstr(json, "\"version\":1") != NULL && strstr(json, "\"refusals\":4") != NULL);
    kr_string_free(json);

    /* A fingerprint claimed wrongly is refused too. */
    CHECK_STATUS(publish(lv, "{\"version\":9,\"fingerprint\":\"0123456789abcdef\",\"spec\":" SPEC_B "}", &version),
                 KR_FINGERPRINT_MISMATCH);
    CHECK_STATUS(publish(lv, doc(7, SPEC_B), &version), KR_OK);
    CHECK(version == 7);

    /* The fingerprint: the plain view's is its spec's, and its text is 16 lowercase hex digits. */
    kr_router *b = NULL;
    uint64_t fp = 0, router_fp = 1;
    char text[KR_FINGERPRINT_TEXT_LEN], want[32];
    CHECK_STATUS(kr_router_from_json(TXT(SPEC_B), &b), KR_OK);
    CHECK_STATUS(kr_live_view_load(lv, &view), KR_OK);
    CHECK_STATUS(kr_view_fingerprint(view, &fp), KR_OK);
    CHECK_STATUS(kr_router_fingerprint(b, &router_fp), KR_OK);
    CHECK(fp == router_fp);
    CHECK_STATUS(kr_view_fingerprint_text(view, text), KR_OK);
    snprintf(want, sizeof want, "%016llx", (unsigned long long)fp);
    CHECK(strcmp(text, want) == 0);
    CHECK_STATUS(kr_view_fingerprint_text(view, NULL), KR_NULL_POINTER);

    /* Its document reads back, in another live view, to the same view. */
    kr_live_view *other = NULL;
    kr_view *again = NULL;
    uint64_t other_fp = 0;
    CHECK_STATUS(kr_view_document_json(view, &json, &json_len), KR_OK);
    CHECK(strstr(json, want) != NULL);
    CHECK_STATUS(kr_live_view_new(TXT("{\"max_nodes\":16}"), &other), KR_OK);
    CHECK_STATUS(publish(other, json, &version), KR_OK);
    CHECK(version == 7);
    CHECK_STATUS(kr_live_view_load(other, &again), KR_OK);
    CHECK_STATUS(kr_view_fingerprint(again, &other_fp), KR_OK);
    CHECK(other_fp == fp);
    kr_string_free(json);
    kr_view_free(again);
    kr_live_view_free(other);
    CHECK_STATUS(kr_live_view_new(TXT("{\"max_nodes\":"), &other), KR_INVALID_JSON);

    /* A plain view has no rollout. */
    double progress = -1;
    bool rollout = true;
    CHECK_STATUS(kr_view_progress(view, &progress, &rollout), KR_OK);
    CHECK(!rollout && progress == 0.0);
    uint64_t applied = 0;
    CHECK_STATUS(kr_view_applied_unix_ms(view, &applied), KR_OK);
    CHECK(applied > 1600000000000ULL);

    kr_view_free(view);
    kr_router_free(b);
    kr_live_view_free(lv);
    kr_live_view_free(NULL);
    kr_view_free(NULL);
    kr_string_free(NULL);
    CHECK_STATUS(kr_live_view_new(NULL, 0, NULL), KR_NULL_POINTER);
    CHECK_STATUS(kr_view_version(NULL, &version), KR_NULL_POINTER);
}

/* Routes through the live view and through a snapshot equal a plain kr_router's for 1,000
 * keys; a snapshot outlives the swap to a newer view, with its ids and version. */
static void test_routes_and_snapshots(void) {
    kr_live_view *lv = NULL;
    kr_router *a = NULL, *b = NULL;
    uint64_t version = 0;
    CHECK_STATUS(kr_live_view_new(NULL, 0, &lv), KR_OK);
    CHECK_STATUS(kr_router_from_json(TXT(SPEC_A), &a), KR_OK);
    CHECK_STATUS(kr_router_from_json(TXT(SPEC_B), &b), KR_OK);
    CHECK_STATUS(publish(lv, doc(1, SPEC_A), &version), KR_OK);

    kr_view *v1 = NULL;
    CHECK_STATUS(kr_live_view_load(lv, &v1), KR_OK);
    unsigned agree = 0, agree_snapshot = 0;
    for (unsigned i = 0; i < KEYS; i++) {
        char key[16];
        size_t len;
        uint32_t plain = 0, live = UINT32_MAX, snap = UINT32_MAX;
        key_of(i, key, &len);
        kr_route(a, (const uint8_t *)key, len, &plain);
        if (kr_live_view_route(lv, (const uint8_t *)key, len, &live, &version) == KR_OK && version == 1 &&
            same_node(v1, live, a, plain))
            agree++;
        if (kr_view_route(v1, (const uint8_t *)key, len, &snap) == KR_OK && snap == live) agree_snapshot++;
    }
    CHECK(agree == KEYS);
    CHECK(agree_snapshot == KEYS);

    /* Hold an id of view 1, publish view 2: the snapshot still answers as view 1. */
    const char *held = NULL;
    size_t held_len = 0;
    uint32_t count = 0;
    CHECK_STATUS(kr_view_node_id(v1, 2, &held, &held_len), KR_OK);
    CHECK_STATUS(kr_view_node_id(v1, 3, &held, &held_len), KR_NODE_OUT_OF_RANGE);
    CHECK_STATUS(kr_view_node_id(v1, 2, &held, &held_len), KR_OK);
    CHECK_STATUS(publish(lv, doc(2, SPEC_B), &version), KR_OK);
    kr_view *clone = NULL;
    CHECK_STATUS(kr_view_clone(v1, &clone), KR_OK);
    kr_view_free(v1);
    CHECK_SPAN(held, held_len, "c");
    CHECK_STATUS(kr_view_version(clone, &version), KR_OK);
    CHECK(version == 1);
    CHECK_STATUS(kr_view_node_count(clone, &count), KR_OK);
    CHECK(count == 3);

    kr_view *v2 = NULL;
    CHECK_STATUS(kr_live_view_load(lv, &v2), KR_OK);
    CHECK_STATUS(kr_view_node_count(v2, &count), KR_OK);
    CHECK(count == 4);
    agree = 0;
    for (unsigned i = 0; i < KEYS; i++) {
        char key[16];
        size_t len;
        uint32_t plain = 0, live = UINT32_MAX;
        key_of(i, key, &len);
        kr_route(b, (const uint8_t *)key, len, &plain);
        if (kr_live_view_route(lv, (const uint8_t *)key, len, &live, &version) == KR_OK && version == 2 &&
            same_node(v2, live, b, plain))
            agree++;
    }
    CHECK(agree == KEYS);
    kr_view_free(clone);
    kr_view_free(v2);
    kr_router_free(a);
    kr_router_free(b);
    kr_live_view_free(lv);
}

/* A rollout at 0.5 routes as a kr_transition at 0.5 (by id), with the same fallback, and its
 * ends are the owners under A and under B. */
static void test_rollout(void) {
    kr_live_view *lv = NULL;
    kr_router *a = NULL, *b = NULL;
    kr_transition *t = NULL;
    kr_view *view = NULL;
    uint64_t version = 0;
    CHECK_STATUS(kr_live_view_new(NULL, 0, &lv), KR_OK);
    CHECK_STATUS(kr_router_from_json(TXT(SPEC_A), &a), KR_OK);
    CHECK_STATUS(kr_router_from_json(TXT(SPEC_B), &b), KR_OK);
    CHECK_STATUS(kr_transition_new(a, b, 0.5, &t), KR_OK);
    CHECK_STATUS(publish(lv, "{\"version\":3,\"spec\":" SPEC_A ",\"rollout\":{\"to\":" SPEC_B ",\"progress\":0.5}}",
                         &version),
                 KR_OK);
    CHECK_STATUS(kr_live_view_load(lv, &view), KR_OK);
    double progress = 0;
    bool rollout = false;
    CHECK_STATUS(kr_view_progress(view, &progress, &rollout), KR_OK);
    CHECK(rollout && progress == 0.5);

    unsigned agree = 0, ends_agree = 0, moved = 0;
    for (unsigned i = 0; i < KEYS; i++) {
        char key[16];
        size_t len;
        kr_placement pv, pt;
        kr_ends ends;
        uint32_t in_a = 0, in_b = 0;
        const char *id = NULL, *tid = NULL;
        size_t id_len = 0, tid_len = 0;
        key_of(i, key, &len);
        if (kr_view_route_with_fallback(view, (const uint8_t *)key, len, &pv) != KR_OK) continue;
        if (kr_transition_route_with_fallback(t, (const uint8_t *)key, len, &pt) != KR_OK) continue;
        kr_view_node_id(view, pv.owner, &id, &id_len);
        kr_transition_node_id(t, pt.owner, &tid, &tid_len);
        int same = span_eq(id, id_len, tid, tid_len) && pv.has_previous == pt.has_previous;
        if (same && pv.has_previous) {
            kr_view_node_id(view, pv.previous, &id, &id_len);
            kr_transition_node_id(t, pt.previous, &tid, &tid_len);
            same = span_eq(id, id_len, tid, tid_len);
            moved++;
        }
        agree += same;
        kr_route(a, (const uint8_t *)key, len, &in_a);
        kr_route(b, (const uint8_t *)key, len, &in_b);
        if (kr_view_ends(view, (const uint8_t *)key, len, &ends) == KR_OK && ends.has_to) {
            kr_router_node_id(a, in_a, &id, &id_len);
            kr_router_node_id(b, in_b, &tid, &tid_len);
            ends_agree += span_eq(ends.from_id, ends.from_id_len, id, id_len) &&
                          span_eq(ends.to_id, ends.to_id_len, tid, tid_len);
        }
    }
    CHECK(agree == KEYS);
    CHECK(ends_agree == KEYS);
    CHECK(moved > 0 && moved < KEYS / 4); /* a fourth node takes about a quarter, half cut over */
    printf("rollout at 0.5: %u of %u keys cut over with a fallback\n", moved, KEYS);
    CHECK_STATUS(kr_view_ends(view, KEY("k"), NULL), KR_NULL_POINTER);
    kr_view_free(view);
    kr_transition_free(t);
    kr_router_free(a);
    kr_router_free(b);
    kr_live_view_free(lv);
}

/* ---------------------------------------------------------------- a reader racing publishes */

static kr_live_view *race_view;
static uint64_t race_fp[4];
static volatile int race_done;

/* The spec of round N: 3 + N % 4 nodes named "vN%4-i". */
static void race_spec(unsigned n, char *out, size_t size) {
    size_t at = (size_t)snprintf(out, size, "{\"algorithm\":\"ring\",\"nodes\":[");
    for (unsigned i = 0; i < 3 + n % 4; i++)
        at += (size_t)snprintf(out + at, size - at, "%s{\"id\":\"v%u-%u\"}", i ? "," : "", n % 4, i);
    snprintf(out + at, size - at, "]}");
}

static void *race_reader(void *arg) {
    unsigned long *bad = arg;
    uint64_t last = 0;
    unsigned long rounds = 0;
    while (!race_done || rounds < 100) {
        kr_view *view = NULL;
        uint64_t fp = 0, version = 0;
        if (kr_live_view_load(race_view, &view) != KR_OK) {
            (*bad)++;
            break;
        }
        kr_view_fingerprint(view, &fp);
        kr_view_version(view, &version);
        int which = -1;
        for (int i = 0; i < 4; i++)
            if (race_fp[i] == fp) which = i;
        if (which < 0 || version < last) (*bad)++;
        last = version;
        for (unsigned k = 0; k < 50; k++) {
            uint32_t node = 0;
            const char *id = NULL;
            size_t len = 0;
            char prefix[8];
            int n = snprintf(prefix, sizeof prefix, "v%d-", which);
            if (kr_view_route(view, (const uint8_t *)&k, sizeof k, &node) != KR_OK ||
                kr_view_node_id(view, node, &id, &len) != KR_OK || len < (size_t)n || memcmp(id, prefix, (size_t)n) != 0)
                (*bad)++;
        }
        kr_view_free(view);
        /* The one-call path: the version it names must never go back either. */
        uint32_t node = 0;
        if (kr_live_view_route(race_view, KEY("k"), &node, &version) != KR_OK || version < last) (*bad)++;
        rounds++;
    }
    return NULL;
}

static void test_reader_racing_publishes(void) {
    char spec[512];
    uint64_t version = 0;
    unsigned long bad = 0;
    CHECK_STATUS(kr_live_view_new(NULL, 0, &race_view), KR_OK);
    for (unsigned n = 0; n < 4; n++) {
        kr_router *r = NULL;
        race_spec(n, spec, sizeof spec);
        CHECK_STATUS(kr_router_from_json(spec, strlen(spec), &r), KR_OK);
        kr_router_fingerprint(r, &race_fp[n]);
        kr_router_free(r);
    }
    race_spec(0, spec, sizeof spec);
    CHECK_STATUS(publish(race_view, doc(1, spec), &version), KR_OK);
    pthread_t reader;
    CHECK(pthread_create(&reader, NULL, race_reader, &bad) == 0);
    unsigned published = 0;
    for (unsigned v = 2; v < 200; v++) {
        race_spec(v, spec, sizeof spec);
        published += publish(race_view, doc(v, spec), &version) == KR_OK;
    }
    race_done = 1;
    pthread_join(reader, NULL);
    CHECK(published == 198);
    CHECK(bad == 0);
    printf("threads: a reader routed through %u publishes with %lu inconsistent answers\n", published, bad);
    kr_live_view_free(race_view);
}

/* ---------------------------------------------------------------- watches */

/* What a watch's callback saw (under `events_lock`: it runs on the watch's thread). */
struct events {
    pthread_mutex_t lock;
    unsigned applied, refused;
    uint64_t last_applied, last_refused_code;
    kr_watch *self;       /* the watch, to try stopping it from its own callback */
    kr_status self_stop;  /* what that attempt returned */
    kr_view *kept;        /* the first view applied, cloned past the call */
};

static void on_event(void *user, const kr_view_event *event) {
    struct events *e = user;
    pthread_mutex_lock(&e->lock);
    if (event->kind == KR_VIEW_EVENT_KIND_APPLIED) {
        e->applied++;
        e->last_applied = event->version;
        if (!e->kept) kr_view_clone(event->view, &e->kept);
    } else {
        e->refused++;
        e->last_refused_code = event->code;
    }
    if (e->self) e->self_stop = kr_watch_stop(e->self);
    pthread_mutex_unlock(&e->lock);
}

static unsigned count_of(struct events *e, int applied) {
    pthread_mutex_lock(&e->lock);
    unsigned n = applied ? e->applied : e->refused;
    pthread_mutex_unlock(&e->lock);
    return n;
}

static int wait_count(struct events *e, int applied, unsigned want) {
    for (long waited = 0; waited < WAIT_MS; waited += 10) {
        if (count_of(e, applied) >= want) return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Writes TEXT to PATH atomically: a temporary file beside it, then rename. */
static int write_atomic(const char *path, const char *text) {
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return 0;
    int ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    return ok && rename(tmp, path) == 0;
}

/* Fetches the fleet status JSON of URL (NULL on failure; free with kr_string_free). */
static char *status_of(const char *url) {
    char *json = NULL;
    size_t len = 0;
    kr_status s = kr_fleet_status_json(url, strlen(url), 30.0, NULL, 0, &json, &len);
    if (s != KR_OK) {
        fprintf(stderr, "fleet status of %s: %s\n", url, kr_last_error_message());
        return NULL;
    }
    return json;
}

/* Waits until the fleet status of URL holds NEEDLE (or, with absent, no longer does). */
static int wait_status(const char *url, const char *needle, int absent) {
    for (long waited = 0; waited < WAIT_MS; waited += 50) {
        char *json = status_of(url);
        int found = json && strstr(json, needle) != NULL;
        kr_string_free(json);
        if (json && found != absent) return 1;
        sleep_ms(50);
    }
    return 0;
}

static void test_file_watch(void) {
    char dir[] = "/tmp/keyroute-views-XXXXXX", path[256], url[300];
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/view.json", dir);
    snprintf(url, sizeof url, "file://%s", path);
    CHECK(write_atomic(path, doc(1, SPEC_A)));

    kr_live_view *lv = NULL;
    kr_watch *watch = NULL;
    struct events e;
    memset(&e, 0, sizeof e);
    pthread_mutex_init(&e.lock, NULL);
    kr_watch_options options;
    memset(&options, 0, sizeof options);
    options.poll_interval_seconds = 0.05;
    options.census = KR_CENSUS_ON;
    options.instance = "c-file-1";
    options.instance_len = strlen(options.instance);
    options.callback = on_event;
    options.user = &e;
    CHECK_STATUS(kr_live_view_new(NULL, 0, &lv), KR_OK);
    CHECK_STATUS(kr_watch_start(TXT("ftp://x/y"), lv, &options, &watch), KR_UNKNOWN_SOURCE);
    options.census_ttl_seconds = 0.5;
    CHECK_STATUS(kr_watch_start(url, strlen(url), lv, &options, &watch), KR_INVALID_PARAMETER);
    options.census_ttl_seconds = 0;
    options.census = 7;
    CHECK_STATUS(kr_watch_start(url, strlen(url), lv, &options, &watch), KR_INVALID_PARAMETER);
    options.census = KR_CENSUS_ON;
    /* A surface name is a-z, 0-9, '_' and '-'; none (NULL) is `c`. */
    options.surface = "C++";
    options.surface_len = 3;
    CHECK_STATUS(kr_watch_start(url, strlen(url), lv, &options, &watch), KR_INVALID_PARAMETER);
    options.surface = NULL;
    options.surface_len = 0;
    CHECK(watch == NULL);
    CHECK_STATUS(kr_watch_start(url, strlen(url), lv, &options, &watch), KR_OK);
    CHECK(wait_version(lv, 1));
    CHECK(wait_count(&e, 1, 1));
    const char *id = NULL;
    size_t id_len = 0;
    CHECK_STATUS(kr_watch_instance(watch, &id, &id_len), KR_OK);
    CHECK_SPAN(id, id_len, "c-file-1");

    /* An atomic rename applies; a broken document is refused and the view stays. */
    CHECK(write_atomic(path, doc(2, SPEC_B)));
    CHECK(wait_version(lv, 2));
    CHECK(write_atomic(path, "{\"version\":3,\"spec\":{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"a\"}]}}"));
    CHECK(wait_count(&e, 0, 1));
    pthread_mutex_lock(&e.lock);
    CHECK(e.last_refused_code == KR_DUPLICATE_NODE_ID);
    CHECK(e.applied == 2 && e.last_applied == 2);
    pthread_mutex_unlock(&e.lock);
    uint64_t version = 0;
    CHECK_STATUS(kr_live_view_version(lv, &version), KR_OK);
    CHECK(version == 2);

    /* The census on the file source: the instance, with its refusal; publish (a compare and
     * swap) a good version 4 over the broken one... the file holds version 3, so expecting 2 is
     * a conflict, expecting 3 applies. */
    CHECK(wait_status(url, "\"instance\":\"c-file-1\"", 0));
    CHECK(wait_status(url, "\"surface\":\"c\"", 0));
    /* The entry is rewritten by the census member's own thread after the event: wait for it. */
    CHECK(wait_status(url, "\"standing\":\"refused\"", 0));
    CHECK_STATUS(publish_to(url, 4, SPEC_A, 2, &version),
                 KR_VERSION_CONFLICT);
    CHECK_STATUS(publish_to(url, 4, SPEC_A, 3, &version),
                 KR_OK);
    CHECK(version == 4);
    CHECK(wait_version(lv, 4));
    CHECK(wait_status(url, "\"standing\":\"sync\"", 0));

    /* The callback cannot stop its own watch; the held view outlived the calls. */
    pthread_mutex_lock(&e.lock);
    e.self = watch;
    e.self_stop = KR_OK;
    pthread_mutex_unlock(&e.lock);
    CHECK(write_atomic(path, doc(5, SPEC_B)));
    CHECK(wait_version(lv, 5));
    CHECK(wait_count(&e, 1, 4));
    pthread_mutex_lock(&e.lock);
    CHECK(e.self_stop == KR_INVALID_PARAMETER);
    e.self = NULL;
    pthread_mutex_unlock(&e.lock);
    CHECK_STATUS(kr_view_version(e.kept, &version), KR_OK);
    CHECK(version == 1);

    /* Stop: the watch ends, leaves the census, and the live view keeps routing with view 5. */
    bool running = false;
    CHECK_STATUS(kr_watch_running(watch, &running), KR_OK);
    CHECK(running);
    CHECK_STATUS(kr_watch_stop(watch), KR_OK);
    CHECK_STATUS(kr_watch_stop(watch), KR_OK);
    CHECK_STATUS(kr_watch_running(watch, &running), KR_OK);
    CHECK(!running);
    CHECK(wait_status(url, "\"instance\":\"c-file-1\"", 1));
    unsigned applied_at_stop = count_of(&e, 1);
    CHECK(write_atomic(path, doc(6, SPEC_A)));
    uint32_t node = 0;
    CHECK_STATUS(kr_live_view_route(lv, KEY("k"), &node, &version), KR_OK);
    CHECK(version == 5);
    CHECK(count_of(&e, 1) == applied_at_stop);
    kr_watch_free(watch);
    kr_watch_free(NULL);

    /* Polling only, no callback, no census: the view follows the file. */
    memset(&options, 0, sizeof options);
    options.poll_only = true;
    options.poll_interval_seconds = 0.02;
    CHECK_STATUS(kr_watch_start(url, strlen(url), lv, &options, &watch), KR_OK);
    CHECK(wait_version(lv, 6));
    CHECK_STATUS(kr_watch_instance(watch, &id, &id_len), KR_OK);
    CHECK(id == NULL && id_len == 0);
    kr_live_view_free(lv); /* the watch holds its own reference */
    kr_watch_free(watch);

    kr_view_free(e.kept);
    pthread_mutex_destroy(&e.lock);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* ---------------------------------------------------------------- etcd */

struct racer {
    const char *url;
    const char *document;
    kr_status status;
};

static pthread_barrier_t race_start;

static void *publisher(void *arg) {
    struct racer *r = arg;
    uint64_t version = 0;
    pthread_barrier_wait(&race_start);
    r->status = kr_publish_view(r->url, strlen(r->url), (const uint8_t *)r->document, strlen(r->document), 1, NULL, 0,
                                &version);
    return NULL;
}

static void test_etcd(const char *endpoint) {
    char url[300];
    snprintf(url, sizeof url, "etcd://%s/keyroute/c-test-%ld", endpoint, (long)getpid());
    uint64_t version = 0;
    CHECK_STATUS(publish_to(url, 1, SPEC_A, 0, &version),
                 KR_OK);
    CHECK(version == 1);

    /* Two watches (in the census by default for etcd), each counting its callbacks. */
    enum { WATCHES = 2 };
    kr_live_view *lv[WATCHES];
    kr_watch *watch[WATCHES];
    struct events e[WATCHES];
    for (int i = 0; i < WATCHES; i++) {
        char instance[64];
        kr_watch_options options;
        memset(&options, 0, sizeof options);
        memset(&e[i], 0, sizeof e[i]);
        pthread_mutex_init(&e[i].lock, NULL);
        snprintf(instance, sizeof instance, "c-etcd-%ld-%d", (long)getpid(), i);
        options.instance = instance; /* copied by kr_watch_start */
        options.instance_len = strlen(instance);
        options.callback = on_event;
        options.user = &e[i];
        lv[i] = NULL;
        watch[i] = NULL;
        CHECK_STATUS(kr_live_view_new(NULL, 0, &lv[i]), KR_OK);
        CHECK_STATUS(kr_watch_start(url, strlen(url), lv[i], &options, &watch[i]), KR_OK);
    }
    for (int i = 0; i < WATCHES; i++) CHECK(wait_version(lv[i], 1));

    /* Two publishers expect version 1 at once: exactly one wins, the other is told. */
    char doc_b[512], doc_a[512];
    snprintf(doc_b, sizeof doc_b, "{\"version\":2,\"spec\":%s}", SPEC_B);
    snprintf(doc_a, sizeof doc_a, "{\"version\":2,\"spec\":%s}", SPEC_A);
    struct racer racers[2] = {{url, doc_b, 0}, {url, doc_a, 0}};
    pthread_t threads[2];
    pthread_barrier_init(&race_start, NULL, 2);
    for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, publisher, &racers[i]);
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&race_start);
    int wins = (racers[0].status == KR_OK) + (racers[1].status == KR_OK);
    int conflicts = (racers[0].status == KR_VERSION_CONFLICT) + (racers[1].status == KR_VERSION_CONFLICT);
    CHECK(wins == 1 && conflicts == 1);
    printf("etcd: two publishers expecting version 1: %d won, %d got version_conflict\n", wins, conflicts);

    /* A stale publish and a hostile one are refused by the source; the watches apply v2. */
    CHECK_STATUS(publish_to(url, 2, SPEC_A, 2, &version),
                 KR_STALE_VERSION);
    CHECK_STATUS(kr_publish_view(url, strlen(url), KEY("{\"version\":3}"), 2, NULL, 0, &version), KR_INVALID_VIEW);
    for (int i = 0; i < WATCHES; i++) CHECK(wait_version(lv[i], 2));
    CHECK_STATUS(publish_to(url, 3, SPEC_B, 2, &version),
                 KR_OK);
    for (int i = 0; i < WATCHES; i++) {
        CHECK(wait_version(lv[i], 3));
        CHECK(wait_count(&e[i], 1, 3));
        pthread_mutex_lock(&e[i].lock);
        CHECK(e[i].applied == 3 && e[i].refused == 0 && e[i].last_applied == 3);
        pthread_mutex_unlock(&e[i].lock);
    }

    /* The census: both in sync at version 3; after a stop, one instance fewer. */
    char needle[96];
    snprintf(needle, sizeof needle, "\"instance\":\"c-etcd-%ld-1\"", (long)getpid());
    CHECK(wait_status(url, needle, 0));
    char *json = NULL;
    int in_sync = 0;
    for (long waited = 0; waited < WAIT_MS && in_sync < WATCHES; waited += 50) {
        kr_string_free(json);
        json = status_of(url);
        in_sync = 0;
        for (const char *at = json; at && (at = strstr(at, "\"standing\":\"sync\"")) != NULL; at++) in_sync++;
        if (in_sync < WATCHES) sleep_ms(50);
    }
    CHECK(json && strstr(json, "\"version\":3") != NULL);
    CHECK(in_sync >= WATCHES);
    printf("etcd: fleet status with %d instances in sync\n", in_sync);
    kr_string_free(json);
    CHECK_STATUS(kr_watch_stop(watch[1]), KR_OK);
    CHECK(wait_status(url, needle, 1));

    for (int i = 0; i < WATCHES; i++) {
        kr_watch_free(watch[i]);
        kr_live_view_free(lv[i]);
        kr_view_free(e[i].kept);
        pthread_mutex_destroy(&e[i].lock);
    }
    size_t json_len = 0;
    CHECK_STATUS(kr_fleet_status_json(url, strlen(url), -1.0, NULL, 0, &json, &json_len), KR_INVALID_PARAMETER);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s ETCD_HOST:PORT (ffi/test.sh starts etcd and passes it)\n", argv[0]);
        return 2;
    }
    test_publish_and_refusals();
    test_routes_and_snapshots();
    test_rollout();
    test_reader_racing_publishes();
    test_file_watch();
    test_etcd(argv[1]);
    return check_finish();
}
