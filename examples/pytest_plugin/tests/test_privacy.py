"""Privacy regressions of mechanisms.py: run `pytest` in examples/pytest_plugin.

The plrv plugin (installed with plrv) gives the `privacy` fixture; the same assertions are
importable as functions from verifier.testing. test_fast_count_is_dp fails on purpose: it
shows the message a regression produces (the claim, the tight δ beside the claimed one, the
pair of databases and the outputs that leak).
"""

from mechanisms import fast_count, noisy_count, vote

from verifier import iid, replace_one
from verifier.testing import assert_dp

BITS = [0, 1]


def test_vote_is_ln3_dp(privacy):
    # the ratio of the two answers' probabilities is (3/4)/(1/4) = 3
    result = privacy.assert_dp(vote, replace_one(BITS, 1), "ln(3)")
    assert str(result.epsilon) == "ln(3)"


def test_vote_is_not_ln2_dp(privacy):
    privacy.assert_not_dp(vote, replace_one(BITS, 1), "ln(2)")


def test_vote_renyi(privacy):
    # D_2 = ln Σ P²/Q = ln((9/16)/(1/4) + (1/16)/(3/4)) = ln(7/3)
    privacy.assert_rdp(vote, replace_one(BITS, 1), orders=[2], budgets=["ln(7/3)"])


def test_vote_against_partial_knowledge(privacy):
    # DP implies APK-DP: three uniform bits, any target
    privacy.assert_apkdp(vote, iid(["1/2", "1/2"], BITS, 3), "ln(3)")


def test_noisy_count_is_ln2_dp():
    assert_dp(noisy_count, replace_one(BITS, 2), "ln(2)")


def test_three_counts_compose(privacy):
    # independent runs multiply the ratios: ln(2) each, ln(8) for three
    privacy.assert_dp([noisy_count] * 3, replace_one(BITS, 2), "ln(8)")


def test_fast_count_is_dp(privacy):
    # fails: the shortcut releases 0 without noise (see mechanisms.fast_count)
    privacy.assert_dp(fast_count, replace_one(BITS, 2), "ln(2)", "1/100")
