"""The paper object shared by the section modules of Asoodeh et al."""
from ...paperkit import Paper

SEED = "002_681a0562af0ee53f.txt"      # JSAIT 2021 journal version
SEED_ISIT = "000_719a574de2899529.txt"  # ISIT 2020 conference version

P = Paper(
    "asoodeh2021",
    seed=SEED,
    seeds=(SEED, SEED_ISIT),
    title="Three Variants of Differential Privacy: Lossless Conversion and Applications",
    citation=("S. Asoodeh, J. Liao, F. P. Calmon, O. Kosut, L. Sankar, IEEE JSAIT 2021 "
              "(journal version of ISIT 2020, 'A Better Bound Gives a Hundred Rounds')"),
)
