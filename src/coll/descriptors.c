/* The descriptors of the collectives (coll/coll.h: cc_coll): their checks'
 * flags, their neighbourhood meaning and MPI's blocking, non-blocking and
 * persistent call, one per row of maint/collectives.py
 * (coll/collectives.gen.h). */
#include "coll/coll.h"
#include "coll/family.h"

#ifdef OPEN_MPI
#include <mpi-ext.h> /* OMPI_HAVE_MPI_EXT_PCOLLREQ: MPIX_X_init */
#endif

/* MPI's persistent collective X_init(args..., info, request), if any. */
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define CC_PINIT(Upper) MPIX_##Upper##_init
#elif MPI_VERSION >= 4
#define CC_PINIT(Upper) MPI_##Upper##_init
#endif
#if defined(__GNUC__) || defined(__clang__)
#define CC_UNUSED __attribute__((unused)) /* (CC_PINIT_SUSPECT on MPICH) */
#else
#define CC_UNUSED
#endif
#ifdef CC_PINIT
#define CC_PINIT_FN(Upper, ...)                                                              \
    CC_UNUSED static int Upper##_pinit(const cc_call *c, MPI_Info info, MPI_Request *rq)      \
    {                                                                                         \
        return CC_PINIT(Upper)(__VA_ARGS__, info, rq);                                         \
    }
#define CC_PINIT_PTR(Upper) Upper##_pinit
#else
#define CC_PINIT_FN(Upper, ...)
#define CC_PINIT_PTR(Upper) NULL
#endif
/* MPICH 4.0's persistent gather, scatter and allgather deliver wrong data
 * (tests/mpi/README.md): their families keep the non-blocking calls. */
#ifdef MPICH_VERSION
#define CC_PINIT_SUSPECT(Upper) NULL
#else
#define CC_PINIT_SUSPECT(Upper) CC_PINIT_PTR(Upper)
#endif

/* The MPI calls of a collective and its descriptor.  `lower` and `Upper`
 * spell the MPI name (MPI_Ibcast, MPI_Bcast); `pinit` is CC_PINIT_PTR or
 * CC_PINIT_SUSPECT: whether MPI's persistent form is used. */
#define CC_COLL(lower, Upper, pinit, nbh, variant, plan, flags, ...)                          \
    static int Upper##_blocking(const cc_call *c) { return MPI_##Upper(__VA_ARGS__); }        \
    static int Upper##_istart(const cc_mpirun *m, MPI_Request *rq)                            \
    {                                                                                         \
        const cc_call *c = &m->call;                                                          \
        return MPI_I##lower(__VA_ARGS__, rq);                                                 \
    }                                                                                         \
    CC_PINIT_FN(Upper, __VA_ARGS__)                                                           \
    const cc_coll cc_coll_##lower = { #lower, flags, nbh, variant, Upper##_blocking, Upper##_istart,  \
                                      pinit(Upper), NULL, plan };

/* A collective MPI lacks: global meaning runs it as `via`'s call. */
#define CC_COLL_VIA(lower, nbh, variant, plan, flags, via) \
    const cc_coll cc_coll_##lower = { #lower, flags, nbh, variant, NULL, NULL, NULL, &cc_coll_##via, plan };

/* The descriptors, one per row of maint/collectives.py
 * (coll/collectives.gen.h). */
CC_COLLECTIVES(CC_COLL)
CC_COLLECTIVES_VIA(CC_COLL_VIA)
