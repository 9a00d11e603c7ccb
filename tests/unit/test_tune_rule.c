/* The persistent tuning's decision rule (src/req/tune_rule.h), against
 * first principles: the favourite (candidate 0) stays unless another
 * candidate is faster by the margin, twice the trials' spread clamped to
 * [2%, 10%]. */
#include "req/tune_rule.h"

#include "check.h"

static int near(double a, double b) { return a - b < 1e-12 && b - a < 1e-12; }

int main(void)
{
    double m = -1;
    /* one candidate: it */
    CHECK_EQ(cc_tune_pick((const double[]){ 5.0 }, 1, 0.0, &m), 0);
    CHECK(near(m, 0.02));

    /* deterministic trials (spread 0): margin 2%; the simulated Hydra
     * row of docs/scale.md (COMBINING 5.1 us favoured, DIRECT 4.8 us) */
    double sim[3] = { 5.1, 5.1, 4.8 };
    CHECK_EQ(cc_tune_pick(sim, 3, 0.005, &m), 2);
    CHECK(near(m, 0.02));
    /* 1% faster is not clearly faster */
    CHECK_EQ(cc_tune_pick((const double[]){ 1.00, 0.99 }, 2, 0.0, NULL), 0);
    /* 3% faster is, when trials repeat within 1% */
    CHECK_EQ(cc_tune_pick((const double[]){ 1.00, 0.97 }, 2, 0.01, NULL), 1);

    /* noisy trials: the margin grows with the spread ... */
    CHECK_EQ(cc_tune_pick((const double[]){ 1.00, 0.95 }, 2, 0.03, &m), 0);
    CHECK(near(m, 0.06));
    CHECK_EQ(cc_tune_pick((const double[]){ 1.00, 0.93 }, 2, 0.03, NULL), 1);
    /* ... up to 10% (the rule before the spread was measured) */
    CHECK_EQ(cc_tune_pick((const double[]){ 1.00, 0.91 }, 2, 0.50, &m), 0);
    CHECK(near(m, 0.10));
    CHECK_EQ(cc_tune_pick((const double[]){ 1.00, 0.89 }, 2, 0.50, NULL), 1);

    /* the fastest of several wins, not the first that beats the favourite */
    CHECK_EQ(cc_tune_pick((const double[]){ 10.0, 8.0, 7.0, 9.0 }, 4, 0.0, NULL), 2);
    /* a slower challenger never wins */
    CHECK_EQ(cc_tune_pick((const double[]){ 1.0, 2.0, 3.0 }, 3, 0.0, NULL), 0);
    return 0;
}
