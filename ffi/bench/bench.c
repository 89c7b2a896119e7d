/* The C side of ffi/bench.sh: kr_route and kr_route_batch on ring-v1 with 1000 nodes x 160
 * points, over 1,000,000 keys "user:NNNNNN" (NNNNNN = 611953*i + 12345 mod 10^6, the core's
 * criterion key set): the median and the fastest of several full passes, in ns per key.
 * kr_route reads the keys from one contiguous array (as the Rust side does); kr_route_batch
 * gets them as kr_key spans into that array, BATCH keys per call. bench/bench_core.rs
 * measures the Rust core on the same spec and keys the same way; bench.sh prints the ratios.
 *
 * Usage: bench [runs]   (default 7) */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keyroute.h"

enum { NODES = 1000, KEYS = 1000000, KEY_LEN = 11, BATCH = 1024, MAX_RUNS = 101 };

static char key_bytes[KEYS][KEY_LEN];
static kr_key keys[KEYS];
static uint32_t out[BATCH];
static volatile uint64_t sink;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *what, kr_status s) {
    fprintf(stderr, "%s failed: %u %s\n", what, (unsigned)s, kr_last_error_message());
    exit(1);
}

/* One pass of kr_route over every key; returns ns per key. */
static double route_pass(const kr_router *r) {
    uint64_t s = 0;
    uint32_t node;
    size_t i;
    double t = now_ns();
    for (i = 0; i < KEYS; i++) {
        kr_status st = kr_route(r, (const uint8_t *)key_bytes[i], KEY_LEN, &node);
        if (st != KR_OK) die("kr_route", st);
        s += node;
    }
    t = now_ns() - t;
    sink += s;
    return t / KEYS;
}

/* One pass of kr_route_batch over every key, BATCH keys per call; returns ns per key. */
static double batch_pass(const kr_router *r) {
    uint64_t s = 0;
    size_t start;
    double t = now_ns();
    for (start = 0; start < KEYS; start += BATCH) {
        size_t n = KEYS - start < BATCH ? KEYS - start : BATCH;
        kr_status st = kr_route_batch(r, keys + start, n, out, BATCH);
        if (st != KR_OK) die("kr_route_batch", st);
        s += out[0];
    }
    t = now_ns() - t;
    sink += s;
    return t / KEYS;
}

/* The same spec as a view (version 1) in a live view, for the live-view passes. */
static kr_live_view *live;

/* One pass of kr_live_view_route (the one-call path: index and version) over every key. */
static double live_pass(const kr_router *r) {
    uint64_t s = 0, version = 0;
    uint32_t node;
    size_t i;
    double t = now_ns();
    (void)r;
    for (i = 0; i < KEYS; i++) {
        kr_status st = kr_live_view_route(live, (const uint8_t *)key_bytes[i], KEY_LEN, &node, &version);
        if (st != KR_OK) die("kr_live_view_route", st);
        s += node + version;
    }
    t = now_ns() - t;
    sink += s;
    return t / KEYS;
}

/* One pass of kr_view_route over every key, through one snapshot loaded for the pass. */
static double snapshot_pass(const kr_router *r) {
    uint64_t s = 0;
    uint32_t node;
    size_t i;
    kr_view *view = NULL;
    double t = now_ns();
    kr_status st = kr_live_view_load(live, &view);
    (void)r;
    if (st != KR_OK) die("kr_live_view_load", st);
    for (i = 0; i < KEYS; i++) {
        st = kr_view_route(view, (const uint8_t *)key_bytes[i], KEY_LEN, &node);
        if (st != KR_OK) die("kr_view_route", st);
        s += node;
    }
    kr_view_free(view);
    t = now_ns() - t;
    sink += s;
    return t / KEYS;
}

/* Prints "c NAME MEDIAN MIN" over `runs` passes. */
static void measure(const char *name, double (*pass)(const kr_router *), const kr_router *r, int runs) {
    double times[MAX_RUNS];
    int i;
    for (i = 0; i < runs; i++) times[i] = pass(r);
    qsort(times, (size_t)runs, sizeof times[0], compare);
    printf("c %s %.2f %.2f\n", name, times[runs / 2], times[0]);
}

/* Prints "c NAME MEDIAN MIN" of the ratios pass_b / pass_a, the two timed in alternate passes:
 * a ratio a busy machine disturbs less than one of two medians taken apart. */
static void measure_paired(const char *name, double (*pass_a)(const kr_router *), double (*pass_b)(const kr_router *),
                           const kr_router *r, int runs) {
    double ratios[MAX_RUNS];
    int i;
    for (i = 0; i < runs; i++) {
        double a = pass_a(r);
        ratios[i] = pass_b(r) / a;
    }
    qsort(ratios, (size_t)runs, sizeof ratios[0], compare);
    printf("c %s %.3f %.3f\n", name, ratios[runs / 2], ratios[0]);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    size_t cap = 64 + (size_t)NODES * 24, len = 0, i;
    char *spec = malloc(cap);
    kr_router *r = NULL;
    kr_status st;

    if (runs < 1 || runs > MAX_RUNS || spec == NULL) return 2;
    /* The spec bench_core.rs builds: cache-0 ... cache-999, ring-v1, 160 points per weight. */
    len += (size_t)sprintf(spec + len, "{\"algorithm\":\"ring\",\"params\":{\"points_per_weight\":160},\"nodes\":[");
    for (i = 0; i < NODES; i++) len += (size_t)sprintf(spec + len, "%s{\"id\":\"cache-%lu\"}", i ? "," : "", (unsigned long)i);
    len += (size_t)sprintf(spec + len, "]}");
    if ((st = kr_router_from_json(spec, len, &r)) != KR_OK) die("kr_router_from_json", st);
    {
        char *doc = malloc(len + 32);
        uint64_t version = 0;
        int n;
        if (doc == NULL) return 2;
        n = sprintf(doc, "{\"version\":1,\"spec\":%.*s}", (int)len, spec);
        if ((st = kr_live_view_new(NULL, 0, &live)) != KR_OK) die("kr_live_view_new", st);
        if ((st = kr_live_view_publish(live, (const uint8_t *)doc, (size_t)n, &version)) != KR_OK)
            die("kr_live_view_publish", st);
        free(doc);
    }
    free(spec);

    for (i = 0; i < KEYS; i++) {
        uint64_t v = ((uint64_t)i * 611953u + 12345u) % KEYS;
        int d;
        memcpy(key_bytes[i], "user:000000", KEY_LEN);
        for (d = KEY_LEN - 1; d >= 5; d--) {
            key_bytes[i][d] = (char)('0' + v % 10);
            v /= 10;
        }
        keys[i].ptr = (const uint8_t *)key_bytes[i];
        keys[i].len = KEY_LEN;
    }

    route_pass(r); /* warm up: page in the table and the keys */
    measure("kr_route", route_pass, r, runs);
    measure("kr_route_batch", batch_pass, r, runs);
    measure("kr_live_view_route", live_pass, r, runs);
    measure("kr_view_route", snapshot_pass, r, runs);
    measure_paired("live/route", route_pass, live_pass, r, runs);
    kr_live_view_free(live);
    kr_router_free(r);
    return sink == 42 ? 3 : 0;
}
