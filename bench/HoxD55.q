# HoxD55: the substitution scores of UCSC's whole-genome lastz runs (BLASTZ_Q), as in
# their chain/net pipeline (doBlastzChainNet.pl); gap penalties stay lastz's defaults.
# python bench/run.py ecoli_K12_vs_salmonella_LT2 \
#     --opts="K=2200 H=2000 Y=3400 L=6000 --scores=$PWD/bench/HoxD55.q --format=axt"
   A    C    G    T
  91  -90  -25 -100
 -90  100 -100  -25
 -25 -100  100  -90
-100  -25  -90   91
