"""The other side of the guessing advantage (seed 004, "analogously for Pr_pre − Pr_post"):
least posterior, its lower bound and the inversion, against values derived by hand.

The model: domain {0, 1, 2}, uniform prior, goal g(x) = {x} (precision 1/2, so d = 2|x − y|),
the truncated geometric with α = 1/2. Its rows are P[·|0] = (2/3, 1/6, 1/6), P[·|1] =
(1/3, 1/3, 1/3), P[·|2] = (1/6, 1/6, 2/3), so P[0 | z] = 4/7, 1/4, 1/7 for z = 0, 1, 2 and
P[1 | z] = 2/7, 1/2, 2/7. The largest ratio per unit distance is 2 at d = 2 (and 4 at d = 4):
ε = ln(2)/2, the diameter R = 4, e^{εR} = 4.
"""

import pytest
from gmpy2 import mpq

from verifier import Dist
from verifier.core.errors import InvalidArgument, InvalidNumber
from verifier.guessing.converse import converse_epsilon, least_posterior, simplified_lower_bound
from verifier.guessing.metric import ScaledLog, tight_epsilon, truncated_geometric
from verifier.guessing.model import GuessModel


def model() -> GuessModel:
    domain = (0, 1, 2)
    return GuessModel(domain, Dist.uniform(domain), truncated_geometric("1/2", 0, 2),
                      (mpq(1, 2),))


def test_least_posterior_by_hand():
    rows = least_posterior(model())
    assert [(r.target, r.prior, r.posterior, r.output) for r in rows] == [
        (0, mpq(1, 3), mpq(1, 7), 2), (1, mpq(1, 3), mpq(2, 7), 0), (2, mpq(1, 3), mpq(1, 7), 0)]
    assert all(type(r.posterior) is type(mpq(1)) for r in rows)


def test_lower_bound_by_hand_and_below_the_least_posterior():
    m = model()
    eps, _ = tight_epsilon(m.kernel, m.domain, m.distance)
    assert eps == ScaledLog.make(mpq(2), 2)
    for row in least_posterior(m):
        bound = simplified_lower_bound(m, row.target, eps)
        assert bound.value == mpq(1, 9)  # 1/(1 + 4·(2/3)/(1/3))
        assert bound.compare(row.posterior) == -1


def test_lower_bound_edges():
    m = model()
    assert simplified_lower_bound(m, 0, ScaledLog.inf()).value == 0
    point = GuessModel((0, 1), Dist.point(0), truncated_geometric("1/2", 0, 1), (mpq(1, 2),))
    assert simplified_lower_bound(point, 0, ScaledLog.make(mpq(2))).value == 1
    assert simplified_lower_bound(point, 1, ScaledLog.make(mpq(2))).value == 0


def test_converse_epsilon_by_hand():
    eps = converse_epsilon("1/3", "1/6", 4)  # p(1−p+η)/((1−p)(p−η)) = (5/18)/(1/9) = 5/2
    assert eps == ScaledLog.make(mpq(5, 2), 4)
    rate = mpq(5, 2)  # e^{εR}: the lower bound is then exactly p − η
    assert 1 / (1 + rate * 2) == mpq(1, 3) - mpq(1, 6)
    assert converse_epsilon("1/3", "1/3", 1).infinite
    assert converse_epsilon("1/3", "1/2", 1).infinite


@pytest.mark.parametrize(("p", "eta", "R", "error", "message"), [
    ("0", "1/6", 1, InvalidNumber, "prior"),
    ("1/3", "1", 1, InvalidNumber, "eta"),
    ("1/3", "1/6", 0, InvalidNumber, "diameter"),
], ids=["prior 0", "eta 1", "diameter 0"])
def test_converse_epsilon_refuses(p, eta, R, error, message):
    with pytest.raises(error, match=message):
        converse_epsilon(p, eta, R)


def test_least_posterior_needs_an_output():
    m = model()
    with pytest.raises(InvalidArgument, match="positive probability"):
        least_posterior(m, joint={"z": {0: mpq(0)}})
