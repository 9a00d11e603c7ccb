/* PMPI interposition for the tests linked with cartcoll_static: the MPI
 * constructors and point-to-point calls the library makes resolve to the
 * definitions in interpose.c, which count them and call PMPI_*.
 *
 * Counting happens only while ip_window is set, so that the test's own
 * set-up is not counted. */
#ifndef CC_INTERPOSE_H
#define CC_INTERPOSE_H

extern volatile int ip_window;
extern long ip_objects;             /* MPI objects created (types, comms, requests, infos...) */
extern const char *ip_last_object;  /* name of the last constructor counted */
extern long ip_sends;               /* messages to a real process started (any send call or MPI_Start of a send) */
extern long ip_self_sends;          /* of which to the calling process itself */

void ip_reset(void);

#endif
