/* Errors: MPI error classes with a sentence saying what was wrong.
 *
 * cc_error() formats the sentence, turns it into an error code of the given
 * class whose MPI_Error_string is that sentence, invokes the communicator's
 * error handler and returns the code.  Codes come from a small ring per class
 * (MPI_Add_error_code cannot be undone), so the sentence of a code stays
 * right until that class has raised CC_ERR_RING further errors.
 *
 * MPICH 4.0 cannot attach a string to a code of a predefined class (it
 * reads such codes as indices into its own error stack): there the library
 * keeps the sentences of its codes itself and defines MPI_Error_string,
 * which answers for those codes and calls PMPI_Error_string for every other
 * (errors.c).  Elsewhere a probe at first use checks that strings on codes
 * work; where they do not, the bare class is returned.  Where the MPI's own
 * handler cannot show the sentence, it is printed on stderr when the
 * handler is MPI_ERRORS_ARE_FATAL (always with CARTCOLL_VERBOSE_ERRORS=1). */
#ifndef CC_ERRORS_H
#define CC_ERRORS_H

#include <mpi.h>

#define CC_ERR_RING 32

#if defined(__GNUC__)
#define CC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CC_PRINTF(a, b)
#endif

/* Raise an error of class `cls` on `comm` (MPI_COMM_SELF when there is no
 * communicator); returns the code to return to the user. */
int cc_error(MPI_Comm comm, int cls, const char *fmt, ...) CC_PRINTF(3, 4);

/* An MPI call inside the library failed with `mpi_code`: raise an error of
 * the same class on `comm`, saying which library step failed. */
int cc_error_mpi(MPI_Comm comm, int mpi_code, const char *what);
/* The same, as a code (not raised). */
int cc_error_mpi_code(int mpi_code, const char *what);

/* Format a message without raising (for errors decided collectively):
 * returns a code of class `cls` carrying the sentence. */
int cc_error_code(int cls, const char *fmt, ...) CC_PRINTF(2, 3);

/* Invoke comm's handler with a code made by cc_error_code; returns it. */
int cc_error_raise(MPI_Comm comm, int code);

/* The class of a code (MPI_Error_class, MPI_SUCCESS for MPI_SUCCESS). */
int cc_error_class(int code);

#endif
