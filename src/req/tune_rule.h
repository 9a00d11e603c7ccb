/* The tuning's decision rule (tune.c), pure so that it is unit tested
 * (tests/unit/test_tune_rule.c). */
#ifndef CC_TUNE_RULE_H
#define CC_TUNE_RULE_H

/* Index of the candidate to keep, given each candidate's best trial time
 * t[0..n) (t[0] the model's favourite) and the largest relative spread
 * between repeated trials of one candidate: the fastest, but the favourite
 * unless the fastest beats it by twice the spread, at least 2% and at most
 * 10%.  A loaded machine's early starts are noisy (cold caches, processes
 * arriving late), while a quiet machine or a simulator repeats itself, and
 * there a 5% faster plan is really faster.  *margin gets the margin used. */
static inline int cc_tune_pick(const double *t, int n, double spread, double *margin)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (t[i] < t[best]) best = i;
    double m = 2 * spread;
    m = m < 0.02 ? 0.02 : m > 0.10 ? 0.10 : m;
    if (margin) *margin = m;
    return t[best] > (1 - m) * t[0] ? 0 : best;
}

#endif
