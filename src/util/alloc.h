/* The one checked allocator for arrays.  Pure C, no MPI.
 *
 * Arrays here are often empty (no neighbours, no copies, no temporaries),
 * and malloc(0) may return NULL, which would read as "out of memory": an
 * array of n elements always gets room for at least one.  A size that does
 * not fit size_t is refused (NULL) instead of wrapping around. */
#ifndef CC_ALLOC_H
#define CC_ALLOC_H

#include <stdint.h>
#include <stdlib.h>

/* n elements of `size` bytes (at least one element); NULL when out of
 * memory or when n * size overflows. */
static inline void *cc_alloc_array(size_t n, size_t size)
{
    if (n == 0) n = 1;
    if (size && n > SIZE_MAX / size) return NULL;
    return malloc(n * size);
}

/* The same, zero-filled. */
static inline void *cc_alloc_zarray(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

#endif
