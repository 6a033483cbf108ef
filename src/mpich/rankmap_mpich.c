/*
 * rankmap_mpich.c -- MPICH's side of rankmap's MPI layer (rankmap_mpi.h),
 * compiled into libmpich: the build copies it into MPICH's tree, where
 * src/mpi/topo/topoutil.c includes it (patch 0002).  It gives the layer
 * MPICH's internal collectives and point-to-point in the collective context
 * (no call the program can see), the settings (rankmap_cvars.c, generated
 * by the build from src/mpilayer/settings.cvars), and is what MPICH's hooks
 * call: the topology functions (comm->topo_fns), distributed graphs, the
 * program's MPI_Bcast, MPI_Init and MPI_Finalize; and the MPIX functions
 * of mpix_rankmap.h.  Written against MPICH 4.0.2's internal API; moving to
 * a newer MPICH may need it changed with the patches (doc/mpich.md).
 */

#include "mpir_rankmap.h"
#include "rankmap_cvars.c"
#include "mpix_rankmap.h"

int MPIR_Rankmap_armed;
__thread int MPIR_Rankmap_native;
struct MPII_Topo_ops *MPIR_Rankmap_topo_fns;

#define H(c) MPIR_RANKMAP_H(c)
#define NULL_COMM ((rml_comm) MPI_COMM_NULL)
#define TAG(t) (MPIR_FIRST_HCOLL_TAG + (t))     /* unused without hcoll, below the NBC tags */

static MPIR_Comm *P(rml_comm c)
{
    MPIR_Comm *p = NULL;
    MPIR_Comm_get_ptr((MPI_Comm) c, p);
    return p;
}

/* *out = the handle of P (set by the call that returned rc) */
static int out_of(int rc, MPIR_Comm * p, rml_comm * out)
{
    *out = p ? H(p->handle) : NULL_COMM;
    return rc;
}

static int op_rank(rml_comm c) { return P(c)->rank; }
static int op_size(rml_comm c) { return P(c)->local_size; }
static int op_inter(rml_comm c) { return P(c)->comm_kind != MPIR_COMM_KIND__INTRACOMM; }
static int op_dims(int n, int nd, int *dims) { return MPIR_Dims_create_impl(n, nd, dims); }

static int op_world_ranks(rml_comm c, int n, int *world)
{
    for (int i = 0; i < n; i++) {
        uint64_t lpid = 0;      /* a process of this job: its world rank */
        MPID_Comm_get_lpid(P(c), i, &lpid, FALSE);
        world[i] = lpid < (uint64_t) MPIR_Process.size ? (int) lpid : -1;
    }
    return MPI_SUCCESS;
}

/* MPICH's collectives, each with its own error flag */
#define COLL(call) do { MPIR_Errflag_t ef = MPIR_ERR_NONE; return call; } while (0)
static int op_bcast(void *b, size_t n, int root, rml_comm c)
{ COLL(MPIR_Bcast(b, n, MPI_BYTE, root, P(c), &ef)); }
static int op_gather(const void *in, int n, void *out, int root, rml_comm c)
{ COLL(MPIR_Gather(in, n, MPI_BYTE, out, n, MPI_BYTE, root, P(c), &ef)); }
static int op_scatter(const void *in, int n, void *out, int root, rml_comm c)
{ COLL(MPIR_Scatter(in, n, MPI_BYTE, out, n, MPI_BYTE, root, P(c), &ef)); }
static int op_isend(const void *b, size_t n, int dest, int tag, rml_comm c, rml_req * r)
{ COLL(MPIC_Isend(b, n, MPI_BYTE, dest, TAG(tag), P(c), (MPIR_Request **) r, &ef)); }
static int op_irecv(void *b, size_t n, int source, int tag, rml_comm c, rml_req * r)
{ return MPIC_Irecv(b, n, MPI_BYTE, source, TAG(tag), P(c), (MPIR_Request **) r); }

static int op_allreduce(const void *in, void *out, int count, int type, int op, rml_comm c)
{
    static const MPI_Datatype types[] = { MPI_INT, MPI_LONG, MPI_DOUBLE, MPI_DOUBLE_INT };
    static const MPI_Op ops[] = { MPI_MIN, MPI_MAX, MPI_SUM, MPI_MINLOC };
    COLL(MPIR_Allreduce(in, out, count, types[type], ops[op], P(c), &ef));
}

static int op_gatherv(const void *in, int bytes, void *out, const int *counts, const int *displs,
                      int root, rml_comm c)
{
    int n = P(c)->rank == root ? P(c)->local_size : 0, rc;
    MPI_Aint *cd = MPL_malloc((2 * (size_t) n + 1) * sizeof(MPI_Aint), MPL_MEM_OTHER);
    MPIR_Errflag_t ef = MPIR_ERR_NONE;
    if (!cd)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        cd[i] = counts[i], cd[n + i] = displs[i];
    rc = MPIR_Gatherv(in, bytes, MPI_BYTE, out, cd, cd + n, MPI_BYTE, root, P(c), &ef);
    MPL_free(cd);
    return rc;
}

static int op_waitany(int n, rml_req * r, int *index, int *source)
{
    int rc = MPIR_Waitany_impl(n, (MPIR_Request **) r, index, MPI_STATUS_IGNORE);
    MPIR_Request *q = rc || *index == MPI_UNDEFINED ? NULL : (MPIR_Request *) r[*index];
    if (!q)
        return (*index = -1), rc;
    *source = q->status.MPI_SOURCE;
    rc = q->status.MPI_ERROR;
    MPIR_Request_free(q);
    r[*index] = 0;
    return rc;
}

static int op_split(rml_comm c, int color, int key, rml_comm * out)
{
    MPIR_Comm *n = NULL;
    int rc = MPIR_Comm_split_impl(P(c), color < 0 ? MPI_UNDEFINED : color, key, &n);
    return out_of(rc, n, out);
}

static int op_split_shared(rml_comm c, int key, rml_comm * out)
{
    MPIR_Comm *n = NULL;
    int rc = MPIR_Comm_split_type_impl(P(c), MPI_COMM_TYPE_SHARED, key, NULL, &n);
    return out_of(rc, n, out);
}

static void op_comm_free(rml_comm * c)
{
    if (*c != NULL_COMM)
        MPIR_Comm_release(P(*c));
    *c = NULL_COMM;
}

/* MPICH's constructors: reorder=1 would only split in the same order */
static int op_cart(rml_comm c, int nd, const int *dims, const int *per, int reorder, rml_comm * out)
{
    MPIR_Comm *n = NULL;
    int rc = MPIR_Cart_create_impl(P(c), nd, dims, per, 0, &n);
    return out_of(rc, n, out);
}

static int op_graph(rml_comm c, int nn, const int *idx, const int *edges, int reorder,
                    rml_comm * out)
{
    MPIR_Comm *n = NULL;
    int rc = MPIR_Graph_create_impl(P(c), nn, idx, edges, 0, &n);
    return out_of(rc, n, out);
}

static int op_dist(rml_comm c, int n, const int *src, const int *deg, const int *dst,
                   const int *w, rml_info info, int reorder, rml_comm * out)
{
    MPIR_Comm *nc = NULL;
    MPIR_Rankmap_native = 1;
    int rc = MPIR_Dist_graph_create_impl(P(c), n, src, deg, dst, w, (MPIR_Info *) info, 0, &nc);
    MPIR_Rankmap_native = 0;
    return out_of(rc, nc, out);
}

static int op_dist_adj(rml_comm c, int indeg, const int *src, const int *sw, int outdeg,
                       const int *dst, const int *dw, rml_info info, int reorder, rml_comm * out)
{
    MPIR_Comm *nc = NULL;
    MPIR_Rankmap_native = 1;
    int rc = MPIR_Dist_graph_create_adjacent_impl(P(c), indeg, src, sw, outdeg, dst, dw,
                                                  (MPIR_Info *) info, 0, &nc);
    MPIR_Rankmap_native = 0;
    return out_of(rc, nc, out);
}

static int op_info_get(rml_info info, const char *key, char *value, int len)
{
    int flag = 0;
    return info && MPIR_Info_get_impl((MPIR_Info *) info, key, len - 1, value, &flag) == 0 && flag;
}

/* the layer's cache of a communicator: an attribute freed with it */
static int keyval = MPI_KEYVAL_INVALID;
static int cached_delete(MPI_Comm comm, int key, void *v, void *x) { return rml_cache_free(v), 0; }

static int op_attr_get(rml_comm c, void **value)
{
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID && MPIR_Comm_create_keyval_impl(NULL, cached_delete, &keyval, 0))
        return 0;
    return !MPIR_Comm_get_attr_impl(P(c), keyval, value, &flag, MPIR_ATTR_PTR) && flag;
}

static int op_attr_set(rml_comm c, void *value)
{
    MPII_Keyval *kp = NULL;
    MPII_Keyval_get_ptr(keyval, kp);
    return MPIR_Comm_set_attr_impl(P(c), kp, value, MPIR_ATTR_PTR);
}

static rml_ops ops = {
    .prefix = "MPICH rankmap: ", .path = "mpich", .world = (rml_comm) MPI_COMM_WORLD,
    .comm_null = NULL_COMM, .undefined = MPI_UNDEFINED, .any_source = MPI_ANY_SOURCE,
    .err_other = MPI_ERR_OTHER, .err_nomem = MPI_ERR_NO_MEM, .setting = MPIR_Rankmap_setting,
    .rank = op_rank, .size = op_size, .is_inter = op_inter, .world_ranks = op_world_ranks,
    .bcast = op_bcast, .allreduce = op_allreduce, .gather = op_gather, .gatherv = op_gatherv,
    .scatter = op_scatter, .isend = op_isend, .irecv = op_irecv, .waitany = op_waitany,
    .split = op_split, .split_shared = op_split_shared,
    .comm_free = op_comm_free, .dims_create = op_dims, .cart_create = op_cart,
    .graph_create = op_graph, .dist_graph_create = op_dist, .dist_graph_adjacent = op_dist_adj,
    .info_get = op_info_get, .attr_get = op_attr_get, .attr_set = op_attr_set,
    .armed = &MPIR_Rankmap_armed
};

/* ---- the hooks ----------------------------------------------------------- */

static int cart_create(const MPIR_Comm * c, int nd, const int dims[], const int periods[],
                       int reorder, MPI_Comm * out)
{
    rml_comm o = NULL_COMM;
    int rc = rml_cart_create(H(c->handle), nd, dims, periods, reorder, &o);
    return (*out = (MPI_Comm) o), rc;
}

static int cart_map(const MPIR_Comm * c, int nd, const int dims[], const int periods[], int *r)
{
    return rml_cart_map(H(c->handle), nd, dims, periods, r);
}

static int graph_create(const MPIR_Comm * c, int nn, const int idx[], const int edges[],
                        int reorder, MPI_Comm * out)
{
    rml_comm o = NULL_COMM;
    int rc = rml_graph_create(H(c->handle), nn, idx, edges, reorder, &o);
    return (*out = (MPI_Comm) o), rc;
}

static int graph_map(const MPIR_Comm * c, int nn, const int idx[], const int edges[], int *r)
{
    return rml_graph_map(H(c->handle), nn, idx, edges, r);
}

static MPII_Topo_ops topo_fns = { cart_create, cart_map, graph_create, graph_map };

int MPIR_Rankmap_dist_graph_create(MPIR_Comm * c, int n, const int sources[], const int degrees[],
                                   const int dests[], const int weights[], MPIR_Info * info,
                                   int reorder, MPIR_Comm ** out)
{
    rml_comm o = NULL_COMM;
    int rc = rml_dist_graph_create(H(c->handle), n, sources, degrees, dests, weights,
                                   (rml_info) info, reorder, &o);
    return (*out = o == NULL_COMM ? NULL : P(o)), rc;
}

int MPIR_Rankmap_dist_graph_adjacent(MPIR_Comm * c, int indeg, const int sources[],
                                     const int sw[], int outdeg, const int dests[],
                                     const int dw[], MPIR_Info * info, int reorder,
                                     MPIR_Comm ** out)
{
    rml_comm o = NULL_COMM;
    int rc = rml_dist_graph_create_adjacent(H(c->handle), indeg, sources, sw, outdeg, dests, dw,
                                            (rml_info) info, reorder, &o);
    return (*out = o == NULL_COMM ? NULL : P(o)), rc;
}

/* The program's MPI_Bcast: 1 when the layer ran it.  Every process asks
 * the layer, whatever its datatype (the type maps may differ between
 * processes, the bytes may not): non-contiguous data is packed. */
int MPIR_Rankmap_bcast(void *buf, MPI_Aint count, MPI_Datatype type, int root,
                       MPIR_Comm * comm_ptr, int *mpi_errno)
{
    MPI_Aint size, lb, extent;
    int contig = 1, done, me = comm_ptr->rank;
    rml_comm c = H(comm_ptr->handle);
    if (!MPIR_Rankmap_topo_fns || count <= 0)
        return 0;
    MPIR_Datatype_get_size_macro(type, size);
    size_t bytes = (size_t) count * (size_t) size;
    if (!HANDLE_IS_BUILTIN(type))
        MPIR_Datatype_is_contig(type, &contig);
    if (contig) {
        MPIR_Type_get_true_extent_impl(type, &lb, &extent);
        return rml_bcast((char *) buf + lb, bytes, root, c, mpi_errno);
    }
    char *tmp = rml_bcast_applies(bytes, c) ? MPL_malloc(bytes, MPL_MEM_BUFFER) : NULL;
    if (!tmp)   /* not a box, or out of memory: MPICH's broadcast */
        return 0;
    *mpi_errno = me == root ? MPIR_Localcopy(buf, count, type, tmp, bytes, MPI_BYTE) : 0;
    done = rml_bcast(tmp, bytes, root, c, mpi_errno);
    if (done && !*mpi_errno && me != root)
        *mpi_errno = MPIR_Localcopy(tmp, bytes, MPI_BYTE, buf, count, type);
    MPL_free(tmp);
    return done;
}

int MPIR_Rankmap_init(const char *argv0)
{
    ops.unweighted = MPI_UNWEIGHTED, ops.weights_empty = MPI_WEIGHTS_EMPTY;
    int rc = rml_init(&ops, argv0);
    if (rc == MPI_SUCCESS && rml_enabled()) {
        MPIR_Rankmap_topo_fns = MPIR_Process.comm_world->topo_fns = &topo_fns;
        if (MPIR_Process.comm_self)
            MPIR_Process.comm_self->topo_fns = &topo_fns;
    }
    return rc;
}

void MPIR_Rankmap_finalize(void)
{
    rml_finalize();
    MPIR_Rankmap_topo_fns = NULL;
}

/* ---- the MPIX functions (mpix_rankmap.h) ---------------------------------- */

#define STATUS(rc) ((rc) == 0 ? MPI_SUCCESS : (rc) == -2 ? MPI_ERR_RANK : MPI_ERR_OTHER)
int MPIX_Torus_ndims(int *ndims) { return (*ndims = rml_torus_ndims()), MPI_SUCCESS; }
int MPIX_Torus_dims(int *dims) { return STATUS(rml_torus_dims(dims)); }
int MPIX_Rank2torus(int rank, int *coords) { return STATUS(rml_rank2torus(rank, coords)); }
int MPIX_Rankmap_distance(int a, int b, double *d) { return STATUS(rml_distance(a, b, d)); }

int MPIX_Torus2rank(const int *coords, int *rank)
{
    int rc = rml_torus2rank(coords, rank);
    if (rc == 0 && *rank < 0)
        *rank = MPI_PROC_NULL;
    return STATUS(rc);
}

int MPIX_Rankmap_last_report(MPIX_Rankmap_report * report)
{
    typedef char same_fields[sizeof(rml_report) == sizeof(*report) ? 1 : -1];
    rml_last_report((rml_report *) report);
    return MPI_SUCCESS;
}
