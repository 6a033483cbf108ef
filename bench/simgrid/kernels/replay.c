/* replay.c -- traffic-replay kernel: one exchange step of an application
 * whose communication graph is given as an edge list.
 *
 *   replay GRAPH.edges BYTES_PER_UNIT ITERATIONS
 *
 * GRAPH.edges is what `rankmap gen` writes: `src dst weight` per line
 * (0-based ranks, `#` comments).  Every line is one message of
 * weight * BYTES_PER_UNIT bytes from src to dst per iteration; a pair listed
 * once is sent in both directions (the workloads are symmetric and
 * `rankmap gen` lists each unordered pair once), a pair listed in both
 * directions keeps its own weight for each.
 *
 * One iteration: every rank posts MPI_Irecv for all its incoming messages,
 * then MPI_Isend for all its outgoing ones, and completes them with
 * MPI_Waitany (SMPI's MPI_Waitsome adds simulated polling time).  No
 * computation.  Communication time = time from the barrier that starts the
 * timed loop to the rank's last completion, max over ranks, printed as
 *   COMM_TIME <seconds> (per iteration)
 * by rank 0.  Cost: O(edges) memory per rank to read the file (each rank
 * reads the file and keeps its own messages).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int peer;
    long long bytes;
} msg_t;

typedef struct {
    msg_t *v;
    int n, cap;
} msgs_t;

static void push(msgs_t *m, int peer, long long bytes) {
    for (int i = 0; i < m->n; i++)
        if (m->v[i].peer == peer) { /* one message per peer: merge */
            m->v[i].bytes += bytes;
            return;
        }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->v = realloc(m->v, (size_t)m->cap * sizeof(msg_t));
        if (!m->v) {
            fprintf(stderr, "replay: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    m->v[m->n].peer = peer;
    m->v[m->n].bytes = bytes;
    m->n++;
}

/* Edges are read into a list first so that "listed once" and "listed both
 * ways" can be told apart. */
typedef struct {
    int s, d;
    double w;
} edge_t;

static int cmp_edge(const void *a, const void *b) {
    const edge_t *x = a, *y = b;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    return 0;
}

static int has_edge(const edge_t *e, int ne, int s, int d) {
    int lo = 0, hi = ne - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (e[mid].s == s && e[mid].d == d) return 1;
        if (e[mid].s < s || (e[mid].s == s && e[mid].d < d))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

static edge_t *read_edges(const char *path, int size, int *ne_out) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return NULL;
    }
    int ne = 0, cap = 1024;
    edge_t *e = malloc((size_t)cap * sizeof(edge_t));
    char line[512];
    int lineno = 0;
    while (e && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        int s, d;
        double w = 1.0;
        int k = sscanf(line, "%d %d %lf", &s, &d, &w);
        if (k <= 0) continue; /* blank or comment */
        if (k < 2 || s < 0 || d < 0 || s >= size || d >= size || w < 0) {
            fprintf(stderr, "replay: %s:%d: bad edge (need `src dst [weight]`, ranks < %d)\n", path, lineno, size);
            free(e);
            fclose(f);
            return NULL;
        }
        if (s == d) continue;
        if (ne == cap) {
            cap *= 2;
            edge_t *g = realloc(e, (size_t)cap * sizeof(edge_t));
            if (!g) {
                free(e);
                e = NULL;
                break;
            }
            e = g;
        }
        e[ne].s = s;
        e[ne].d = d;
        e[ne].w = w;
        ne++;
    }
    fclose(f);
    if (!e) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return NULL;
    }
    qsort(e, (size_t)ne, sizeof(edge_t), cmp_edge);
    *ne_out = ne;
    return e;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4) {
        if (rank == 0) fprintf(stderr, "usage: replay GRAPH.edges BYTES_PER_UNIT ITERATIONS\n");
        MPI_Finalize();
        return 2;
    }
    double unit = atof(argv[2]);
    int iters = atoi(argv[3]);
    if (!(unit > 0) || iters < 1) {
        if (rank == 0) fprintf(stderr, "replay: BYTES_PER_UNIT must be > 0 and ITERATIONS >= 1\n");
        MPI_Finalize();
        return 2;
    }
    int ne = 0, ok = 1;
    edge_t *e = read_edges(argv[1], size, &ne);
    if (!e) ok = 0;
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        free(e);
        MPI_Finalize();
        return 1;
    }
    msgs_t out = {0}, in = {0};
    long long total = 0;
    for (int i = 0; i < ne; i++) {
        long long b = (long long)(e[i].w * unit + 0.5);
        if (b <= 0) continue;
        int both = !has_edge(e, ne, e[i].d, e[i].s); /* listed once: both directions */
        if (e[i].s == rank) push(&out, e[i].d, b);
        if (e[i].d == rank) push(&in, e[i].s, b);
        if (both) {
            if (e[i].d == rank) push(&out, e[i].s, b);
            if (e[i].s == rank) push(&in, e[i].d, b);
        }
        total += both ? 2 * b : b;
    }
    free(e);

    long long maxb = 1;
    for (int i = 0; i < out.n; i++)
        if (out.v[i].bytes > maxb) maxb = out.v[i].bytes;
    for (int i = 0; i < in.n; i++)
        if (in.v[i].bytes > maxb) maxb = in.v[i].bytes;
    /* One send buffer (contents do not matter) and one receive buffer per
     * incoming message; messages over INT_MAX bytes are refused. */
    if (maxb > 0x7fffffffLL) {
        if (rank == 0) fprintf(stderr, "replay: a message of %lld bytes is too large\n", maxb);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *sbuf = calloc((size_t)maxb, 1);
    char **rbuf = calloc((size_t)in.n + 1, sizeof(char *));
    MPI_Request *req = calloc((size_t)(in.n + out.n) + 1, sizeof(MPI_Request));
    for (int i = 0; i < in.n; i++)
        rbuf[i] = malloc((size_t)in.v[i].bytes);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        int nr = 0;
        for (int i = 0; i < in.n; i++)
            MPI_Irecv(rbuf[i], (int)in.v[i].bytes, MPI_BYTE, in.v[i].peer, it, MPI_COMM_WORLD, &req[nr++]);
        for (int i = 0; i < out.n; i++)
            MPI_Isend(sbuf, (int)out.v[i].bytes, MPI_BYTE, out.v[i].peer, it, MPI_COMM_WORLD, &req[nr++]);
        for (int k = 0; k < nr; k++) {
            int idx;
            MPI_Waitany(nr, req, &idx, MPI_STATUS_IGNORE);
        }
    }
    double mine = MPI_Wtime() - t0, worst;
    MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("MESSAGES_BYTES %lld\n", total);
        printf("COMM_TIME %.9e\n", worst / iters);
        fflush(stdout);
    }
    for (int i = 0; i < in.n; i++)
        free(rbuf[i]);
    free(rbuf);
    free(sbuf);
    free(req);
    free(out.v);
    free(in.v);
    MPI_Finalize();
    return 0;
}
