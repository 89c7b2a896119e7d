/* The C conformance runner: every vector file of conformance/vectors/v1 through the C ABI.
 *
 * The loading contract is the Rust runner's (bindings/tests/conformance.rs and
 * bindings/tests/common/mod.rs): the file's spec builds a router; a case may carry its own spec
 * as `spec` (a JSON value, re-serialized compact), `spec_json` (raw text), `spec_hex` (raw bytes,
 * not UTF-8 on purpose) or `spec_repeat` (head + unit x times + tail, text or hex: documents too
 * large to store, up to 8 MiB + 1), built under the case's `limits` (the object's JSON passed to
 * kr_router_from_json_with_limits as given, so malformed limits fail as the case says) or the
 * defaults (kr_router_from_json). The key is `key` (UTF-8 text), `key_utf16` (UTF-16 text,
 * routed with kr_route_utf16), `key_repeat` (same shape as spec_repeat) or `key_hex`. Expected
 * results are `node` ids, optional `replicas` and `slot`, or `error` + `code` (compared by name
 * and number, never by message). Cases C cannot express are counted as not for this surface:
 * `key_type` (a key of a wrong type, for JS and Python) and `spec_toml` (the CLI's TOML).
 * A missing or empty corpus fails, as does a file whose own spec does not build.
 *
 * Usage: conformance [VECTORS_DIR]   (default: conformance/vectors/v1, relative to the cwd;
 * against an install: conformance "$(pkg-config --variable=vectorsdir keyroute)/v1")
 * JSON is read with jansson (Debian's libjansson-dev), NULs in strings allowed (ids may hold
 * them). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyroute.h"

enum { MIN_FILES = 100, MAX_REPORTED = 40 };

static unsigned long passed, failed, reported;
/* Cases whose router routes on a key hash, where kr_route_hash was checked against kr_route. */
static unsigned long hashed_cases;

static void case_failed(const char *file, const char *id, const char *why, const char *detail) {
    failed++;
    if (reported++ < MAX_REPORTED) fprintf(stderr, "FAIL %s %s: %s%s%s\n", file, id, why, detail ? ": " : "", detail ? detail : "");
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Bytes read from a vector file: malloc'd (NULL when empty). */
struct bytes {
    uint8_t *ptr;
    size_t len;
};

/* Specs and keys a case builds are at most 8 MiB + 1 today; this only stops a runaway file. */
enum { MAX_BUILT_BYTES = 64 << 20 };

/* Appends `n` bytes of hex text (or of raw text) to `out`, which has room. */
static int append_part(struct bytes *out, const char *s, size_t n, int hex) {
    size_t i;
    if (!hex) {
        if (n) memcpy(out->ptr + out->len, s, n);
        out->len += n;
        return 1;
    }
    if (n % 2 != 0) return 0;
    for (i = 0; i < n / 2; i++) {
        int hi = hex_value(s[2 * i]), lo = hex_value(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return 0;
        out->ptr[out->len++] = (uint8_t)(hi * 16 + lo);
    }
    return 1;
}

static int hex_bytes(const json_t *hex, struct bytes *out) {
    size_t n = json_string_length(hex);
    out->len = 0;
    out->ptr = malloc(n / 2 + 1);
    return out->ptr != NULL && append_part(out, json_string_value(hex), n, 1);
}

/* `head` + `unit` x `times` + `tail` (absent parts are empty): text, or hex when `hex` is true
 * (bindings/tests/common/mod.rs, repeat). */
static int repeat(const json_t *r, struct bytes *out) {
    const char *names[3] = {"head", "unit", "tail"};
    const char *part[3];
    size_t len[3], size[3], times, total, i;
    int hex = json_is_true(json_object_get(r, "hex"));
    const json_t *t = json_object_get(r, "times");
    out->ptr = NULL;
    out->len = 0;
    if (!json_is_object(r) || (t != NULL && (!json_is_integer(t) || json_integer_value(t) < 0))) return 0;
    times = t ? (size_t)json_integer_value(t) : 0;
    for (i = 0; i < 3; i++) {
        const json_t *p = json_object_get(r, names[i]);
        if (p != NULL && !json_is_string(p)) return 0;
        part[i] = p ? json_string_value(p) : "";
        len[i] = p ? json_string_length(p) : 0;
        size[i] = hex ? len[i] / 2 : len[i];
    }
    if (size[1] != 0 && times > MAX_BUILT_BYTES / size[1]) return 0;
    total = size[0] + size[1] * times + size[2];
    if (total > MAX_BUILT_BYTES) return 0;
    out->ptr = malloc(total ? total : 1);
    if (out->ptr == NULL) return 0;
    if (!append_part(out, part[0], len[0], hex)) return 0;
    if (times > 0) {
        /* One unit, then doubling copies (8 Mi one-byte units are 23 memcpy calls, which keeps
         * valgrind fast). */
        size_t start = out->len, done = 1, unit = size[1];
        if (!append_part(out, part[1], len[1], hex)) return 0;
        while (done < times) {
            size_t n = done <= times - done ? done : times - done;
            memcpy(out->ptr + start + done * unit, out->ptr + start, n * unit);
            done += n;
        }
        out->len = start + times * unit;
    }
    return append_part(out, part[2], len[2], hex) && out->len == total;
}

/* The spec bytes of a case that carries its own (bindings/tests/common/mod.rs,
 * case_spec_bytes): 1 with the bytes in *out, 0 when the case uses its file's spec, -1 when its
 * spec fields cannot be read. */
static int case_spec_bytes(const json_t *c, struct bytes *out) {
    const json_t *spec = json_object_get(c, "spec"), *text = json_object_get(c, "spec_json");
    const json_t *hex = json_object_get(c, "spec_hex"), *rep = json_object_get(c, "spec_repeat");
    out->ptr = NULL;
    out->len = 0;
    if (spec != NULL) {
        char *dumped = json_dumps(spec, JSON_COMPACT | JSON_ENCODE_ANY);
        if (dumped == NULL) return -1;
        out->ptr = (uint8_t *)dumped;
        out->len = strlen(dumped);
        return 1;
    }
    if (text != NULL) {
        if (!json_is_string(text)) return -1;
        out->len = json_string_length(text);
        out->ptr = malloc(out->len + 1);
        if (out->ptr == NULL) return -1;
        memcpy(out->ptr, json_string_value(text), out->len);
        return 1;
    }
    if (hex != NULL) return json_is_string(hex) && hex_bytes(hex, out) ? 1 : -1;
    if (rep != NULL) return repeat(rep, out) ? 1 : -1;
    return 0;
}

/* A router from spec bytes under the case's `limits` (its JSON, as given), or the defaults. */
static kr_status build_bytes(const struct bytes *spec, const json_t *limits, kr_router **out) {
    kr_status s;
    char *text;
    if (limits == NULL) return kr_router_from_json((const char *)spec->ptr, spec->len, out);
    text = json_dumps(limits, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text == NULL) return KR_INTERNAL;
    s = kr_router_from_json_with_limits((const char *)spec->ptr, spec->len, text, strlen(text), out);
    free(text);
    return s;
}

/* A file's router: its spec (a JSON object) re-serialized, under the default limits. */
static kr_status build_file_spec(const json_t *spec, kr_router **out) {
    kr_status s;
    char *text = json_dumps(spec, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text == NULL) return KR_INTERNAL;
    s = kr_router_from_json(text, strlen(text), out);
    free(text);
    return s;
}

/* The case's key (not `key_utf16`, which the caller routes as UTF-16): `key` (text),
 * `key_repeat` or `key_hex`; malloc'd bytes in *key (NULL for the empty key), length in *len. */
static int case_key(const json_t *c, uint8_t **key, size_t *len) {
    const json_t *text = json_object_get(c, "key"), *hex = json_object_get(c, "key_hex");
    const json_t *rep = json_object_get(c, "key_repeat");
    struct bytes b = {NULL, 0};
    int ok;
    *key = NULL;
    *len = 0;
    if (json_is_string(text)) {
        *len = json_string_length(text);
        if (*len == 0) return 1;
        *key = malloc(*len);
        if (*key == NULL) return 0;
        memcpy(*key, json_string_value(text), *len);
        return 1;
    }
    if (rep != NULL) ok = repeat(rep, &b);
    else if (json_is_string(hex)) ok = hex_bytes(hex, &b);
    else return 0;
    if (!ok) {
        free(b.ptr);
        return 0;
    }
    *key = b.ptr;
    *len = b.len;
    return 1;
}

/* Whether a failure with `got` is the error the case expects (by name and by code). */
static int expected_error(const json_t *c, kr_status got, char *why, size_t why_len) {
    const json_t *name = json_object_get(c, "error"), *code = json_object_get(c, "code");
    const char *got_name = kr_status_name(got);
    if (!json_is_string(name)) {
        snprintf(why, why_len, "unexpected error %s (%u): %s", got_name ? got_name : "?", (unsigned)got,
                 kr_last_error_message());
        return 0;
    }
    if (got_name == NULL || strcmp(got_name, json_string_value(name)) != 0 || !json_is_integer(code) ||
        json_integer_value(code) != (json_int_t)got) {
        snprintf(why, why_len, "error %s (%u), expected %s", got_name ? got_name : "?", (unsigned)got,
                 json_string_value(name));
        return 0;
    }
    return 1;
}

static int id_equals(const kr_router *r, uint32_t index, const json_t *want) {
    const char *id = NULL;
    size_t len = 0;
    return json_is_string(want) && kr_router_node_id(r, index, &id, &len) == KR_OK &&
           len == json_string_length(want) && memcmp(id, json_string_value(want), len) == 0;
}

/* A `key_utf16` case: the text routed through kr_route_utf16 (the key text policy). */
static int utf16_case(const kr_router *r, const json_t *c, char *why, size_t why_len) {
    const json_t *units_json = json_object_get(c, "key_utf16"), *unit;
    size_t n = json_array_size(units_json), i;
    uint16_t *units = malloc((n ? n : 1) * sizeof *units);
    uint32_t node = 0;
    const char *id = NULL;
    size_t id_len = 0;
    kr_status s;
    int ok = 0;
    if (units == NULL) return 0;
    json_array_foreach(units_json, i, unit) units[i] = (uint16_t)json_integer_value(unit);
    s = kr_route_utf16(r, units, n, &node);
    free(units);
    if (s != KR_OK) return expected_error(c, s, why, why_len);
    if (kr_router_node_id(r, node, &id, &id_len) != KR_OK) {
        snprintf(why, why_len, "node %u has no id", (unsigned)node);
    } else if (json_object_get(c, "error") != NULL) {
        snprintf(why, why_len, "expected an error, got node %.*s", (int)id_len, id);
    } else {
        ok = id_equals(r, node, json_object_get(c, "node"));
        if (!ok) snprintf(why, why_len, "node %.*s differs from the expected one", (int)id_len, id);
    }
    return ok;
}

/* Whether a case is not for the C surface: a key of a type C cannot pass (`key_type`), or a
 * spec in TOML, which the CLI alone reads (`spec_toml`). */
static int not_for_c(const json_t *c) {
    return json_object_get(c, "key_type") != NULL || json_object_get(c, "spec_toml") != NULL;
}

/* Runs one case; returns 1 when it passes, else writes why. */
static int run_case(const kr_router *file_router, const json_t *c, char *why, size_t why_len) {
    kr_router *own = NULL;
    const kr_router *r = file_router;
    const json_t *want_node = json_object_get(c, "node");
    const json_t *want_replicas = json_object_get(c, "replicas"), *want_slot = json_object_get(c, "slot");
    const json_t *replicas_count = json_object_get(c, "replicas_count");
    uint8_t *key = NULL;
    size_t key_len = 0;
    struct bytes spec = {NULL, 0};
    kr_status s;
    int ok = 0, has_spec = case_spec_bytes(c, &spec);

    if (has_spec < 0) {
        free(spec.ptr);
        snprintf(why, why_len, "the case's spec fields cannot be read");
        return 0;
    }
    if (has_spec > 0) {
        own = (kr_router *)(uintptr_t)1; /* must stay unchanged when the build fails */
        s = build_bytes(&spec, json_object_get(c, "limits"), &own);
        free(spec.ptr);
        if (s != KR_OK) {
            if (own != (kr_router *)(uintptr_t)1) {
                snprintf(why, why_len, "a failed build wrote its out-parameter");
                return 0;
            }
            return expected_error(c, s, why, why_len);
        }
        r = own;
    }
    if (r == NULL) {
        snprintf(why, why_len, "case has no spec and the file has none");
        goto done;
    }
    if (!json_is_string(json_object_get(c, "key")) && json_is_array(json_object_get(c, "key_utf16"))) {
        ok = utf16_case(r, c, why, why_len);
        goto done;
    }
    if (!case_key(c, &key, &key_len)) {
        snprintf(why, why_len, "case has no (valid) key");
        goto done;
    }
    if (json_is_integer(replicas_count)) {
        size_t n = (size_t)json_integer_value(replicas_count);
        uint32_t *out = calloc(n ? n : 1, sizeof *out);
        s = out ? kr_replicas(r, key, key_len, out, n) : KR_INTERNAL;
        free(out);
        if (s == KR_OK) snprintf(why, why_len, "expected an error, got replicas");
        else ok = expected_error(c, s, why, why_len);
        goto done;
    }
    {
        const char *id = NULL;
        size_t id_len = 0;
        uint32_t node = 0;
        s = kr_route_id(r, key, key_len, &id, &id_len);
        if (s != KR_OK) {
            ok = expected_error(c, s, why, why_len);
            goto done;
        }
        if (json_object_get(c, "error") != NULL) {
            snprintf(why, why_len, "expected error %s, got node %.*s", json_string_value(json_object_get(c, "error")),
                     (int)id_len, id);
            goto done;
        }
        if (!json_is_string(want_node) || id_len != json_string_length(want_node) ||
            memcmp(id, json_string_value(want_node), id_len) != 0) {
            snprintf(why, why_len, "node %.*s, expected %s", (int)id_len, id,
                     json_is_string(want_node) ? json_string_value(want_node) : "(none)");
            goto done;
        }
        /* kr_route agrees with kr_route_id. */
        if (kr_route(r, key, key_len, &node) != KR_OK || !id_equals(r, node, want_node)) {
            snprintf(why, why_len, "kr_route disagrees with kr_route_id");
            goto done;
        }
        /* Where the router routes on one key hash, routing that hash gives the same owner, one
         * at a time and in a batch. */
        {
            uint64_t hash = 0;
            uint32_t by_hash = UINT32_MAX, batch = UINT32_MAX;
            s = kr_key_hash(r, key, key_len, &hash);
            if (s != KR_OK && s != KR_ROUTE_HASH_UNSUPPORTED) {
                snprintf(why, why_len, "kr_key_hash: %s", kr_last_error_message());
                goto done;
            }
            if (s == KR_OK && (kr_route_hash(r, hash, &by_hash) != KR_OK || by_hash != node ||
                               kr_route_hash_batch(r, &hash, 1, &batch, 1) != KR_OK || batch != node)) {
                snprintf(why, why_len, "routing the key's hash %016llx disagrees with kr_route",
                         (unsigned long long)hash);
                goto done;
            }
            if (s == KR_ROUTE_HASH_UNSUPPORTED && kr_route_hash(r, hash, &by_hash) != KR_ROUTE_HASH_UNSUPPORTED) {
                snprintf(why, why_len, "kr_key_hash refused, kr_route_hash did not");
                goto done;
            }
            if (s == KR_OK) hashed_cases++;
        }
    }
    if (json_is_integer(want_slot)) {
        bool has = false;
        uint32_t slot = 0;
        if (kr_slot(r, key, key_len, &has, &slot) != KR_OK || !has) {
            snprintf(why, why_len, "a slot is expected but the router has no slots");
            goto done;
        }
        if ((json_int_t)slot != json_integer_value(want_slot)) {
            snprintf(why, why_len, "slot %u, expected %lld", (unsigned)slot, (long long)json_integer_value(want_slot));
            goto done;
        }
    }
    if (json_is_array(want_replicas)) {
        size_t n = json_array_size(want_replicas), i;
        uint32_t *out = calloc(n ? n : 1, sizeof *out);
        if (out == NULL || (s = kr_replicas(r, key, key_len, out, n)) != KR_OK) {
            snprintf(why, why_len, "replicas: %s", out ? kr_last_error_message() : "out of memory");
            free(out);
            goto done;
        }
        for (i = 0; i < n; i++) {
            if (!id_equals(r, out[i], json_array_get(want_replicas, i))) {
                snprintf(why, why_len, "replica %lu differs", (unsigned long)i);
                free(out);
                goto done;
            }
        }
        free(out);
    }
    ok = 1;
done:
    free(key);
    kr_router_free(own);
    return ok;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of dir, sorted; returns their count (-1 if the directory cannot be read). */
static long list_files(const char *dir, char ***names) {
    DIR *d = opendir(dir);
    struct dirent *e;
    long n = 0, cap = 0;
    *names = NULL;
    if (d == NULL) return -1;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
        if (n == cap) {
            char **grown;
            cap = cap ? cap * 2 : 256;
            grown = realloc(*names, (size_t)cap * sizeof **names);
            if (grown == NULL) break;
            *names = grown;
        }
        (*names)[n] = malloc(len + 1);
        if ((*names)[n] == NULL) break;
        memcpy((*names)[n++], e->d_name, len + 1);
    }
    closedir(d);
    if (n > 0) qsort(*names, (size_t)n, sizeof **names, compare_names);
    return n;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "conformance/vectors/v1";
    char **names = NULL;
    long files = list_files(dir, &names), f;
    unsigned long peer = 0, native = 0, skipped = 0;

    if (files < 0) {
        fprintf(stderr, "no corpus at %s\n", dir);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    if (files < MIN_FILES) {
        fprintf(stderr, "the corpus at %s has only %ld files (at least %d expected)\n", dir, files, MIN_FILES);
        failed++;
    }
    for (f = 0; f < files; f++) {
        char path[4096];
        json_error_t err;
        json_t *doc, *spec, *cases, *c;
        kr_router *file_router = NULL;
        size_t i;
        const char *kind;

        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        doc = json_load_file(path, JSON_ALLOW_NUL, &err);
        if (doc == NULL) {
            case_failed(names[f], "-", "not JSON", err.text);
            free(names[f]);
            continue;
        }
        kind = json_string_value(json_object_get(json_object_get(doc, "provenance"), "kind"));
        if (kind != NULL && strcmp(kind, "peer") == 0) peer++;
        else native++;
        cases = json_object_get(doc, "cases");
        spec = json_object_get(doc, "spec");
        if (!json_is_array(cases) || json_array_size(cases) == 0) {
            case_failed(names[f], "-", "no cases", NULL);
        } else if (spec != NULL && build_file_spec(spec, &file_router) != KR_OK) {
            /* Every case of a file whose spec does not build fails. */
            failed += json_array_size(cases);
            fprintf(stderr, "FAIL %s: the file's spec does not build, so its %lu cases fail: %s\n", names[f],
                    (unsigned long)json_array_size(cases), kr_last_error_message());
        } else {
            json_array_foreach(cases, i, c) {
                char why[512] = "";
                const char *id = json_string_value(json_object_get(c, "id"));
                if (not_for_c(c)) skipped++;
                else if (run_case(file_router, c, why, sizeof why)) passed++;
                else case_failed(names[f], id ? id : "?", why, NULL);
            }
        }
        kr_router_free(file_router);
        json_decref(doc);
        free(names[f]);
    }
    free(names);
    if (passed == 0) failed++;
    printf("%ld files (%lu captured from peers, %lu generated) through the C ABI: %lu passed, %lu failed, "
           "%lu not for this surface (key types C cannot pass, TOML)\n",
           files, peer, native, passed, failed, skipped);
    printf("routing by key hash agreed with routing by key in %lu cases\n", hashed_cases);
    if (hashed_cases == 0) failed++;
    printf("%lu passed, %lu failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
