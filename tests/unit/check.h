/* Minimal assertions for the unit tests: report file:line and exit 1. */
#ifndef CC_TEST_CHECK_H
#define CC_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

/* Equality of two integer expressions, printing both values. */
#define CHECK_EQ(a, b)                                                           \
    do {                                                                         \
        long long a_ = (long long)(a), b_ = (long long)(b);                      \
        if (a_ != b_) {                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n",     \
                    __FILE__, __LINE__, #a, #b, a_, b_);                         \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#endif
