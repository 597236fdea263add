"""Where each of five library quantities is written (issue 33, "one quantity, one object").

Per quantity: its **definition** (the library's SymPy object; its ``stable`` twin in
``derive/lib/quantities.py`` is held equal to it by ``tests/test_library.py``), its one
**independent truth** (mpmath, from the definition: quadrature, sum, minimisation), its
**generated** kernels (``numeric/_kernels_generated.py``, printed from the definition) and its
declared **hand kernels**: forms that stay hand-written, each with the one-line reason and the test
of ``tests/test_writings.py`` that ties it to the library definition at high precision.  Sites that
only *call* a library form (``derive.certify._lib``, the generated kernels) are no writing.

``tests/test_writings.py`` scans product code (``derive/`` outside ``derive/papers/``, ``numeric/``,
``dpderive/``) for textual signatures of each quantity and fails on a writing at a site not listed
here.  A site is ``(path, qualname)``; ``"<module>"`` is module-level code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

T = "tests/test_writings.py::"


@dataclass(frozen=True)
class Hand:
    path: str
    qualname: str
    reason: str
    tie: str                       # tests/<file>.py::<test> holding it to the library definition


@dataclass(frozen=True)
class Writings:
    title: str
    quantities: tuple              # derive.lib quantity names
    definition: tuple              # sites of the SymPy definition (and its stable twin)
    truth: tuple                   # sites of the independent mpmath truth
    generated: tuple               # kernels of numeric/_kernels_generated.py
    hand: tuple = field(default_factory=tuple)


_LIBQ = ("derive/lib/quantities.py", "<module>")

WRITINGS = {
    "gauss_profile": Writings(
        "delta(eps) of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)",
        ("gauss_delta", "gauss_log_delta"),
        (("derive/functions.py", "GaussHockey.definition"), _LIBQ),
        (("derive/truths/profiles.py", "gauss_delta"),),          # quadrature of (p - e^eps q)_+
        ("gauss_delta", "gauss_log_delta"),
        (Hand("numeric/gaussian.py", "log_delta_float",
              "SciPy-free scalar copy for the start-up path (math, log_ndtr_scalar)",
              T + "test_gauss_profile_hand_kernels_equal_the_library"),
         Hand("numeric/gaussian.py", "delta_upper",
              "float-error allowance added to the generated profile (outward rounding)",
              T + "test_gauss_profile_hand_kernels_equal_the_library"),
         Hand("numeric/gaussian.py", "_log_slope",
              "a Newton slope (d delta/d eps) of eps_exact/_certify_eps: a solver's step, not the value",
              T + "test_gauss_profile_slope_is_the_library_derivative"),
         Hand("derive/truths_float.py", "log_hockey",
              "one float for the checkers' screen (derive imports no numeric kernel)",
              T + "test_gauss_profile_hand_kernels_equal_the_library")),
    ),
    "gauss_renyi": Writings(
        "D_alpha(N(mu, s^2) || N(0, s^2)) = alpha mu^2/(2 s^2)",
        ("gaussian_rdp", "linear_rdp"),
        (("derive/mechanisms.py", "<module>"),),
        (("derive/truths/continuous.py", "CPair.quad_checked"),),  # quadrature of p^alpha q^(1-alpha)
        ("gaussian_rdp", "linear_rdp"),
        (Hand("numeric/rdp.py", "Gaussian.rho",
              "rho = Delta^2/(2 sigma^2) in the float order the accountant's figures use",
              T + "test_gauss_renyi_hand_kernels_equal_the_library"),
         Hand("numeric/rdp.py", "DiscreteGaussian.rho",
              "rho = Delta^2/(2 sigma^2) in the float order the accountant's figures use",
              T + "test_gauss_renyi_hand_kernels_equal_the_library"),
         Hand("derive/truths_float.py", "_gauss_renyi",
              "one float for the checkers' screen (renyi, kl, chi_alpha; derive imports no numeric kernel)",
              T + "test_gauss_renyi_hand_kernels_equal_the_library"),
         Hand("derive/truths/continuous.py", "gauss_renyi_closed",
              "the truths' closed-form shortcut for a Gaussian shift at any mpmath precision",
              T + "test_gauss_renyi_hand_kernels_equal_the_library")),
    ),
    "laplace_renyi": Writings(
        "D_alpha of Lap(0, b) vs Lap(Delta, b) (Mironov 2017, Prop. 6)",
        ("laplace_rdp",),
        (("derive/mechanisms.py", "<module>"), _LIBQ),
        (("derive/truths/continuous.py", "CPair.tilted_integral"),),  # exact piecewise integral
        ("laplace_rdp",),
        (Hand("derive/truths_float.py", "renyi",
              "one float for the checkers' screen, unclipped (derive imports no numeric kernel)",
              T + "test_laplace_renyi_hand_kernel_equals_the_library"),),
    ),
    "conversion_objective": Writings(
        "the optimal RDP->DP conversion's objective (Asoodeh et al. 2021, Thm. 3) and its derivatives",
        ("conversion_objective",),
        (_LIBQ,),
        (("derive/truths/conversion.py", "_h1"),),                  # minimised in mpmath (gamma_exact)
        ("conversion_objective", "objective_LA", "objective_LB", "objective_dA", "objective_d2A",
         "objective_dB", "objective_d2B", "objective_dA_ddelta", "objective_dB_ddelta", "objective_dB_deps"),
        (Hand("numeric/conversion.py", "_excess",
              "log-domain trick: excess forms with log1p/expm1 split by the size of u",
              T + "test_conversion_objective_hand_kernels_equal_the_library"),
         Hand("numeric/fastconv.py", "_state",
              "one float in math on the per-query path (NumPy calls cost more than the formula)",
              T + "test_conversion_objective_hand_kernels_equal_the_library"),
         Hand("numeric/fastconv.py", "_certified",
              "dH/dalpha by the envelope theorem for the warm start (a derivative the generator does not print)",
              T + "test_conversion_objective_alpha_derivative_is_the_library_derivative"),
         Hand("derive/truths_float.py", "_log_h1",
              "one float in log space for the checkers' screen (derive imports no numeric kernel)",
              T + "test_conversion_objective_hand_kernels_equal_the_library")),
    ),
    "gauss_tradeoff": Writings(
        "G_mu(a) = Phi(Phi^{-1}(1 - a) - mu) and its TV 2 Phi(mu/2) - 1",
        ("gauss_tradeoff", "tv_gaussian"),
        (("derive/functions.py", "GaussTradeoff.definition"), _LIBQ),
        (("derive/truths/continuous.py", "CPair.tradeoff"), ("derive/truths/continuous.py", "CPair.hockey")),
        ("gauss_tradeoff", "tv_gaussian"),
        (Hand("derive/truths_float.py", "tv", "one float for the checkers' screen (derive imports no numeric kernel)",
              T + "test_gauss_tradeoff_hand_kernels_equal_the_library"),
         Hand("derive/truths_float.py", "tradeoff",
              "one float for the checkers' screen (derive imports no numeric kernel)",
              T + "test_gauss_tradeoff_hand_kernels_equal_the_library"),
         Hand("numeric/pld_models.py", "_tv_gaussian_math",
              "math erf: no scipy at the PLD route's start-up",
              T + "test_gauss_tradeoff_hand_kernels_equal_the_library")),
    ),
}

__all__ = ["Hand", "Writings", "WRITINGS"]
