/*
 * program.c -- what the layer knows of the program: its names (the base
 * names of /proc/self/exe and of argv[0]), the per-program settings
 * (MPIR_CVAR_RANKMAP_SKIP_PROGRAMS, MPIR_CVAR_RANKMAP_FOLLOW_PROGRAMS), the
 * mark an earlier diagnosis left in the mapping cache
 * ($RANKMAP_WISDOM/unsafe/NAME), and the one writer of the cache's small
 * files.  At MPI_Init every process must take the same decisions, or a
 * constructor would run the reorder protocol on some processes only: one
 * allreduce over MPI_COMM_WORLD combines them.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char rml_prog_exe[256], rml_prog_arg0[256];

/* NAME into OUT, cut to fit (a base name longer than OUT matches no list) */
static void copy_name(char *out, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (n >= len)
        n = len - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

void rml_program_names(const char *argv0)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    rml_prog_exe[0] = rml_prog_arg0[0] = '\0';
    if (n > 0) {
        path[n] = '\0';
        const char *b = strrchr(path, '/');
        copy_name(rml_prog_exe, sizeof(rml_prog_exe), b ? b + 1 : path);
    }
    if (!argv0 || !*argv0)
        argv0 = program_invocation_short_name ? program_invocation_short_name : "";
    const char *b = strrchr(argv0, '/');
    copy_name(rml_prog_arg0, sizeof(rml_prog_arg0), b ? b + 1 : argv0);
    /* SimGrid's smpirun runs every program inside its own launcher, so
     * under SMPI the program is the one argv[0] names */
    if (!rml_prog_exe[0] || (!strcmp(rml_prog_exe, "smpimain") && rml_prog_arg0[0]))
        copy_name(rml_prog_exe, sizeof(rml_prog_exe), rml_prog_arg0);
}

/* NAME is an entry of the comma-separated LIST (blanks around entries ignored). */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    if (!len)
        return 0;
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ' || *p == '\t')
            p++;
        const char *e = p;
        while (*e && *e != ',')
            e++;
        const char *t = e;
        while (t > p && (t[-1] == ' ' || t[-1] == '\t'))
            t--;
        if ((size_t) (t - p) == len && !strncmp(p, name, len))
            return 1;
        p = e;
    }
    return 0;
}

int rml_program_listed(const char *list)
{
    return in_list(list, rml_prog_exe) || in_list(list, rml_prog_arg0);
}

int rml_wisdom_path(const char *sub, const char *name, const char *suffix, char *path, size_t len)
{
    const char *dir = getenv("RANKMAP_WISDOM");
    if (!dir || !*dir || !name || !name[0])
        return 0;
    int n = snprintf(path, len, "%s/%s/%s%s", dir, sub, name, suffix ? suffix : "");
    return n > 0 && (size_t) n < len;
}

int rml_wisdom_write(const char *sub, const char *path, const char *text)
{
    char dir[PATH_MAX], tmp[PATH_MAX + 64];
    const char *root = getenv("RANKMAP_WISDOM");
    if (!root || !*root)
        return 0;
    snprintf(dir, sizeof(dir), "%s", root);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return 0;
    size_t n = strlen(dir);
    snprintf(dir + n, sizeof(dir) - n, "/%s", sub);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return 0;
    /* hidden, so a writer killed before rename() (the launcher ending the
     * job) leaves nothing that looks like a mark or a hint */
    snprintf(tmp, sizeof(tmp), "%s/.rankmap.%ld.tmp", dir, (long) getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return 0;
    int bad = fprintf(f, "%s\n", text) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return 0;
    }
    return 1;
}

static const char *knob_of(const char *call)
{
    if (!strncmp(call, "MPI_Cart", 8))
        return "MPIR_CVAR_RANKMAP_CART";
    if (!strncmp(call, "MPI_Dist_graph", 14))
        return "MPIR_CVAR_RANKMAP_DIST_GRAPH";
    return "MPIR_CVAR_RANKMAP_GRAPH";
}

void rml_ways_out(const char *call, char *buf, size_t len)
{
    snprintf(buf, len, "Set MPIR_CVAR_RANKMAP_SKIP_PROGRAMS=%s (or %s=0), or " RML_DOC_HINT,
             rml_prog_exe[0] ? rml_prog_exe : "PROGRAM", knob_of(call));
}

void rml_program_agree(void)
{
    const rml_ops *o = rml.ops;
    char path[PATH_MAX];
    const char *why = NULL;
    if (rml_program_listed(rml_str(RML_S_SKIP_PROGRAMS)))
        why = "MPIR_CVAR_RANKMAP_SKIP_PROGRAMS";
    else if ((rml_wisdom_path("unsafe", rml_prog_exe, NULL, path, sizeof(path)) &&
              access(path, F_OK) == 0) ||
             (rml_wisdom_path("unsafe", rml_prog_arg0, NULL, path, sizeof(path)) &&
              access(path, F_OK) == 0))
        why = path;
    int follow = rml_program_listed(rml_str(RML_S_FOLLOW_PROGRAMS));
    int local[5] = { (int) rml_int(RML_S_CART), (int) rml_int(RML_S_GRAPH),
                     (int) rml_int(RML_S_DIST_GRAPH), why == NULL, follow };
    int all[5];
    if (o->allreduce(local, all, 5, RML_INT, RML_MIN, o->world) != 0)
        memset(all, 0, sizeof(all));
    rml.cart = all[0] && all[3];
    rml.graph = all[1] && all[3];
    rml.dist_graph = all[2] && all[3];
    rml.follow = all[4];
    if (rml_int(RML_S_VERBOSE) && rml.world_rank == 0 && !all[3])
        rml_say("%s%s%s: MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create and the _map "
                "calls keep MPI's order in this program (the address table still applies); %s",
                why && why != path ? "this program is in " : "",
                why ? why : "another process skips this program",
                why == path ? " marks this program unsafe to reorder in the call (delete it to "
                              "reorder again)"
                            : "",
                RML_DOC_HINT);
    if (rml_int(RML_S_VERBOSE) && rml.world_rank == 0 && follow && !all[4])
        rml_say("MPIR_CVAR_RANKMAP_FOLLOW_PROGRAMS names this program on some processes only: "
                "distributed graphs keep every process's own edges");
}
