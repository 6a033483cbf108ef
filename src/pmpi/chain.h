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

#ifndef RANKMAP_PMPI_NO_CHAIN
#include <dlfcn.h>
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

#endif
