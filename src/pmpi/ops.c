/*
 * ops.c -- librankmap-pmpi: the communication operations of rankmap's MPI
 * layer (include/rankmap_mpi.h) over the PMPI interface, for any MPI:
 * Debian's MPICH, Open MPI and SimGrid's SMPI build the same file with
 * their own mpi.h.  Collectives run on the program's communicators (their
 * context is apart from point-to-point); the layer's point-to-point runs on
 * a duplicate (private_comm), so it never meets the program's messages.
 * Settings come from the environment with MPICH's spellings
 * (MPICH_RANKMAP_X, MPIR_PARAM_RANKMAP_X, MPIR_CVAR_RANKMAP_X; the last
 * wins), so one job script drives the plugin and the patched MPICH alike.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/plugin.h"

/* Handles as the layer's integers: an MPICH handle is an int, an Open MPI
 * or SMPI handle a pointer; both round-trip through uintptr_t. */
#define TO_U(h) ((uintptr_t) (h))
#define COMM(u) ((MPI_Comm) (u))
#define REQ(u) ((MPI_Request) (u))
#define INFO(u) ((MPI_Info) (u))

static const char *setting(const char *name)
{
    static const char *prefixes[] = { "MPICH_RANKMAP_", "MPIR_PARAM_RANKMAP_",
                                      "MPIR_CVAR_RANKMAP_" };
    const char *value = NULL;
    char var[96];
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        snprintf(var, sizeof(var), "%s%s", prefixes[i], name);
        const char *v = getenv(var);
        if (v)
            value = v;
    }
#ifdef RANKMAP_PMPI_SMPI
    /* simulated processes share one process of the host: no watchdog thread */
    if (!strcmp(name, "WATCHDOG"))
        return "0";
#endif
    return value;
}

static int op_rank(rml_comm c)
{
    int r = -1;
    PMPI_Comm_rank(COMM(c), &r);
    return r;
}

static int op_size(rml_comm c)
{
    int s = 0;
    PMPI_Comm_size(COMM(c), &s);
    return s;
}

static int op_is_inter(rml_comm c)
{
    int inter = 1;
    return PMPI_Comm_test_inter(COMM(c), &inter) != MPI_SUCCESS || inter;
}

static int op_world_ranks(rml_comm c, int n, int *world)
{
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    int *mine = malloc((size_t) n * sizeof(int)), rc = MPI_ERR_NO_MEM;
    if (!mine)
        return rc;
    for (int i = 0; i < n; i++)
        mine[i] = i;
    if ((rc = PMPI_Comm_group(COMM(c), &g)) == MPI_SUCCESS &&
        (rc = PMPI_Comm_group(MPI_COMM_WORLD, &wg)) == MPI_SUCCESS)
        rc = PMPI_Group_translate_ranks(g, n, mine, wg, world);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (world[i] == MPI_UNDEFINED)
            world[i] = -1;
    if (g != MPI_GROUP_NULL)
        PMPI_Group_free(&g);
    if (wg != MPI_GROUP_NULL)
        PMPI_Group_free(&wg);
    free(mine);
    return rc;
}

/* in pieces below 2 GiB: the count of MPI_Bcast is an int */
static int op_bcast(void *buf, size_t bytes, int root, rml_comm c)
{
    enum { PIECE = 1 << 30 };
    size_t off = 0;
    int rc;
    do {
        size_t n = bytes - off < PIECE ? bytes - off : PIECE;
        rc = PMPI_Bcast((char *) buf + off, (int) n, MPI_BYTE, root, COMM(c));
        off += n;
    } while (rc == MPI_SUCCESS && off < bytes);
    return rc;
}

static int op_allreduce(const void *in, void *out, int count, int type, int op, rml_comm c)
{
    static const MPI_Datatype types[] = { MPI_INT, MPI_LONG, MPI_DOUBLE, MPI_DOUBLE_INT };
    MPI_Op ops[] = { MPI_MIN, MPI_MAX, MPI_SUM, MPI_MINLOC };
    return PMPI_Allreduce((void *) in, out, count, types[type], ops[op], COMM(c));
}

static int op_gather(const void *in, int bytes, void *out, int root, rml_comm c)
{
    return PMPI_Gather((void *) in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, root, COMM(c));
}

static int op_gatherv(const void *in, int bytes, void *out, const int *counts, const int *displs,
                      int root, rml_comm c)
{
    return PMPI_Gatherv((void *) in, bytes, MPI_BYTE, out, (int *) counts, (int *) displs,
                        MPI_BYTE, root, COMM(c));
}

static int op_scatter(const void *in, int bytes, void *out, int root, rml_comm c)
{
    return PMPI_Scatter((void *) in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, root, COMM(c));
}

static int op_isend(const void *buf, size_t bytes, int dest, int tag, rml_comm c, rml_req *r)
{
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = PMPI_Isend((void *) buf, (int) bytes, MPI_BYTE, dest, tag, COMM(c), &q);
    *r = rc == MPI_SUCCESS ? TO_U(q) : 0;
    return rc;
}

static int op_irecv(void *buf, size_t bytes, int source, int tag, rml_comm c, rml_req *r)
{
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = PMPI_Irecv(buf, (int) bytes, MPI_BYTE, source, tag, COMM(c), &q);
    *r = rc == MPI_SUCCESS ? TO_U(q) : 0;
    return rc;
}

static int op_waitany(int n, rml_req *r, int *index, int *source)
{
    MPI_Request stack[64], *q = n <= 64 ? stack : malloc((size_t) n * sizeof(*q));
    MPI_Status st;
    if (!q)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        q[i] = r[i] ? REQ(r[i]) : MPI_REQUEST_NULL;
    int rc = PMPI_Waitany(n, q, index, &st);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) {
        r[*index] = 0;
        *source = st.MPI_SOURCE;
    } else if (rc == MPI_SUCCESS) {
        *index = -1;
    }
    if (q != stack)
        free(q);
    return rc;
}

static int op_private_comm(rml_comm c, rml_comm *priv)
{
    MPI_Comm d = MPI_COMM_NULL;
    int rc = PMPI_Comm_dup(COMM(c), &d);
    *priv = TO_U(d);
    return rc;
}

static void op_private_free(rml_comm *priv)
{
    MPI_Comm d = COMM(*priv);
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (d != MPI_COMM_NULL && !finalized)
        PMPI_Comm_free(&d);
    *priv = TO_U(MPI_COMM_NULL);
}

static int op_split(rml_comm c, int color, int key, rml_comm *out)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = PMPI_Comm_split(COMM(c), color < 0 ? MPI_UNDEFINED : color, key, &n);
    *out = TO_U(n);
    return rc;
}

static int op_split_shared(rml_comm c, int key, rml_comm *out)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = PMPI_Comm_split_type(COMM(c), MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, &n);
    *out = TO_U(n);
    return rc;
}

static int op_processor_name(char *name, int len)
{
    char buf[MPI_MAX_PROCESSOR_NAME];
    int n = 0, rc = PMPI_Get_processor_name(buf, &n);
    if (rc == MPI_SUCCESS)
        snprintf(name, (size_t) len, "%.*s", n, buf);
    return rc;
}

static void op_comm_free(rml_comm *c)
{
    MPI_Comm n = COMM(*c);
    if (n != MPI_COMM_NULL)
        PMPI_Comm_free(&n);
    *c = TO_U(MPI_COMM_NULL);
}

static int op_dims_create(int nnodes, int ndims, int *dims)
{
    return PMPI_Dims_create(nnodes, ndims, dims);
}

static int op_cart_create(rml_comm c, int ndims, const int *dims, const int *periods, int reorder,
                          rml_comm *out)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = PMPI_Cart_create(COMM(c), ndims, (int *) dims, (int *) periods, reorder, &n);
    *out = TO_U(n);
    return rc;
}

static int op_graph_create(rml_comm c, int nnodes, const int *index, const int *edges,
                           int reorder, rml_comm *out)
{
    MPI_Comm n = MPI_COMM_NULL;
    int rc = PMPI_Graph_create(COMM(c), nnodes, (int *) index, (int *) edges, reorder, &n);
    *out = TO_U(n);
    return rc;
}

static int op_dist_graph_create(rml_comm c, int n, const int *sources, const int *degrees,
                                const int *destinations, const int *weights, rml_info info,
                                int reorder, rml_comm *out)
{
    MPI_Comm nc = MPI_COMM_NULL;
    int rc = PMPI_Dist_graph_create(COMM(c), n, (int *) sources, (int *) degrees,
                                    (int *) destinations, (int *) weights, INFO(info), reorder,
                                    &nc);
    *out = TO_U(nc);
    return rc;
}

static int op_dist_graph_adjacent(rml_comm c, int indegree, const int *sources,
                                  const int *sourceweights, int outdegree,
                                  const int *destinations, const int *destweights, rml_info info,
                                  int reorder, rml_comm *out)
{
    MPI_Comm nc = MPI_COMM_NULL;
    int rc = PMPI_Dist_graph_create_adjacent(COMM(c), indegree, (int *) sources,
                                             (int *) sourceweights, outdegree,
                                             (int *) destinations, (int *) destweights,
                                             INFO(info), reorder, &nc);
    *out = TO_U(nc);
    return rc;
}

static int op_info_get(rml_info info, const char *key, char *value, int len)
{
    int flag = 0;
    if (INFO(info) == MPI_INFO_NULL || len < 2)
        return 0;
    if (PMPI_Info_get(INFO(info), (char *) key, len - 1, value, &flag) != MPI_SUCCESS)
        return 0;
    return flag != 0;
}

/* ---- attribute caching -------------------------------------------------------- */

static int keyval = MPI_KEYVAL_INVALID;

static int cached_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void) comm, (void) key, (void) extra;
    rml_cache_free(value);
    return MPI_SUCCESS;
}

static int op_attr_get(rml_comm c, void **value)
{
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID &&
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cached_delete, &keyval, NULL) != MPI_SUCCESS)
        return 0;
    return PMPI_Comm_get_attr(COMM(c), keyval, value, &flag) == MPI_SUCCESS && flag;
}

static int op_attr_set(rml_comm c, void *value)
{
    return PMPI_Comm_set_attr(COMM(c), keyval, value);
}

/* ---- the table ------------------------------------------------------------------ */

int plugin_armed;

const rml_ops *plugin_ops(void)
{
    static rml_ops o;
    o.prefix = PLUGIN_SAY_PREFIX;
    o.path = "plugin";
    o.world = TO_U(MPI_COMM_WORLD);
    o.comm_null = TO_U(MPI_COMM_NULL);
    o.undefined = MPI_UNDEFINED;
    o.any_source = MPI_ANY_SOURCE;
    o.err_other = MPI_ERR_OTHER;
    o.err_nomem = MPI_ERR_NO_MEM;
    o.unweighted = MPI_UNWEIGHTED;
    o.weights_empty = MPI_WEIGHTS_EMPTY;
    o.setting = setting;
    o.rank = op_rank;
    o.size = op_size;
    o.is_inter = op_is_inter;
    o.world_ranks = op_world_ranks;
    o.bcast = op_bcast;
    o.allreduce = op_allreduce;
    o.gather = op_gather;
    o.gatherv = op_gatherv;
    o.scatter = op_scatter;
    o.isend = op_isend;
    o.irecv = op_irecv;
    o.waitany = op_waitany;
    o.private_comm = op_private_comm;
    o.private_free = op_private_free;
    o.split = op_split;
    o.split_shared = op_split_shared;
    o.comm_free = op_comm_free;
    o.dims_create = op_dims_create;
    o.cart_create = op_cart_create;
    o.graph_create = op_graph_create;
    o.dist_graph_create = op_dist_graph_create;
    o.dist_graph_adjacent = op_dist_graph_adjacent;
    o.info_get = op_info_get;
    o.attr_get = op_attr_get;
    o.attr_set = op_attr_set;
    o.armed = &plugin_armed;
    o.processor_name = op_processor_name;
    return &o;
}
