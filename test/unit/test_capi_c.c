/* The public header compiled as C99: parse a topology, map a small ring,
 * check the result is a permutation.  Exit status is the test verdict. */
#include <stdio.h>
#include <string.h>

#include "rankmap.h"

int main(void) {
    rankmap_topology_t t;
    rankmap_graph_t g;
    int src[8], dst[8], place[8], seen[8] = {0}, i, rc;
    rankmap_options o;
    rankmap_report r;
    if (rankmap_topology_parse("torus:8", &t) != RANKMAP_OK) {
        fprintf(stderr, "parse failed: %s\n", rankmap_last_error());
        return 1;
    }
    for (i = 0; i < 8; i++) { src[i] = i; dst[i] = (i + 3) % 8; }
    if (rankmap_graph_create(8, 8, src, dst, NULL, &g) != RANKMAP_OK) return 1;
    rankmap_options_init(&o);
    o.algorithm = "random";
    o.seed = 3;
    rc = rankmap_map(t, g, &o, place, &r);
    if (rc != RANKMAP_OK) { fprintf(stderr, "map failed: %s\n", rankmap_last_error()); return 1; }
    for (i = 0; i < 8; i++) {
        if (place[i] < 0 || place[i] >= 8 || seen[place[i]]++) { fprintf(stderr, "not a permutation\n"); return 1; }
    }
    if (!(r.F >= r.F_min && r.F_min > 0)) { fprintf(stderr, "bad report\n"); return 1; }
    rankmap_topology_free(t);
    if (rankmap_topology_parse("bogus", &t) == RANKMAP_OK || strstr(rankmap_last_error(), "bogus") == NULL) return 1;
    rankmap_graph_free(g);
    printf("C API from C: ok (F/F_min = %.3f)\n", r.ratio);
    return 0;
}
