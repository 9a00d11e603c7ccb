/* The intrusive list (src/util/list.h): order of insertion at either end,
 * O(1) removal anywhere, the unlinked state, and removal while walking. */
#include "util/list.h"

#include "check.h"

typedef struct item {
    int v;
    cc_list link;
} item;

/* The values along the list, as decimal digits (at most 9 items). */
static int digits(cc_list *head)
{
    int d = 0;
    cc_list_foreach(it, head) d = 10 * d + cc_list_entry(it, item, link)->v;
    return d;
}

int main(void)
{
    static cc_list head = CC_LIST_HEAD(head);
    item a[5] = { { 1, { 0, 0 } }, { 2, { 0, 0 } }, { 3, { 0, 0 } }, { 4, { 0, 0 } }, { 5, { 0, 0 } } };
    CHECK(cc_list_empty(&head));
    CHECK(!cc_list_linked(&a[0].link));

    cc_list_push_back(&head, &a[1].link);
    cc_list_push_front(&head, &a[0].link);
    cc_list_push_back(&head, &a[2].link);
    CHECK_EQ(digits(&head), 123);
    CHECK(cc_list_linked(&a[1].link));

    cc_list_remove(&a[1].link); /* middle */
    CHECK(!cc_list_linked(&a[1].link));
    CHECK_EQ(digits(&head), 13);
    cc_list_remove(&a[0].link); /* first */
    cc_list_remove(&a[2].link); /* last */
    CHECK(cc_list_empty(&head));

    for (int i = 0; i < 5; i++) cc_list_push_back(&head, &a[i].link);
    cc_list_foreach_safe(it, &head) /* drop the even ones while walking */
        if (cc_list_entry(it, item, link)->v % 2 == 0) cc_list_remove(it);
    CHECK_EQ(digits(&head), 135);

    cc_list other;
    cc_list_init(&other);
    cc_list_foreach_safe(it, &head) { /* move everything (as a hash table that grows) */
        cc_list_remove(it);
        cc_list_push_front(&other, it);
    }
    CHECK(cc_list_empty(&head));
    CHECK_EQ(digits(&other), 531);
    return 0;
}
