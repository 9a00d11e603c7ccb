/* One small intrusive doubly-linked list (the idea of libuv's queue.h): a
 * structure that goes on a list embeds a cc_list node and is found back
 * from it with cc_list_entry.  A list is a circular ring through its head,
 * so insertion and removal are O(1) without special cases; a node that is
 * on no list has NULL links (calloc'd structures start unlinked), so
 * cc_list_linked answers "is it listed?" without a flag beside it.
 * No locking: callers guard their lists.  Pure C. */
#ifndef CC_UTIL_LIST_H
#define CC_UTIL_LIST_H

#include <stddef.h>

typedef struct cc_list {
    struct cc_list *prev, *next;
} cc_list;

/* A static head: `static cc_list h = CC_LIST_HEAD(h);` */
#define CC_LIST_HEAD(h) { &(h), &(h) }

static inline void cc_list_init(cc_list *head) { head->prev = head->next = head; }

static inline int cc_list_empty(const cc_list *head) { return head->next == head; }

/* Whether node is on a list (nodes start and end unlinked: NULL links). */
static inline int cc_list_linked(const cc_list *node) { return node->next != NULL; }

static inline void cc_list_push_front(cc_list *head, cc_list *node)
{
    node->prev = head;
    node->next = head->next;
    head->next->prev = node;
    head->next = node;
}

static inline void cc_list_push_back(cc_list *head, cc_list *node)
{
    node->next = head;
    node->prev = head->prev;
    head->prev->next = node;
    head->prev = node;
}

/* Take node off its list; it is unlinked afterwards. */
static inline void cc_list_remove(cc_list *node)
{
    node->prev->next = node->next;
    node->next->prev = node->prev;
    node->prev = node->next = NULL;
}

/* The structure of `type` whose member `member` is node. */
#define cc_list_entry(node, type, member) ((type *)(void *)((char *)(node) - offsetof(type, member)))

/* Walk the list: `it` (a cc_list *) visits every node; the body must not
 * remove `it` (use cc_list_foreach_safe for that). */
#define cc_list_foreach(it, head) for (cc_list *it = (head)->next; it != (head); it = it->next)
#define cc_list_foreach_safe(it, head)                                                                     \
    for (cc_list *it = (head)->next, *it##_next_ = it->next; it != (head); it = it##_next_, it##_next_ = it->next)

#endif
