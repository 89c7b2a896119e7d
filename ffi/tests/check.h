/* Tiny check macros shared by the C tests: each check counts as passed or failed, and
 * check_finish() prints the closing line "N passed, M failed". Plain C99. */
#ifndef KEYROUTE_CHECK_H
#define KEYROUTE_CHECK_H

#include <stdio.h>
#include <string.h>

#include "keyroute.h"

static unsigned long check_passed, check_failed;

static void check_report(int ok, const char *file, int line, const char *what) {
    if (ok) {
        check_passed++;
    } else {
        check_failed++;
        fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
    }
}

/* A condition. */
#define CHECK(cond) check_report((cond) != 0, __FILE__, __LINE__, #cond)

/* A call's status, e.g. CHECK_STATUS(kr_route(r, k, n, &node), KR_OK). */
#define CHECK_STATUS(call, want)                                                              \
    do {                                                                                      \
        kr_status check_got_ = (call);                                                        \
        kr_status check_want_ = (kr_status)(want);                                            \
        if (check_got_ != check_want_) {                                                      \
            const char *g_ = kr_status_name(check_got_), *w_ = kr_status_name(check_want_);   \
            fprintf(stderr, "%s:%d: %s -> %s (%u), want %s (%u): %s\n", __FILE__, __LINE__,   \
                    #call, g_ ? g_ : "?", (unsigned)check_got_, w_ ? w_ : "?",                \
                    (unsigned)check_want_, kr_last_error_message());                          \
        }                                                                                     \
        check_report(check_got_ == check_want_, __FILE__, __LINE__, #call);                   \
    } while (0)

/* A span (pointer, length) equal to a NUL-terminated string. */
#define CHECK_SPAN(ptr, len, str) \
    CHECK((len) == strlen(str) && ((len) == 0 || memcmp((ptr), (str), (len)) == 0))

/* Text arguments: a string literal and its length. */
#define TXT(s) (s), (sizeof(s) - 1)
/* Key arguments: a string literal's bytes and length. */
#define KEY(s) (const uint8_t *)(s), (sizeof(s) - 1)

static int check_finish(void) {
    printf("%lu passed, %lu failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}

#endif
