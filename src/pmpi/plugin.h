/*
 * plugin.h -- librankmap-pmpi's own declarations, private to src/pmpi: the
 * PMPI operations of rankmap's MPI layer (ops.c) and the flag its
 * watched-call wrappers test (wrappers.c).
 */
#ifndef RANKMAP_PMPI_PLUGIN_H
#define RANKMAP_PMPI_PLUGIN_H

#include "rankmap_mpi.h"

#define PLUGIN_SAY_PREFIX "rankmap-pmpi: "

/* the layer's operations over PMPI_* (one table per process) */
const rml_ops *plugin_ops(void);

/* set by the layer once a reorder moved a rank (or a grid is watched): the
 * wrappers then call rml_enter / rml_leave */
extern int plugin_armed
#if defined(__GNUC__)
    __attribute__((visibility("hidden"))) /* read in every wrapper: no GOT load */
#endif
    ;

#endif
