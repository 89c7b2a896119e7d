/* keyroute quickstart: build a router from a topology spec, route a key, list its replicas.
 * cc quickstart.c $(pkg-config --cflags --libs keyroute) -o quickstart && ./quickstart
 * (from a prefix the loader does not search, such as an unpacked release tarball, also pass
 * -Wl,-rpath,$(pkg-config --variable=libdir keyroute) so that the program finds the library) */
#include <keyroute.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    const char *spec = "{\"algorithm\":\"ring\",\"nodes\":["
                       "{\"id\":\"cache-a\",\"zone\":\"eu-1a\"},"
                       "{\"id\":\"cache-b\",\"zone\":\"eu-1b\",\"weight\":2},"
                       "{\"id\":\"cache-c\",\"zone\":\"eu-1a\"}]}";
    const char *key = "user:42", *id;
    size_t id_len;
    uint32_t replicas[2];
    kr_router *router = NULL;

    if (kr_router_from_json(spec, strlen(spec), &router) != KR_OK) {
        fprintf(stderr, "bad spec: %s\n", kr_last_error_message());
        return 1;
    }
    /* The owner of a key (ids are spans, not NUL-terminated: print them with %.*s). */
    if (kr_route_id(router, (const uint8_t *)key, strlen(key), &id, &id_len) != KR_OK) return 1;
    printf("%s lives on %.*s\n", key, (int)id_len, id);

    /* Two nodes in preference order, in two different zones. */
    if (kr_replicas(router, (const uint8_t *)key, strlen(key), replicas, 2) != KR_OK) return 1;
    for (int i = 0; i < 2; i++) {
        kr_router_node_id(router, replicas[i], &id, &id_len);
        printf("replica %d: %.*s\n", i, (int)id_len, id);
    }
    kr_router_free(router);
    return 0;
}
