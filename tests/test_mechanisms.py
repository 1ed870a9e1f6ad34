"""Built-in mechanisms: their output distributions, by hand."""

import pytest
from gmpy2 import mpq

from verifier.core.distribution import BOTTOM, Dist
from verifier.core.errors import InvalidArgument, UnknownName
from verifier.model.mechanisms import (
    build_mechanism,
    count,
    geometric_count,
    identity,
    load_function,
    mean_query,
    mechanism,
    randomized_response,
    sum_query,
    threshold_count,
)


def test_randomized_response_k_ary():
    rr = randomized_response("2/3", [0, 1, 2])
    out = rr((1,))
    # truth 2/3; each of the k − 1 = 2 other values gets (1 − 2/3)/2 = 1/6
    assert out == Dist({(0,): "1/6", (1,): "2/3", (2,): "1/6"})
    two = rr((0, 2))
    assert two[(0, 2)] == mpq(4, 9) and two[(1, 1)] == mpq(1, 36)


def test_counting_mechanisms():
    db = (1, 0, 1, 1)
    assert count([1])(db) == Dist.point(3)
    assert threshold_count([1], 3)(db) == Dist.point(3)
    assert threshold_count([1], 4)(db) == Dist.point(BOTTOM)
    assert sum_query()((1, 2, 4)) == Dist.point(7)
    assert mean_query()((1, 2, 4)) == Dist.point(mpq(7, 3))
    assert identity()(db) == Dist.point(db)


def test_geometric_count_clamped_by_hand():
    # n = 2, count c = 1, α = 1/2: inside P[1] = (1−α)/(1+α) = 1/3;
    # P[0] = α^c/(1+α) = 1/3, P[2] = α^(n−c)/(1+α) = 1/3
    g = geometric_count([1], "1/2")
    assert g((1, 0)) == Dist({0: "1/3", 1: "1/3", 2: "1/3"})
    # n = 3, c = 0: P[0] = 1/(1+α) = 2/3, P[1] = (1/3)(1/2) = 1/6, P[2] = (1/3)(1/4) = 1/12,
    # P[3] = α³/(1+α) = 1/12
    assert g((0, 0, 0)) == Dist({0: "2/3", 1: "1/6", 2: "1/12", 3: "1/12"})


def test_symmetric_mechanisms_agree_on_counts():
    for mech in (count([1]), threshold_count([1], 2), geometric_count([1], "1/3"), sum_query(),
                 mean_query()):
        db = (1, 0, 1)
        assert mech.symmetric
        assert mech.on_counts({0: 1, 1: 2}, 3) == mech(db)


def test_user_function_point_mass_and_kernel():
    m = mechanism(lambda db: max(db), name="max")
    assert m((1, 3, 2)) == Dist.point(3)
    k = mechanism(lambda db: Dist.uniform(db))
    assert k((1, 2)) == Dist({1: "1/2", 2: "1/2"})
    assert load_function("operator:itemgetter") is __import__("operator").itemgetter


@pytest.mark.parametrize("kind, params, error, message", [
    ("laplace", {}, UnknownName, "kind = 'laplace' is not a mechanism kind; known kinds: "
     "above_threshold, count, discrete_gaussian, discrete_laplace, function, geometric_count, "
     "identity, mean, noisy_max, program, randomized_response, sum, threshold_count; did you "
     "mean `discrete_laplace`?"),
    ("threshold_count", {}, InvalidArgument, "mechanism kind 'threshold_count' needs threshold"),
    ("count", {"threshold": 2}, InvalidArgument, "mechanism kind 'count' takes no key threshold "
     "(it takes counts)"),
    ("randomized_response", {"truth": "3/2"}, Exception, "truth = 3/2 is not a probability in "
     "[0, 1]"),
    ("geometric_count", {"alpha": "1"}, InvalidArgument, "alpha = 1 must lie strictly between "
     "0 and 1"),
    ("function", {"function": "nosuchmodule:f"}, UnknownName, "function = 'nosuchmodule:f': "
     "cannot import module 'nosuchmodule' (No module named 'nosuchmodule')"),
    ("function", {"function": "math:nosuch"}, UnknownName, "function = 'math:nosuch': module "
     "'math' has no function 'nosuch'"),
    ("function", {"function": "nocolon"}, UnknownName, "function = 'nocolon' is not of the "
     "form \"module:function\""),
], ids=["unknown-kind", "missing", "extra-key", "truth>1", "alpha=1", "no-module",
        "no-function", "no-colon"])
def test_bad_mechanisms(kind, params, error, message):
    with pytest.raises(error) as info:
        build_mechanism(kind, params, [0, 1])
    assert str(info.value) == message
