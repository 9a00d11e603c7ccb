/* One private attachment per request, for the code in this repository that
 * is built on the public API only (the Fortran module's support): it keeps
 * its state for a request with the request itself, found in O(1), freed by
 * the library when it frees the request -- however that happens -- so no
 * table keyed by request addresses (which the library may reuse) is needed.
 * Not part of the public contract (cartcoll.h); exported from
 * libcartcoll.so by name (cmake/cartcoll.map).  Needs only cartcoll.h. */
#ifndef CC_REQ_ATTACH_H
#define CC_REQ_ATTACH_H

#include "cartcoll.h"

/* Attach `data` to r, which has no attachment; `destroy(data)` (may be
 * NULL) runs when the library frees r, after r's own resources. */
void cc_request_attach(Cart_request r, void *data, void (*destroy)(void *));

/* r's attachment, or NULL (also for CART_REQUEST_NULL). */
void *cc_request_attached(Cart_request r);

/* Take r's attachment back (the library will not destroy it); returns it. */
void *cc_request_detach(Cart_request r);

#endif
