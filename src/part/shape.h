/* Partition arithmetic of the partitioned collectives: the whole counts of
 * a call (partitions times elements, as the collective on whole buffers
 * takes them) and the numbering of this process's partitions
 * (cc_part_shape). */
#ifndef CC_PART_SHAPE_H
#define CC_PART_SHAPE_H

#include "part/part.h"
#include "part/pcoll.h"

/* A call's whole counts: ONE_BUFFER and regular sides: elements (ns, nr);
 * v and w sides: per block (swc, rwc) and, v, int displacements (swd,
 * rwd), freed by cc_part_counts_free. */
typedef struct {
    int ns, nr;
    int *swc, *swd, *rwc, *rwd;
} cc_part_counts;

/* MPI_IN_PLACE given where the collective allows it (row's shape). */
int cc_part_in_place(const cc_pcoll *row, const cc_pargs *a, const where *w);
/* This process sends partitions / receives partitions. */
int cc_part_sends(const cc_pcoll *row, const cc_pargs *a, const where *w);
int cc_part_receives(const cc_pcoll *row, const cc_pargs *a, const where *w);

/* Check the partition arguments of call a (the collective checks the
 * rest) and compute its whole counts.  Returns MPI_SUCCESS or an error
 * raised on comm. */
int cc_part_counts_of(const cc_pcoll *row, const cc_pargs *a, const where *w, MPI_Comm comm, cc_part_counts *k);
void cc_part_counts_free(cc_part_counts *k);

/* Where this process's partitions go and come from (s->soff, s->roff are
 * the caller's to free).  Returns MPI_SUCCESS or an error raised on
 * comm. */
int cc_part_shape_of(const cc_pcoll *row, const cc_pargs *a, const where *w, MPI_Comm comm, cc_part_shape *s);

#endif
