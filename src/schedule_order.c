/* placeholder: being written */
#include "schedule.h"
long long cc_allgather_order(const cc_nset *ns, int order[]) { for (int k = 0; k < ns->d; k++) order[k] = k; return 0; }
