"""Bridges to the ML engineer's stack, each importing its peer lazily (optional extras):

* ``dpderive.interop.dp_accounting``: DpEvent trees <-> dpderive events, and
  ``DpDeriveAccountant``, a ``dp_accounting.PrivacyAccountant`` (extra ``[interop]``);
* ``dpderive.interop.opacus``: ``DpDeriveOpacusAccountant`` (an Opacus ``IAccountant``,
  registered as mechanism "dpderive") and ``get_noise_multiplier`` (extra ``[opacus]``).
"""
