/* placeholder: being written */
#include "schedule.h"
int cc_build_combining_allgather(const cc_nset *ns, cc_schedule *s) { (void)ns; (void)s; return CC_ETOOBIG; }
