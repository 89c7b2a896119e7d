/* Memory limits: a router whose tables cannot be allocated fails with KR_OUT_OF_MEMORY, the
 * process goes on, nothing is left half-built, and a normal router still builds and routes.
 *
 * Each build runs in a child process (fork) so that an abort (Rust's infallible allocation
 * failing calls abort()) is caught and reported, not fatal to the test. Run natively only:
 * valgrind and AddressSanitizer need far more address space than the limits leave, and replace
 * malloc (ffi/test.sh runs this test without them). The test re-executes itself once with
 * malloc's tcache off (GLIBC_TUNABLES), so that the heap it measures holds no cached chunks.
 *
 * 1. At the ceiling, under an address-space limit (setrlimit RLIMIT_AS: the child's size plus
 *    16 MiB): limits raised with kr_router_from_json_with_limits up to the core's ceiling (or
 *    well above the defaults), so the allocation is really attempted: a Maglev table of
 *    67,108,859 entries (256 MiB), a slot table of 16,777,216 (64 MiB), 33,554,432 128-bit ring
 *    points (768 MiB), a ring of 4,194,304 points (48 MiB). Each must return KR_OUT_OF_MEMORY
 *    with *out unchanged and the same again when repeated, the heap must hold exactly the bytes
 *    after the failed builds that it held before them (nothing kept from a failed build), and
 *    then a normal router must build and route as it does without a limit.
 * 2. Sweeps: smaller tables of every allocating algorithm, built under address-space limits
 *    from almost nothing to more than the build needs, in even steps. Every step must end in
 *    KR_OK or KR_OUT_OF_MEMORY (*out unchanged, no heap bytes kept, then the normal router as
 *    above), never in an abort.
 * 3. Injection: the same builds with each of their allocations of INJECT_MIN (16 KiB) or more
 *    failing in turn (this file's malloc family, which libkeyroute calls, static or shared,
 *    returns NULL for the n-th), which reaches every large allocation exactly, however narrow
 *    the window a limit would need to hit it. Same checks as the sweeps. Smaller allocations
 *    are left alone: in these builds they are fixed-size (parse buffers, a 257-entry partition
 *    table), and Rust aborts on those as on any allocation; the contract is that allocations a
 *    spec sizes are fallible.
 *
 * Usage: test_oom [STEPS]   (steps per sweep, default 16) */
#define _GNU_SOURCE /* mallinfo2, __libc_malloc */

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* Every limit at the core's ceiling (bindings/src/limits.rs, Limits::CEILING). */
#define CEILING_LIMITS                                                                              \
    "{\"max_spec_bytes\":1073741824,\"max_nodes\":1048576,\"max_points\":33554432,"                 \
    "\"max_hashed_bytes\":140928614400,\"max_table_entries\":67108859}"

static const char NORMAL_SPEC[] =
    "{\"algorithm\":\"ring\",\"version\":7,\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]}";
static const char NORMAL_KEY[] = "user:42";

struct scenario {
    const char *name;
    const char *spec;
    const char *limits;
    int repeats; /* builds measured after the first and a warm-up (the ring's hash every point) */
};

/* Allocations at (or far above the defaults, up to) the ceiling: each fails under HEADROOM_KIB. */
static const struct scenario CEILING[] = {
    {"maglev table_size 67108859 (the ceiling: a 256 MiB table)",
     "{\"algorithm\":\"maglev\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"params\":{\"table_size\":67108859}}",
     "{\"max_table_entries\":67108859}", 20},
    {"slots count 16777216 (the most slots: a 64 MiB table)",
     "{\"algorithm\":\"slots\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"params\":{\"count\":16777216}}",
     "{\"max_table_entries\":16777216}", 20},
    {"uhashring vnodes 33554432 (the ceiling's 128-bit points: 768 MiB)",
     "{\"algorithm\":\"uhashring\",\"nodes\":[{\"id\":\"a\"}],\"params\":{\"vnodes\":33554432}}", CEILING_LIMITS, 20},
    {"ring points_per_weight 4194304 (a 48 MiB ring, twice the default max_points)",
     "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"}],\"params\":{\"points_per_weight\":4194304}}",
     "{\"max_points\":4194304}", 1},
};

/* Smaller builds for the sweeps and the injection (each well under a second in a debug build). */
static const struct scenario SMALL[] = {
    {"maglev table_size 262139",
     "{\"algorithm\":\"maglev\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"params\":{\"table_size\":262139}}", NULL,
     1},
    {"ring 262144 points", "{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"}],\"params\":{\"points_per_weight\":262144}}",
     "{\"max_points\":262144}", 1},
    {"uhashring 16384 vnodes (128-bit points)",
     "{\"algorithm\":\"uhashring\",\"nodes\":[{\"id\":\"a\"}],\"params\":{\"vnodes\":16384}}", NULL, 1},
    {"slots count 1048576", "{\"algorithm\":\"slots\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"params\":{\"count\":1048576}}",
     NULL, 1},
    {"slots count 1048576, explicit ranges",
     "{\"algorithm\":\"slots\",\"nodes\":[{\"id\":\"a\",\"slots\":[[0,524287]]},{\"id\":\"b\",\"slots\":[[524288,1048575]]}],"
     "\"params\":{\"count\":1048576}}",
     NULL, 1},
};

enum {
    HEADROOM_KIB = 16 << 10, /* address space left to the builds at the ceiling */
    HEAP_BOUND = 256,        /* heap bytes a failed build may appear to keep */
    INJECT_MIN = 16 << 10,   /* allocations at least this large fail in turn (section 3) */
    CHILD_SECONDS = 300
};

/* ---------------------------------------------------------------- fault injection
 * The malloc family of this program: glibc's own (__libc_*), except that once armed, the
 * `inject_at`-th allocation of at least INJECT_MIN bytes fails. libkeyroute (Rust's System
 * allocator: malloc, calloc, realloc, posix_memalign) calls these, linked statically or not: an
 * executable's definitions come first in the symbol search. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static int inject_armed;
static long inject_at;   /* -1: count only */
static long inject_seen; /* large allocations since arming */

static int inject_fails(size_t size) {
    if (!inject_armed || size < INJECT_MIN) return 0;
    return ++inject_seen == inject_at;
}

void *malloc(size_t size) {
    if (inject_fails(size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (size != 0 && count <= SIZE_MAX / size && inject_fails(count * size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size) {
    if (inject_fails(size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(ptr, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    void *p;
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    if (inject_fails(size)) return ENOMEM;
    p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (inject_fails(size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_memalign(alignment, size);
}

/* ---------------------------------------------------------------- one build in a child */

/* How a child's builds are starved: an address-space limit, or an injected failure. */
struct starve {
    long headroom_kib; /* > 0: RLIMIT_AS = the child's size + this */
    long inject_at;    /* > 0: the n-th large allocation of each build fails; -1: count them */
};

/* What a child reports through its pipe. */
struct outcome {
    kr_status status;             /* of the starved build */
    int out_unchanged;            /* *out kept its sentinel on failure */
    int message_ok;               /* kr_last_error_message names out_of_memory on failure */
    int repeats_same;             /* each repeat ended the same way */
    int repeats_allowed;          /* each repeat ended in ok or out_of_memory, *out unchanged on failure */
    long heap_before, heap_after; /* bytes malloc holds for the program, around the repeats */
    long rss_before, rss_after;   /* VmRSS (KiB) around them */
    kr_status normal_status;      /* building the normal router afterwards */
    int normal_routes;            /* it routes NORMAL_KEY as without a limit */
    long base_kib, peak_kib;      /* VmSize at the start, VmPeak at the end */
    long large_allocs;            /* allocations of INJECT_MIN bytes or more in the first build */
};

static uint32_t normal_node; /* where the normal router sends NORMAL_KEY, without a limit */

/* A field of /proc/self/status in KiB (VmRSS, VmSize, VmPeak), -1 if absent. */
static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* Bytes malloc has handed out and not had back (all arenas, and mmapped chunks). */
static long heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (long)(m.uordblks + m.hblkhd);
}

/* Builds `s`, with the injection armed for this one call when `inject_at` is set. */
static kr_status build(const struct scenario *s, long at, kr_router **out) {
    kr_status status;
    inject_seen = 0;
    inject_at = at;
    inject_armed = at != 0;
    status = kr_router_from_json_with_limits(s->spec, strlen(s->spec), s->limits, s->limits ? strlen(s->limits) : 0,
                                             out);
    inject_armed = 0;
    return status;
}

/* The child: starve the builds, build, build 1 + `repeats` more times (the heap measured around
 * all but the first), then build and route the normal router. */
static void child(const struct scenario *s, struct starve how, int fd) {
    struct outcome o;
    kr_router *const sentinel = (kr_router *)(uintptr_t)0x1;
    kr_router *out = sentinel, *normal = sentinel;
    ssize_t written;
    int i;
    memset(&o, 0, sizeof o);
    alarm(CHILD_SECONDS);
    o.base_kib = status_kib("VmSize");
    if (how.headroom_kib > 0) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
        rl.rlim_cur = (rlim_t)(o.base_kib + how.headroom_kib) * 1024;
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
    }
    o.status = build(s, how.inject_at, &out);
    o.large_allocs = inject_seen;
    o.out_unchanged = o.status == KR_OK || out == sentinel;
    o.message_ok = o.status == KR_OK || strstr(kr_last_error_message(), "out_of_memory") != NULL;
    if (o.status == KR_OK) {
        uint32_t node;
        if (kr_route(out, (const uint8_t *)NORMAL_KEY, sizeof NORMAL_KEY - 1, &node) != KR_OK) o.status = KR_INTERNAL;
        kr_router_free(out);
    }
    out = sentinel;
    o.repeats_same = o.repeats_allowed = 1;
    /* The first repeat warms up (caches, thread-local storage); the heap is measured around
     * the others. */
    for (i = 0; i <= s->repeats; i++) {
        kr_status again;
        if (i == 1) {
            o.heap_before = heap_in_use();
            o.rss_before = status_kib("VmRSS");
        }
        again = build(s, how.inject_at, &out);
        if (again != o.status) o.repeats_same = 0;
        if ((again != KR_OK && again != KR_OUT_OF_MEMORY) || (again != KR_OK && out != sentinel)) o.repeats_allowed = 0;
        if (again == KR_OK) kr_router_free(out);
        out = sentinel;
    }
    o.heap_after = heap_in_use();
    o.rss_after = status_kib("VmRSS");
    /* Under the same limit, a normal router builds and routes as it does without one. */
    o.normal_status = kr_router_from_json(NORMAL_SPEC, sizeof NORMAL_SPEC - 1, &normal);
    if (o.normal_status == KR_OK) {
        uint32_t node = UINT32_MAX;
        const char *id = NULL;
        size_t id_len = 0;
        o.normal_routes = kr_route(normal, (const uint8_t *)NORMAL_KEY, sizeof NORMAL_KEY - 1, &node) == KR_OK &&
                          node == normal_node &&
                          kr_route_id(normal, (const uint8_t *)NORMAL_KEY, sizeof NORMAL_KEY - 1, &id, &id_len) == KR_OK &&
                          id_len == 1;
        kr_router_free(normal);
    }
    o.peak_kib = status_kib("VmPeak");
    written = write(fd, &o, sizeof o);
    _exit(written == (ssize_t)sizeof o ? 0 : 4);
}

/* Runs `s` in a child starved as `how`; 1 with *o filled when it reported, else 0 with the
 * signal that ended it in *sig (0 if it exited without reporting). */
static int run(const struct scenario *s, struct starve how, struct outcome *o, int *sig) {
    int fds[2], wstatus = 0;
    ssize_t got = 0;
    pid_t pid;
    *sig = 0;
    memset(o, 0, sizeof *o);
    fflush(NULL);
    if (pipe(fds) != 0) return 0;
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        child(s, how, fds[1]);
    }
    close(fds[1]);
    while (got < (ssize_t)sizeof *o) {
        ssize_t n = read(fds[0], (char *)o + got, sizeof *o - (size_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += n;
    }
    close(fds[0]);
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(wstatus)) *sig = WTERMSIG(wstatus);
    return got == (ssize_t)sizeof *o && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
}

/* The checks every starved build must pass: ok, or out_of_memory with nothing changed or kept;
 * `same`: its repeats must end the same way. */
static int outcome_ok(const struct outcome *o, int same, char *why, size_t why_len) {
    const char *name = kr_status_name(o->status);
    if (o->status != KR_OK && o->status != KR_OUT_OF_MEMORY) {
        snprintf(why, why_len, "returned %s (%u), not ok or out_of_memory", name ? name : "?", (unsigned)o->status);
    } else if (!o->out_unchanged) {
        snprintf(why, why_len, "a failed build wrote *out");
    } else if (!o->message_ok) {
        snprintf(why, why_len, "the error message does not name out_of_memory");
    } else if (!o->repeats_allowed || (same && !o->repeats_same)) {
        snprintf(why, why_len, "a repeated build did not end %s", same ? "the same way" : "in ok or out_of_memory");
    } else if (o->heap_after - o->heap_before > HEAP_BOUND) {
        snprintf(why, why_len, "the repeated builds kept %ld heap bytes (%ld -> %ld)", o->heap_after - o->heap_before,
                 o->heap_before, o->heap_after);
    } else if (o->normal_status != KR_OK || !o->normal_routes) {
        snprintf(why, why_len, "afterwards the normal router did not build and route (%s)",
                 kr_status_name(o->normal_status) ? kr_status_name(o->normal_status) : "?");
    } else {
        return 1;
    }
    return 0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Tallies one starved build of a sweep or an injection run. */
struct tally {
    long oom, ok, aborted;
    char first_abort[96];
};

static void starved(const struct scenario *s, const char *section, struct starve how, const char *where,
                    struct tally *t) {
    struct outcome o;
    char why[512] = "";
    int sig = 0;
    if (!run(s, how, &o, &sig)) {
        t->aborted++;
        if (t->first_abort[0] == '\0') snprintf(t->first_abort, sizeof t->first_abort, "%s", where);
        fprintf(stderr, "FAILED %s %s, %s: the child %s (signal %d)\n", section, s->name, where,
                sig == SIGABRT ? "aborted" : "died", sig);
        return;
    }
    if (o.status == KR_OK) t->ok++;
    else t->oom++;
    if (!outcome_ok(&o, 0, why, sizeof why)) fprintf(stderr, "FAILED %s %s, %s: %s\n", section, s->name, where, why);
    CHECK(why[0] == '\0');
}

int main(int argc, char **argv) {
    long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 16;
    size_t i;
    kr_router *normal = NULL;

    /* malloc's per-thread caches (tcache) hold freed chunks that mallinfo2 counts as in use;
     * without them the heap after a failed build is exactly what it was before. */
    if (getenv("KR_TEST_OOM_NO_TCACHE") == NULL) {
        const char *tunables = getenv("GLIBC_TUNABLES");
        char value[1024];
        snprintf(value, sizeof value, "%s%sglibc.malloc.tcache_count=0", tunables ? tunables : "", tunables ? ":" : "");
        if (setenv("GLIBC_TUNABLES", value, 1) == 0 && setenv("KR_TEST_OOM_NO_TCACHE", "1", 1) == 0) {
            fflush(NULL);
            execv("/proc/self/exe", argv);
        }
        fprintf(stderr, "note: could not re-execute without malloc's tcache; heap checks may see cached chunks\n");
    }
    if (steps < 2) steps = 2;
    CHECK_STATUS(kr_router_from_json(NORMAL_SPEC, sizeof NORMAL_SPEC - 1, &normal), KR_OK);
    CHECK_STATUS(kr_route(normal, (const uint8_t *)NORMAL_KEY, sizeof NORMAL_KEY - 1, &normal_node), KR_OK);
    kr_router_free(normal);

    /* 1. At the ceiling: out_of_memory, every time, and the process carries on. */
    for (i = 0; i < sizeof CEILING / sizeof CEILING[0]; i++) {
        const struct scenario *s = &CEILING[i];
        struct starve how = {HEADROOM_KIB, 0};
        struct outcome o;
        char why[512] = "";
        double t0 = now();
        int sig = 0, reported = run(s, how, &o, &sig);
        if (!reported) {
            fprintf(stderr, "FAILED %s: the child %s%s (signal %d) under %d MiB of headroom\n", s->name,
                    sig == SIGABRT ? "aborted" : "died", sig == SIGALRM ? " (timed out)" : "", sig, HEADROOM_KIB >> 10);
            CHECK(reported);
            continue;
        }
        CHECK_STATUS(o.status, KR_OUT_OF_MEMORY);
        CHECK(outcome_ok(&o, 1, why, sizeof why));
        if (why[0] != '\0') fprintf(stderr, "FAILED %s: %s\n", s->name, why);
        printf("oom: %s -> %s (%u) under %d MiB of headroom, *out unchanged; %d more: the same, heap %ld -> %ld "
               "bytes, VmRSS %ld -> %ld KiB; then the normal router builds and routes (%.1f s)\n",
               s->name, kr_status_name(o.status) ? kr_status_name(o.status) : "?", (unsigned)o.status,
               HEADROOM_KIB >> 10, s->repeats, o.heap_before, o.heap_after, o.rss_before, o.rss_after, now() - t0);
    }

    for (i = 0; i < sizeof SMALL / sizeof SMALL[0]; i++) {
        const struct scenario *s = &SMALL[i];
        struct starve unlimited = {0, -1};
        struct outcome o;
        struct tally sweep, inject;
        int sig = 0;
        long need, step, h, n, large;
        char where[96];
        double t0 = now();

        /* Without a limit: it builds, needs this much address space, makes this many large
         * allocations. */
        if (!run(s, unlimited, &o, &sig) || o.status != KR_OK) {
            fprintf(stderr, "FAILED %s: does not build without a limit (%s, signal %d)\n", s->name,
                    kr_status_name(o.status) ? kr_status_name(o.status) : "?", sig);
            CHECK(0);
            continue;
        }
        need = o.peak_kib - o.base_kib;
        large = o.large_allocs;

        /* 2. Sweep: never an abort, whatever allocation the limit falls on. */
        memset(&sweep, 0, sizeof sweep);
        step = (need + 512) / steps;
        if (step < 4) step = 4;
        for (h = step; h <= need + 512; h += step) {
            struct starve how = {h, 0};
            snprintf(where, sizeof where, "under %ld KiB of headroom", h);
            starved(s, "sweep", how, where, &sweep);
        }
        printf("oom sweep: %s: needs %ld KiB; %ld steps of %ld KiB: %ld out_of_memory, %ld ok, %ld aborted (%.1f s)\n",
               s->name, need, sweep.oom + sweep.ok + sweep.aborted, step, sweep.oom, sweep.ok, sweep.aborted,
               now() - t0);
        t0 = now();
        CHECK(sweep.ok > 0 && sweep.oom > 0); /* the sweep spans both sides of what the build needs */
        CHECK(sweep.aborted == 0);

        /* 3. Injection: each large allocation fails in turn. */
        memset(&inject, 0, sizeof inject);
        for (n = 1; n <= large; n++) {
            struct starve how = {0, n};
            snprintf(where, sizeof where, "with allocation %ld of %ld failing", n, large);
            starved(s, "inject", how, where, &inject);
        }
        printf("oom inject: %s: %ld allocations of %d KiB or more, each failing in turn: %ld out_of_memory, %ld ok, "
               "%ld aborted (%.1f s)\n",
               s->name, large, INJECT_MIN >> 10, inject.oom, inject.ok, inject.aborted,
               now() - t0);
        CHECK(large > 0 && inject.oom > 0);
        CHECK(inject.aborted == 0);
    }
    return check_finish();
}
