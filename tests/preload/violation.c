/* The twin of test preload_symbols (tests/preload/check_symbols.sh): what
 * the check must reject.  Built twice: as a would-be drop-in that defines
 * MPI_Wait and needs libcartcoll.so (VIOLATION_DROPIN), and as a library
 * object that calls MPI_Wait by its interposed name. */
#include <cartcoll.h>
#include <mpi.h>

#ifdef VIOLATION_DROPIN
int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    Cart_request none = CART_REQUEST_NULL;
    (void)Cart_wait(&none);
    return PMPI_Wait(request, status);
}
#else
int cc_violation_wait(MPI_Request *request);
int cc_violation_wait(MPI_Request *request) { return MPI_Wait(request, MPI_STATUS_IGNORE); }
#endif
