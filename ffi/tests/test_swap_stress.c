/* Swap stress: one kr_shared_router, a writer storing prebuilt routers into it as fast as it can
 * (100,000 swaps by default), and 4 reader threads loading and routing continuously.
 *
 * The writer follows a fixed plan of stores (plan[j]: the view stored by store j; store 0 is the
 * initial router), and publishes how many stores it has completed after each one. A reader reads
 * that count before and after each kr_shared_router_load, so the snapshot it gets must be the
 * view of one of the stores in between (or of the one in progress): a view that was current
 * during the call. The snapshot is identified by its version and checked by its fingerprint,
 * and every route through it (8 keys by kr_route each pass, all 64 by kr_route_batch every 8th)
 * must be that view's precomputed answer. A reader also keeps its previous snapshot for one more pass and routes through it:
 * a replaced router stays whole while a handle holds it.
 *
 * Phase 1 cycles through 4 views (versions 1-4: ring, ring + a node, maglev, jump) with no
 * pause. Phase 2 stores 8 more views in increasing version order (5-12), each many times in a
 * row, waiting at each new version until every reader has seen it; there a reader must never
 * see a version lower than one it has seen (monotone), nor any phase-1 view.
 *
 * Leaks: ffi/test.sh runs this under AddressSanitizer (LeakSanitizer) and under valgrind (with
 * fewer swaps, as an argument). Natively it also reads VmRSS at the start, after a warm-up (a
 * tenth of the swaps) and at the end, and fails if the end exceeds the warm-up by more than
 * RSS_BOUND_KIB (skipped under AddressSanitizer, whose quarantine holds freed memory, and with
 * --no-rss-check, for valgrind, whose /proc figures are its own).
 *
 * Usage: test_swap_stress [SWAPS] [--no-rss-check]   (SWAPS >= 100, default 100000) */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

enum { READERS = 4, VIEWS = 12, CYCLED = 4, KEYS = 64, KEYS_PER_PASS = 8, RSS_BOUND_KIB = 2048 };

static kr_router *views[VIEWS];          /* view i has version i + 1 */
static uint64_t fingerprints[VIEWS];
static uint32_t answers[VIEWS][KEYS];
static char key_text[KEYS][24];
static kr_key keys[KEYS];

static kr_shared_router *shared;
static unsigned char *plan;      /* plan[j]: the view stored by store j (0 .. total) */
static long total;               /* stores after the initial one */
static long stores_done;         /* stores completed (atomic) */
static int writer_done;          /* (atomic) */
static long reader_min_version[READERS]; /* the lowest version each reader now accepts (atomic) */

struct reader {
    int id;
    unsigned long loads, routes, torn, stale, regressed, errors, kept_checks;
    unsigned long seen[VIEWS];
    pthread_t thread;
};

static long load_long(const long *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long vm_rss_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            v = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* The spec of view i (version i + 1): different algorithms and node sets. */
static int view_spec(int i, char *out, size_t out_len) {
    static const char *const cycled[CYCLED] = {
        "{\"algorithm\":\"ring\",\"version\":1,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}",
        "{\"algorithm\":\"ring\",\"version\":2,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}",
        "{\"algorithm\":\"maglev\",\"version\":3,\"params\":{\"table_size\":1021},"
        "\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"},{\"id\":\"e\"}]}",
        "{\"algorithm\":\"jump\",\"version\":4,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"},"
        "{\"id\":\"e\"},{\"id\":\"f\"}]}",
    };
    size_t used;
    int n;
    if (i < CYCLED) return snprintf(out, out_len, "%s", cycled[i]) < (int)out_len;
    /* Versions 5-12: rings (odd) and rendezvous (even) over 3 + (i - CYCLED) nodes. */
    n = snprintf(out, out_len, "{\"algorithm\":\"%s\",\"version\":%d,\"nodes\":[", i % 2 ? "ring" : "rendezvous", i + 1);
    if (n < 0 || (size_t)n >= out_len) return 0;
    used = (size_t)n;
    for (n = 0; n < 3 + (i - CYCLED); n++) {
        int w = snprintf(out + used, out_len - used, "%s{\"id\":\"node-%d\"}", n ? "," : "", n);
        if (w < 0 || (size_t)w >= out_len - used) return 0;
        used += (size_t)w;
    }
    return snprintf(out + used, out_len - used, "]}") < (int)(out_len - used);
}

/* Whether view `v` is stored by some store j with from <= j <= to (clamped to the plan). */
static int planned_between(long from, long to, int v) {
    long j;
    if (from < 0) from = 0;
    if (to > total) to = total;
    for (j = from; j <= to; j++) {
        if (plan[j] == v) return 1;
    }
    return 0;
}

/* One pass: load a snapshot, identify it, check it was current, route every key through it. */
static void reader_pass(struct reader *r, kr_router **kept, int *kept_view, long *max_version) {
    kr_router *snap = NULL;
    uint64_t version = 0, fp = 0;
    uint32_t batch[KEYS];
    long before, after;
    int v, k;

    before = load_long(&stores_done);
    if (kr_shared_router_load(shared, &snap) != KR_OK) {
        r->errors++;
        return;
    }
    after = load_long(&stores_done);
    r->loads++;
    if (kr_router_version(snap, &version) != KR_OK || kr_router_fingerprint(snap, &fp) != KR_OK || version < 1 ||
        version > VIEWS || fp != fingerprints[version - 1]) {
        r->torn++;
        kr_router_free(snap);
        return;
    }
    v = (int)version - 1;
    r->seen[v]++;
    /* Current during the call: stored by a store completed by then and not yet replaced when
     * the call began (store `before` at the latest), or by the store in progress. */
    if (!planned_between(before, after + 1, v)) r->stale++;
    /* Monotone once the versions increase (phase 2 comes after every phase-1 store). */
    if ((long)version < *max_version && *max_version > CYCLED) r->regressed++;
    if ((long)version > *max_version) *max_version = (long)version;
    __atomic_store_n(&reader_min_version[r->id], *max_version, __ATOMIC_RELEASE);

    /* A few keys a pass (so that loads are frequent), every key by batch every 8th pass. */
    for (k = 0; k < KEYS_PER_PASS; k++) {
        uint32_t node = UINT32_MAX;
        int key = (int)((r->loads * KEYS_PER_PASS + (unsigned long)k) % KEYS);
        if (kr_route(snap, keys[key].ptr, keys[key].len, &node) != KR_OK) r->errors++;
        else if (node != answers[v][key]) r->torn++;
    }
    r->routes += KEYS_PER_PASS;
    if (r->loads % 8 == 0) {
        if (kr_route_batch(snap, keys, KEYS, batch, KEYS) != KR_OK) r->errors++;
        else if (memcmp(batch, answers[v], sizeof batch) != 0) r->torn++;
        r->routes += KEYS;
    }

    /* The previous snapshot, replaced many times over since, still routes as its view. */
    if (*kept != NULL) {
        uint32_t node = UINT32_MAX;
        if (kr_route(*kept, keys[0].ptr, keys[0].len, &node) != KR_OK || node != answers[*kept_view][0]) r->torn++;
        r->kept_checks++;
        r->routes++;
        kr_router_free(*kept);
    }
    *kept = snap;
    *kept_view = v;
}

static void *reader_main(void *arg) {
    struct reader *r = arg;
    kr_router *kept = NULL;
    int kept_view = 0;
    long max_version = 0;
    while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE)) reader_pass(r, &kept, &kept_view, &max_version);
    reader_pass(r, &kept, &kept_view, &max_version); /* after the last store */
    kr_router_free(kept);
    return NULL;
}

/* Waits until every reader has seen version `version` or a later one. */
static void wait_for_readers(long version) {
    int i;
    for (i = 0; i < READERS; i++) {
        while (__atomic_load_n(&reader_min_version[i], __ATOMIC_ACQUIRE) < version) sched_yield();
    }
}

int main(int argc, char **argv) {
    struct reader readers[READERS];
    long swaps = 100000, j, phase1, rss_start, rss_warm = -1, rss_end;
    int rss_check = !UNDER_ASAN, i, k;
    unsigned long loads = 0, routes = 0, kept_checks = 0, torn = 0, stale = 0, regressed = 0, errors = 0;
    double t0, t1;
    char spec[1024];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-rss-check") == 0) rss_check = 0;
        else swaps = strtol(argv[i], NULL, 10);
    }
    if (swaps < 100) swaps = 100;

    /* The views, built once; their answers for every key. */
    for (k = 0; k < KEYS; k++) {
        keys[k].len = (size_t)snprintf(key_text[k], sizeof key_text[k], "session:%d", k * 7919);
        keys[k].ptr = (const uint8_t *)key_text[k];
    }
    for (i = 0; i < VIEWS; i++) {
        uint64_t version = 0;
        CHECK(view_spec(i, spec, sizeof spec));
        CHECK_STATUS(kr_router_from_json(spec, strlen(spec), &views[i]), KR_OK);
        if (views[i] == NULL) return check_finish();
        CHECK_STATUS(kr_router_version(views[i], &version), KR_OK);
        CHECK(version == (uint64_t)i + 1);
        CHECK_STATUS(kr_router_fingerprint(views[i], &fingerprints[i]), KR_OK);
        for (k = 0; k < KEYS; k++) CHECK_STATUS(kr_route(views[i], keys[k].ptr, keys[k].len, &answers[i][k]), KR_OK);
    }
    for (i = 0; i < VIEWS; i++) {
        int other;
        for (other = 0; other < i; other++) {
            /* Distinct views, each distinguishable from the previous one by some answer. */
            CHECK(fingerprints[i] != fingerprints[other]);
        }
        if (i > 0) CHECK(memcmp(answers[i], answers[i - 1], sizeof answers[i]) != 0);
    }

    /* The plan: store 0 (the initial router) is view 0; phase 1 cycles through the first
     * CYCLED views; phase 2 stores the others in version order, an even share each. */
    total = swaps;
    phase1 = swaps / 2;
    plan = malloc((size_t)total + 1);
    if (plan == NULL) return 1;
    plan[0] = 0;
    for (j = 1; j <= phase1; j++) plan[j] = (unsigned char)(j % CYCLED);
    for (j = phase1 + 1; j <= total; j++) {
        plan[j] = (unsigned char)(CYCLED + (j - phase1 - 1) * (VIEWS - CYCLED) / (total - phase1));
    }

    CHECK_STATUS(kr_shared_router_new(views[0], &shared), KR_OK);
    rss_start = vm_rss_kib();
    memset(readers, 0, sizeof readers);
    t0 = now();
    for (i = 0; i < READERS; i++) {
        readers[i].id = i;
        CHECK(pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]) == 0);
    }
    wait_for_readers(1); /* every reader is routing before the first swap */
    for (j = 1; j <= total; j++) {
        if (kr_shared_router_store(shared, views[plan[j]]) != KR_OK) errors++;
        __atomic_store_n(&stores_done, j, __ATOMIC_RELEASE);
        if (plan[j] != plan[j - 1] && plan[j] >= CYCLED) wait_for_readers((long)plan[j] + 1);
        if (j == total / 10) rss_warm = vm_rss_kib();
    }
    __atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
    t1 = now();
    for (i = 0; i < READERS; i++) CHECK(pthread_join(readers[i].thread, NULL) == 0);
    rss_end = vm_rss_kib();

    for (i = 0; i < READERS; i++) {
        struct reader *r = &readers[i];
        int phase1_views = 0;
        loads += r->loads;
        routes += r->routes;
        kept_checks += r->kept_checks;
        torn += r->torn;
        stale += r->stale;
        regressed += r->regressed;
        errors += r->errors;
        for (k = 0; k < CYCLED; k++) phase1_views += r->seen[k] > 0;
        CHECK(phase1_views >= 1);
        for (k = CYCLED; k < VIEWS; k++) CHECK(r->seen[k] > 0); /* every phase-2 view, in order */
        CHECK(r->seen[VIEWS - 1] > 0);
    }
    CHECK(errors == 0);
    CHECK(torn == 0);
    CHECK(stale == 0);
    CHECK(regressed == 0);
    printf("swap stress: %ld swaps (%ld cycling 4 views, %ld in increasing versions 5-12), %d reader threads, "
           "%lu loads, %lu routes (%lu through kept snapshots), %.2f s\n",
           total, phase1, total - phase1, READERS, loads, routes, kept_checks, t1 - t0);
    printf("swap stress: torn %lu, not current %lu, version regressions %lu, errors %lu\n", torn, stale, regressed,
           errors);
    printf("swap stress: VmRSS %ld KiB at start, %ld KiB after warm-up (%ld swaps), %ld KiB at end%s\n", rss_start,
           rss_warm, total / 10, rss_end,
           rss_check ? "" : (UNDER_ASAN ? " (not checked under AddressSanitizer)" : " (not checked: --no-rss-check)"));
    if (rss_check) {
        if (rss_end - rss_warm > RSS_BOUND_KIB) {
            fprintf(stderr, "VmRSS grew by %ld KiB after warm-up (bound %d KiB)\n", rss_end - rss_warm, RSS_BOUND_KIB);
        }
        CHECK(rss_warm > 0 && rss_end > 0 && rss_end - rss_warm <= RSS_BOUND_KIB);
    }

    kr_shared_router_free(shared);
    for (i = 0; i < VIEWS; i++) kr_router_free(views[i]);
    free(plan);
    return check_finish();
}
