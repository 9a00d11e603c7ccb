/* test_leak: SimGrid SMPI 3.32 slows down quadratically when MPI_Test
 * completes receives (docs/scale.md, "Where the simulator's time went").
 *
 *   smpicc -O2 -o /tmp/test_leak scripts/smpi/test_leak.c
 *   scripts/scale.sh --quick --cases moore:2,3 --ops alltoall -m 1   # makes the hostfile
 *   for n in 40 80 160; do for how in wait test; do
 *     /usr/bin/time -f "$how $n: %e s" smpirun -np 256 -platform scripts/platforms/hydra.xml \
 *       -hostfile build/scale/hosts-quick-256 --log=root.thres:critical /tmp/test_leak $how $n
 *   done; done
 *
 * Every process exchanges one int with its 8 neighbours on a 2-D torus, n
 * times, and completes the 16 requests either with MPI_Waitall (wait) or
 * by calling MPI_Testall until it says done (test).  Both simulate the same
 * messages; the second run's wall time grows with n squared, because SimGrid
 * (ActivityImpl::test -> CommImpl::finish) never removes a receive that a
 * test completed from its process's list of activities, which every later
 * completion searches.  (The wall time must be taken outside: SMPI's
 * clock_gettime is the simulated clock.) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int test = argc > 1 && !strcmp(argv[1], "test"), n = argc > 2 ? atoi(argv[2]) : 20;
    int p, me, dims[2] = { 0, 0 }, per[2] = { 1, 1 }, c[2], nb[8], k = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Dims_create(p, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
    MPI_Cart_coords(cart, me, 2, c);
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            if (i || j) {
                int cc[2] = { (c[0] + i + dims[0]) % dims[0], (c[1] + j + dims[1]) % dims[1] };
                MPI_Cart_rank(cart, cc, &nb[k++]);
            }
    int sb[8], rb[8];
    MPI_Request rq[16];
    for (int it = 0; it < n; it++) {
        MPI_Barrier(cart);
        for (int i = 0; i < 8; i++) {
            sb[i] = me;
            MPI_Irecv(&rb[i], 1, MPI_INT, nb[7 - i], i, cart, &rq[i]);
            MPI_Isend(&sb[i], 1, MPI_INT, nb[i], i, cart, &rq[8 + i]);
        }
        int done = 0;
        if (test)
            while (!done) MPI_Testall(16, rq, &done, MPI_STATUSES_IGNORE);
        else
            MPI_Waitall(16, rq, MPI_STATUSES_IGNORE);
    }
    if (!me) printf("%s: %d exchanges on %d processes\n", test ? "MPI_Testall" : "MPI_Waitall", n, p);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
