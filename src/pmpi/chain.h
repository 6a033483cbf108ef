/*
 * chain.h -- MPI_Init / MPI_Init_thread / MPI_Finalize of the next PMPI
 * layer, private to src/pmpi.
 *
 * Both librankmap-pmpi and librankmap-profile wrap MPI_Init and
 * MPI_Finalize.  Calling PMPI_Init directly would skip any other tool
 * preloaded after this one (e.g. both rankmap libraries in one LD_PRELOAD),
 * so the wrappers call the next definition of MPI_Init in the lookup order
 * (dlsym(RTLD_NEXT)): another tool, or the MPI library itself.  When no next
 * definition is found (static links; SimGrid, where the program is loaded
 * by smpirun and built with -DRANKMAP_PMPI_NO_CHAIN) the PMPI_ entry is used.
 */
#ifndef RANKMAP_PMPI_CHAIN_H
#define RANKMAP_PMPI_CHAIN_H

#include <mpi.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>

#ifndef RANKMAP_PMPI_NO_CHAIN
#include <dlfcn.h>
#include <unistd.h>
#endif

typedef int (*chain_init_fn)(int *, char ***);
typedef int (*chain_init_thread_fn)(int *, char ***, int, int *);
typedef int (*chain_finalize_fn)(void);

/* The next definition of NAME after this library, or NULL if there is none
 * or it is SELF (static links resolve back to ourselves). */
static inline void *chain_next(const char *name, void *self)
{
#ifndef RANKMAP_PMPI_NO_CHAIN
    void *f = dlsym(RTLD_NEXT, name);
    return f == self ? NULL : f;
#else
    (void) name;
    (void) self;
    return NULL;
#endif
}

/* A function pointer of any type: the wrappers' cache of the definition
 * each of them calls. */
typedef void (*chain_fn)(void);

/* The definition a wrapper of NAME calls: the next one after this library,
 * or PMPI when there is none or it is SELF; found once and kept in *SLOT.
 * Out of line, so a wrapper's common path (chain_next_fn) stays a load, a
 * test and a jump. */
__attribute__((noinline, unused)) static chain_fn chain_next_of(chain_fn *slot, const char *name,
                                                                chain_fn pmpi, chain_fn self)
{
    chain_fn f = pmpi;
    void *self_p, *sym;
    memcpy(&self_p, &self, sizeof(self_p));
    sym = chain_next(name, self_p);
    if (sym)
        memcpy(&f, &sym, sizeof(f));
    __atomic_store_n(slot, f, __ATOMIC_RELAXED);
    return f;
}

static inline chain_fn chain_next_fn(chain_fn *slot, const char *name, chain_fn pmpi,
                                     chain_fn self)
{
    chain_fn f = __atomic_load_n(slot, __ATOMIC_RELAXED);
    return __builtin_expect(f != NULL, 1) ? f : chain_next_of(slot, name, pmpi, self);
}

static inline int chain_init(int *argc, char ***argv, void *self)
{
    chain_init_fn next;
    void *f = chain_next("MPI_Init", self);
    if (!f)
        return PMPI_Init(argc, argv);
    memcpy(&next, &f, sizeof(next));
    return next(argc, argv);
}

static inline int chain_init_thread(int *argc, char ***argv, int required, int *provided,
                                    void *self)
{
    chain_init_thread_fn next;
    void *f = chain_next("MPI_Init_thread", self);
    if (!f)
        return PMPI_Init_thread(argc, argv, required, provided);
    memcpy(&next, &f, sizeof(next));
    return next(argc, argv, required, provided);
}

static inline int chain_finalize(void *self)
{
    chain_finalize_fn next;
    void *f = chain_next("MPI_Finalize", self);
    if (!f)
        return PMPI_Finalize();
    memcpy(&next, &f, sizeof(next));
    return next();
}

/* Whether this process's MPI library is the one the plugin was built for
 * (RANKMAP_PMPI_FLAVOUR_LIB).  A plugin built for one MPI (the handle types
 * and constants of its mpi.h: MPICH's handles are ints, Open MPI's
 * pointers) cannot even pass a call through to another MPI: every wrapper
 * would truncate or misread the handles.  So the check runs in a
 * constructor, before main: on a mismatch it prints one line naming the
 * plugin to preload instead (on the process the launcher calls rank 0, or on
 * every process when the launcher does not say), takes itself out of
 * LD_PRELOAD and executes the program again, which then runs without
 * rankmap.  If that is impossible it returns 0 and the caller makes no MPI
 * call of its own.  SMPI builds (RANKMAP_PMPI_NO_CHAIN) are linked into the
 * program and need no check. */
static inline int chain_flavour_ok(void *self, int argc, char **argv)
{
#if !defined(RANKMAP_PMPI_NO_CHAIN) && defined(RANKMAP_PMPI_SELF)
    Dl_info info, mine;
    void *f = dlsym(RTLD_DEFAULT, "PMPI_Comm_size");
    if (!f || !dladdr(f, &info) || !info.dli_fname)
        return 1; /* cannot tell: assume the build's own MPI */
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (strstr(base, RANKMAP_PMPI_FLAVOUR_LIB))
        return 1;
    static const char *rank_vars[] = { "PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "SLURM_PROCID" };
    const char *rank = NULL;
    for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && !rank; i++)
        rank = getenv(rank_vars[i]);
    if (!getenv("RANKMAP_PMPI_FOREIGN") && (!rank || !strcmp(rank, "0"))) {
        if (strstr(base, RANKMAP_PMPI_OTHER_LIB))
            fprintf(stderr, "%s: this program's MPI is %s, %s is built for %s: preload %s instead; "
                            "running without rankmap\n",
                    RANKMAP_PMPI_SELF, base, RANKMAP_PMPI_SELF, RANKMAP_PMPI_FLAVOUR_LIB,
                    RANKMAP_PMPI_INSTEAD);
        else
            fprintf(stderr, "%s: this program's MPI is %s, %s is built for %s and no rankmap "
                            "plugin is built for it; running without rankmap\n",
                    RANKMAP_PMPI_SELF, base, RANKMAP_PMPI_SELF, RANKMAP_PMPI_FLAVOUR_LIB);
        fflush(stderr);
    }
    /* LD_PRELOAD without this library (entries are separated by ':' or ' ') */
    const char *pre = getenv("LD_PRELOAD");
    if (getenv("RANKMAP_PMPI_FOREIGN") || !pre || !argv || argc < 1 || !dladdr(self, &mine) ||
        !mine.dli_fname)
        return 0;
    const char *me = strrchr(mine.dli_fname, '/');
    me = me ? me + 1 : mine.dli_fname;
    size_t n = strlen(pre);
    char *rest = (char *) malloc(n + 1), *copy = strdup(pre);
    if (!rest || !copy) {
        free(rest);
        free(copy);
        return 0;
    }
    rest[0] = '\0';
    int removed = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ": ", &save); tok; tok = strtok_r(NULL, ": ", &save)) {
        const char *b = strrchr(tok, '/');
        if (!strcmp(b ? b + 1 : tok, me)) {
            removed = 1;
            continue;
        }
        if (rest[0])
            strcat(rest, ":");
        strcat(rest, tok);
    }
    free(copy);
    if (removed) {
        setenv("RANKMAP_PMPI_FOREIGN", RANKMAP_PMPI_SELF, 1); /* no second message, no loop */
        if (rest[0])
            setenv("LD_PRELOAD", rest, 1);
        else
            unsetenv("LD_PRELOAD");
        execv("/proc/self/exe", argv);
        /* still here: run on, the wrappers stay out of the way */
    }
    free(rest);
    return 0;
#else
    (void) self;
    (void) argc;
    (void) argv;
    return 1;
#endif
}

#endif
