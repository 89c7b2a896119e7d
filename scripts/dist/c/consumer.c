/* A program that uses keyroute as an installed C library (scripts/dist/test-c.sh builds it
 * through CMake and through pkg-config, shared and static): it checks that the header and the
 * library agree, then routes every case of each file given and compares the node with the
 * expected one.
 *
 * Usage: consumer CASES...   where each CASES file holds a topology spec (JSON) on its first
 * line, then one `key<TAB>expected node id` per line (test-c.sh writes them from the installed
 * conformance corpus). Prints one line per file; exits 1 on any difference or error. */
#include <keyroute.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file, NUL-terminated (NULL on error). */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    if (f == NULL) return NULL;
    do {
        if (cap - n < 4096) {
            char *grown = realloc(buf, cap * 2 + 4096);
            if (grown == NULL) break;
            buf = grown;
            cap = cap * 2 + 4096;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    if (ferror(f) || buf == NULL) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int route_file(const char *path) {
    size_t len = 0, cases = 0, wrong = 0;
    char *text = read_file(path, &len), *line, *end;
    kr_router *router = NULL;
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        return 0;
    }
    end = strchr(text, '\n');
    if (end == NULL) {
        fprintf(stderr, "%s: no spec line\n", path);
        free(text);
        return 0;
    }
    if (kr_router_from_json(text, (size_t)(end - text), &router) != KR_OK) {
        fprintf(stderr, "%s: the spec does not build: %s\n", path, kr_last_error_message());
        free(text);
        return 0;
    }
    for (line = end + 1; *line != '\0'; line = end + 1) {
        const char *id;
        size_t id_len;
        char *tab = strchr(line, '\t');
        end = strchr(line, '\n');
        if (end == NULL) end = line + strlen(line);
        if (tab == NULL || tab > end) {
            fprintf(stderr, "%s: a line without a tab\n", path);
            wrong++;
            break;
        }
        cases++;
        if (kr_route_id(router, (const uint8_t *)line, (size_t)(tab - line), &id, &id_len) != KR_OK) {
            fprintf(stderr, "%s: %.*s: %s\n", path, (int)(tab - line), line, kr_last_error_message());
            wrong++;
        } else if (id_len != (size_t)(end - tab - 1) || memcmp(id, tab + 1, id_len) != 0) {
            fprintf(stderr, "%s: %.*s routed to %.*s, expected %.*s\n", path, (int)(tab - line), line, (int)id_len,
                    id, (int)(end - tab - 1), tab + 1);
            wrong++;
        }
        if (*end == '\0') break;
    }
    kr_router_free(router);
    free(text);
    printf("%s: %lu keys routed, %lu wrong\n", path, (unsigned long)cases, (unsigned long)wrong);
    return cases > 0 && wrong == 0;
}

int main(int argc, char **argv) {
    int i, ok = 1;
    if (!KEYROUTE_VERSION_COMPATIBLE() || strcmp(kr_version(), KEYROUTE_VERSION_STRING) != 0) {
        fprintf(stderr, "header %s, library %s: they do not agree\n", KEYROUTE_VERSION_STRING, kr_version());
        return 1;
    }
    printf("keyroute %s (header %s)\n", kr_version(), KEYROUTE_VERSION_STRING);
    if (argc < 2) {
        fprintf(stderr, "usage: consumer CASES...\n");
        return 2;
    }
    for (i = 1; i < argc; i++) ok &= route_file(argv[i]);
    return ok ? 0 : 1;
}
