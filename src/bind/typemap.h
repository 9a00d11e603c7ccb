/* What the library needs to know of a datatype's type map: size, bounds,
 * whether it is predefined, and whether it is dense -- its type map, read in
 * order, runs forward through memory without gaps or overlaps, so that a
 * block of it may be copied with memcpy (typemap.c). */
#ifndef CC_TYPEMAP_H
#define CC_TYPEMAP_H

#include <mpi.h>

/* Facts about a committed datatype used for many blocks. */
typedef struct cc_typeinfo {
    MPI_Datatype type;
    MPI_Aint size, lb, extent, true_lb, true_extent;
    int predefined;
    int dense;           /* the type map runs forward through [true_lb, true_lb + size) */
} cc_typeinfo;

/* Query a committed datatype; returns MPI_SUCCESS or an MPI error code. */
int cc_typeinfo_get(MPI_Datatype type, cc_typeinfo *ti);
#define CC_TYPEINFO_NONE { MPI_DATATYPE_NULL, 0, 0, 0, 0, 0, 0, 0 }

/* The first data byte of `count` elements of the type at addr when their
 * data is one forward run of count * size bytes, else NULL. */
char *cc_type_data(char *addr, int count, const cc_typeinfo *ti);

/* The memory `count` elements of the type occupy (count >= 1): bytes from
 * the lowest to the highest byte touched, and *origin, the offset of the
 * first element's origin from the lowest byte (a block laid out in memory m
 * starts at m + *origin). */
MPI_Aint cc_type_span(int count, const cc_typeinfo *ti, MPI_Aint *origin);

/* A derived datatype's construction (MPI_Type_get_contents) with its
 * arrays; cc_contents_free frees the arrays and the derived child types
 * MPI handed out. */
typedef struct cc_contents {
    int ni, na, nd, combiner;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
} cc_contents;

/* Returns 1 with *c filled, or 0 (predefined type, or failure). */
int cc_contents_get(MPI_Datatype type, cc_contents *c);
void cc_contents_free(cc_contents *c);

/* Whether t can be used for communication: 0 yes, 1 MPI_DATATYPE_NULL, 2
 * not committed.  `probe` is a communicator with MPI_ERRORS_RETURN (an
 * uncommitted type makes a zero-count MPI_Pack fail on every MPI we know).
 * cc_type_error turns a non-zero answer into an error code of class
 * MPI_ERR_TYPE about argument name[index] (index < 0: no index). */
int cc_type_usable(MPI_Comm probe, MPI_Datatype t);
/* Whether t is a predefined (named) datatype. */
int cc_type_named(MPI_Datatype t);
int cc_type_error(const char *who, const char *name, int index, int why);

/* A committed handle of the caller's own with the type map, bounds and
 * extent of the committed derived type t, which stays valid when the user
 * frees t: MPI_Type_dup where that keeps the type map (probed once; not so
 * in SimGrid SMPI 3.32), else a struct of one element of t. */
int cc_type_keep(MPI_Datatype t, MPI_Datatype *copy);

#endif
