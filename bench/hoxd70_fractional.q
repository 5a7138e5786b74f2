# HOXD70 and its gap penalties, each value moved by a fraction: lastz_D's (fastz_D's)
# fractional scores, for bench/run.py --double --opts=--scores=bench/hoxd70_fractional.q
gap_open_penalty = 400.5
gap_extend_penalty = 30.25
        A       C       G       T
A    91.3    -114.7  -31.1   -123.2
C    -114.7  100.5   -125.3  -31.1
G    -31.1   -125.3  100.5   -114.7
T    -123.2  -31.1   -114.7   91.3
