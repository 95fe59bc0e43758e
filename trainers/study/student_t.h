#pragma once
// Student's t distribution with an integer number of degrees of freedom, for
// the few-seed statistics of a study (steps to a threshold: one number per
// seed, so a t interval over 3 seeds rather than a bootstrap of 10 distinct
// resamples). Exact finite sums (Abramowitz & Stegun 26.7.3-26.7.4), no table.
#include <cstdint>

namespace rotor {

// P(|T| <= t) for T ~ t(df), t >= 0, df >= 1.
double student_t_central_probability(double t, int64_t df);
// The two-sided p-value of an observed t statistic: P(|T| >= |t|).
double student_t_two_sided_p(double t, int64_t df);
// The quantile t* with P(|T| <= t*) = 1 - alpha (t_{1 - alpha/2, df}), to 1e-10 relative.
double student_t_critical(double alpha, int64_t df);
// Half the width of the 1 - alpha t interval of a mean of n values with sample standard deviation sd:
// t_{1 - alpha/2, n-1} sd / sqrt(n); NaN when n < 2.
double student_t_half_width(double sd, int64_t n, double alpha);

}  // namespace rotor
