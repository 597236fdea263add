"""dp_accounting's own abstract accountant test, run on DpDeriveAccountant (issue 35: a drop-in
that passes the peers' own tests).

``dp_accounting.privacy_accountant_test.PrivacyAccountantTest`` (shipped in the dp_accounting
wheel) is subclassed exactly as dp_accounting's RDP and PLD tests subclass it
(``rdp_privacy_accountant_test.RdpPrivacyAccountantTest``,
``pld_privacy_accountant_test.PldPrivacyAccountantTest``): ``_make_test_accountants`` returns
the accountants to check.  One class per neighbouring relation (ADD_OR_REMOVE_ONE,
REPLACE_ONE, REPLACE_SPECIAL), so that each relation's result is reported on its own, and one
class with the three together, as dp_accounting's tests do.  The abstract test is imported
as a module attribute (never as a top-level class: pytest would collect the abstract class
itself).
"""
import pytest

pytest.importorskip("dp_accounting", reason="dp_accounting not installed (extra [interop])")
pytest.importorskip("absl.testing.parameterized", reason="absl-py not installed (a dp_accounting dependency)")

from absl.testing import parameterized  # noqa: E402
from dp_accounting import privacy_accountant  # noqa: E402
from dp_accounting import privacy_accountant_test as peer_suite  # noqa: E402

from dpderive.interop.dp_accounting import DpDeriveAccountant  # noqa: E402

NR = privacy_accountant.NeighboringRelation


class DpDeriveAddOrRemoveOneTest(peer_suite.PrivacyAccountantTest, parameterized.TestCase):

    def _make_test_accountants(self):
        return [DpDeriveAccountant(NR.ADD_OR_REMOVE_ONE)]


class DpDeriveReplaceOneTest(peer_suite.PrivacyAccountantTest, parameterized.TestCase):

    def _make_test_accountants(self):
        return [DpDeriveAccountant(NR.REPLACE_ONE)]


class DpDeriveReplaceSpecialTest(peer_suite.PrivacyAccountantTest, parameterized.TestCase):

    def _make_test_accountants(self):
        return [DpDeriveAccountant(NR.REPLACE_SPECIAL)]


class DpDeriveAllRelationsTest(peer_suite.PrivacyAccountantTest, parameterized.TestCase):
    """As dp_accounting's own subclasses: every relation in one list (and the other routes)."""

    def _make_test_accountants(self):
        return [DpDeriveAccountant(nr, method=m) for nr in NR for m in ("best", "rdp", "pld")]


def test_the_abstract_suite_is_the_peers_own():
    """The abstract class run above is dp_accounting's, with the 13 tests it defines (a wheel
    whose suite gained or lost tests shows here, not as a silent change of the count)."""
    names = [n for n in dir(DpDeriveReplaceOneTest) if n.startswith("test")]
    assert peer_suite.PrivacyAccountantTest.__module__ == "dp_accounting.privacy_accountant_test"
    assert len(names) >= 13
