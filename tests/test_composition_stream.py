"""k runs of one mechanism streamed (verifier.notions.composition.stream) against independent
computations: binomial sums written out with Fraction, the materialised polynomial route
(every coefficient kept) and the convolution route; the memory estimate and its limit."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from math import comb

import pytest
from gmpy2 import mpq, mpz

from verifier.core.budget import Budget
from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import BudgetExceeded
from verifier.notions.composition.exact import LossDistribution, compose, compose_law
from verifier.notions.composition.polynomial import plan_polynomial
from verifier.notions.composition.stream import PowerStream, StreamedLoss

RR = LossDistribution.of(Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"}))
# three outputs, ratios 2, 1, 1/2 (exponents 1, 0, −1 of the generator 2)
THREE_P = Dist({0: "4/10", 1: "4/10", 2: "2/10"})
THREE_Q = Dist({0: "2/10", 1: "4/10", 2: "4/10"})
THREE = LossDistribution.of(THREE_P, THREE_Q)


def _rr_delta(k: int, rate: Fraction) -> Fraction:
    """δ(ln rate) of k runs of randomized response (truth 3/4), by the binomial sum: j
    truthful answers have P = C(k,j)·3^j/4^k, Q = C(k,j)·3^(k−j)/4^k and ratio 3^(2j−k)."""
    return sum((Fraction(comb(k, j) * 3 ** j, 4 ** k) - rate * Fraction(comb(k, j) * 3 ** (k - j),
                                                                       4 ** k)
                for j in range(k + 1) if Fraction(3) ** (2 * j - k) > rate), Fraction(0))


def _value(law, rate: str) -> Fraction:
    d = law.delta(parse_epsilon(f"ln({rate})"))
    v = d.a - d.c * mpq(rate)
    return Fraction(int(v.numerator), int(v.denominator))


def test_three_runs_by_hand():
    """k = 3: ratios 27 (P 27/64, Q 1/64) and 3 (P 27/64, Q 9/64) exceed 2, so
    δ(ln 2) = 27/64 − 2/64 + 27/64 − 18/64 = 34/64 = 17/32; ε(17/32) = ln 2."""
    law, route = compose_law([RR] * 3)
    assert route == "polynomial" and isinstance(law, StreamedLoss)
    assert _value(law, "2") == Fraction(17, 32)
    assert str(law.epsilon("17/32")) == "ln(2)"
    assert law.masses() == [(mpq(3), mpq(27, 64), mpq(9, 64)), (mpq(27), mpq(27, 64),
                                                                mpq(1, 64))]


@pytest.mark.parametrize("k", [3, 10])
@pytest.mark.parametrize("rate", ["1", "2", "3", "7/2", "100"])
def test_small_k_is_the_binomial_sum(k, rate):
    law, _ = compose_law([RR] * k)
    assert isinstance(law, StreamedLoss)
    assert _value(law, rate) == _rr_delta(k, Fraction(rate))


def test_ten_runs_by_hand():
    """k = 10, ε = ln 2: the ratios 3^(2j−10) > 2 are j ≥ 6: Σ_{j≥6} C(10,j)(3^j − 2·3^(10−j))
    = 210·(729 − 162) + 120·(2187 − 54) + 45·(6561 − 18) + 10·(19683 − 6) + (59049 − 2)
    = 119070 + 255960 + 294435 + 196770 + 59047 = 925282, over 4^10 = 1048576."""
    law, _ = compose_law([RR] * 10)
    assert _value(law, "2") == Fraction(925282, 1048576)


def test_power_stream_reads_the_binomial_coefficients_anywhere():
    """(1 + 3y)^k: prefix sums at every index, in any order, across checkpoints (block 64)."""
    k = 300
    s = PowerStream([mpz(1), mpz(3)], k)
    coeffs = [comb(k, j) * 3 ** j for j in range(k + 1)]
    heads = [sum(coeffs[:n]) for n in range(k + 2)]
    order = list(range(k + 2))
    order = order[::7] + order[::-1]  # forward jumps, then backwards through every block
    assert [int(s.head(n)) for n in order] == [heads[n] for n in order]
    assert s.block == 64 and s.total == 4 ** k


@pytest.mark.parametrize("k", [50, 200])
@pytest.mark.parametrize("pair", [(RR, "rr"), (THREE, "three")], ids=lambda p: p[1])
def test_streamed_equals_every_coefficient_kept(k, pair):
    """The same exact δ at four ε, ε at three δ and the same atoms as the previous route
    (every coefficient kept) — and, for the pair and its reverse, as the convolution."""
    law = pair[0]
    streamed, _ = compose_law([law] * k)
    kept, _ = compose_law([law] * k, stream=False)
    assert isinstance(streamed, StreamedLoss) and not isinstance(kept, StreamedLoss)
    for eps in ("0", "ln(2)", "1/3", "ln(9/4)"):
        assert streamed.delta(eps) == kept.delta(eps), eps
    for d in ("0", "1/1000", "1/3"):
        assert streamed.epsilon(d) == kept.epsilon(d), d
    assert streamed.masses() == kept.masses()
    if k == 50:
        conv = compose([law] * k).privacy_loss()
        assert list(streamed.masses()) == list(conv.masses())


def test_a_pair_and_its_reverse_share_one_stream():
    """Randomized response: Q is P reversed, and the reverse pair swaps them; one stream
    (keyed by its coefficients) serves all four sides, and every answer is the binomial's."""
    streams: dict = {}
    forward, _ = compose_law([RR] * 20, streams=streams)
    backward_pair = LossDistribution.of(Dist({0: "1/4", 1: "3/4"}), Dist({0: "3/4", 1: "1/4"}))
    backward, _ = compose_law([backward_pair] * 20, streams=streams)
    assert len(streams) == 1
    assert forward.p.stream is forward.q.stream is backward.p.stream  # type: ignore[attr-defined]
    for law in (forward, backward):
        assert _value(law, "2") == _rr_delta(20, Fraction(2))


def test_an_asymmetric_pair_and_its_reverse():
    """P = (4, 2, 10, 4)/20, Q = (1, 1, 10, 8)/20: ratios 4, 2, 1, 1/2 (one generator, no
    gap), Q not P reversed: two streams, which the reverse pair reads in the other order;
    each answers as the convolution does."""
    p = Dist({0: "4/20", 1: "2/20", 2: "10/20", 3: "4/20"})
    q = Dist({0: "1/20", 1: "1/20", 2: "10/20", 3: "8/20"})
    streams: dict = {}
    for a, b in ((p, q), (q, p)):
        law = LossDistribution.of(a, b)
        got, _ = compose_law([law] * 30, streams=streams)
        conv = compose([law] * 30).privacy_loss()
        assert isinstance(got, StreamedLoss)
        for eps in ("0", "ln(2)", "1/2"):
            assert got.delta(eps) == conv.delta(eps)
        assert got.epsilon("1/100") == conv.epsilon("1/100")
    # P of the pair is Q of its reverse read backwards (and the other way round): the reverse
    # made no stream of its own
    assert len(streams) == 2


def test_the_memory_is_estimated_before_the_work():
    """limits.memory is checked by the plan, before any coefficient; streaming holds far
    less than every coefficient (both estimated from the same sizes)."""
    budget = Budget(max_memory=1 << 20)
    with pytest.raises(BudgetExceeded) as err:
        plan_polynomial([RR] * 100_000, budget, 10**7)
    assert err.value.key == "limits.memory"  # type: ignore[attr-defined]
    assert "limits.memory" in str(err.value) and "streamed" in str(err.value)
    streamed = plan_polynomial([RR] * 100_000, None, 10**7)
    kept = plan_polynomial([RR] * 100_000, None, 10**7, stream=False)
    assert streamed is not None and kept is not None and streamed.streamed
    # every coefficient kept: 2 sides × 100,001 integers of up to 300,000 bits
    assert kept.memory >= 2 * 100_001 * 300_000 // 8
    assert streamed.memory * 50 < kept.memory


def test_the_convolution_estimates_its_memory_too():
    """Nine generators take the convolution route; limits.memory bounds it as well, before the
    first product: 10 atoms of a few hundred bytes fit 10^6 bytes, their 2-fold products
    (55 values, more bits) do not fit 10^4."""
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23]
    law = LossDistribution.of(Dist({o: f"{p}/101" for o, p in enumerate(primes)} | {9: "1/101"}),
                              Dist({o: "1/10" for o in range(10)}))
    got, route = compose_law([law] * 2, budget=Budget(max_memory=10**6))
    assert route == "convolution"
    assert got.delta("ln(2)") == compose([law] * 2).privacy_loss().delta("ln(2)")
    with pytest.raises(BudgetExceeded) as err:
        compose_law([law] * 2, budget=Budget(max_memory=10**4))
    assert err.value.key == "limits.memory"  # type: ignore[attr-defined]


def test_a_mechanism_with_gaps_keeps_every_coefficient():
    """P = (8, 2, 22, 8)/40, Q = (1, 1, 22, 16)/40: ratios 8, 2, 1, 1/2 (exponents 3, 1, 0,
    −1 of 2) leave a gap at 2; that law is not streamed, and is still exact."""
    law = LossDistribution.of(Dist({0: "8/40", 1: "2/40", 2: "22/40", 3: "8/40"}),
                              Dist({0: "1/40", 1: "1/40", 2: "22/40", 3: "16/40"}))
    got, _ = compose_law([law] * 5)
    assert not isinstance(got, StreamedLoss)
    conv = compose([law] * 5).privacy_loss()
    assert got.delta("ln(2)") == conv.delta("ln(2)")


def test_the_command_refuses_over_limits_memory(tmp_path):
    from verifier.commands.compose import compose_spec

    spec = tmp_path / "rr.toml"
    spec.write_text('[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\n'
                    'kind = "randomized_response"\ntruth = "3/4"\n[query]\n'
                    'epsilon = "ln(2)"\ndelta = "1/2"\nnotions = ["dp"]\n'
                    '[limits]\nmemory = 100000\n')
    with pytest.raises(BudgetExceeded, match="limits.memory"):
        compose_spec(spec, 10_000)
    out, holds = compose_spec(spec, 3)
    assert out["tight_delta"] == "17/32" and holds is False


def test_thirty_thousand_runs_stay_small(tmp_path):
    """k = 30,000 randomized responses, in a process of its own (about 3 s): the peak
    resident memory stays under 200 MB (every coefficient kept: about 350 MB) and δ(ln 2) is
    the reference's (the binomial recurrence over exact integers)."""
    code = (
        "from gmpy2 import mpz, mpq\n"
        "from verifier.core.distribution import Dist\n"
        "from verifier.notions.composition.exact import LossDistribution, compose_law\n"
        "k = 30000\n"
        "rr = LossDistribution.of(Dist({0: '3/4', 1: '1/4'}), Dist({0: '1/4', 1: '3/4'}))\n"
        "law, _ = compose_law([rr] * k)\n"
        "d = law.delta('ln(2)')\n"
        "p, q, sp, sq = mpz(1), mpz(3) ** k, mpz(0), mpz(0)\n"
        "for i in range(k + 1):\n"
        "    if 2 * i - k >= 1:\n"
        "        sp += p; sq += q\n"
        "    if i < k:\n"
        "        p = p * 3 * (k - i) // (i + 1); q = q * (k - i) // (3 * (i + 1))\n"
        "assert d.a - 2 * d.c == mpq(sp - 2 * sq, mpz(4) ** k)\n"
        # VmHWM, this process's own peak: ru_maxrss keeps the peak of the pytest process that
        # started it (execve keeps the larger), over 200 MB on a busy xdist worker
        "print(next(line.split()[1] for line in open('/proc/self/status')\n"
        "           if line.startswith('VmHWM:')))\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True)
    assert int(out.stdout) < 200 * 1024, out.stdout  # kilobytes


@pytest.mark.parametrize("form", ["zcdp", "steps"])
def test_limits_memory_is_refused_where_no_polynomial_is_built(tmp_path, form):
    """rdp/zcdp of k runs and an adaptive composition build no polynomial: limits.memory
    given there is refused, naming it, not silently dropped."""
    from verifier.core.errors import SpecError
    from verifier.specs.compose import load_compose_spec

    spec = tmp_path / "spec.toml"
    if form == "zcdp":
        body = ('[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\n'
                'kind = "randomized_response"\ntruth = "3/4"\n[query]\n'
                'notions = ["zcdp"]\nrho = "1/2"\n')
    else:
        body = ('[data]\nrecords = 1\nvalues = [0, 1]\n[composition]\n'
                'steps = ["m:first"]\n[query]\nepsilon = "ln(2)"\n')
    spec.write_text(body + "[limits]\nmemory = 1000000\n")
    with pytest.raises(SpecError) as err:
        load_compose_spec(spec)
    assert "limits.memory" in str(err.value)


def _held(streams: dict) -> int:
    """Bytes of the exact integers the streams hold (checkpoints and regenerated blocks),
    counted as the estimates count one integer: its digits and 32 bytes."""
    return sum(int(x.bit_length()) // 8 + 32 for s in {id(s): s for s in streams.values()}
               .values() for x in [*(y for w, acc in s._marks for y in (*w, acc)),
                                   *(y for v in s._cached.values() for y in v)])


def test_limits_memory_counts_the_streams_other_pairs_hold(tmp_path):
    """A count of 6 records with geometric noise (α = 1/2) clamped to 0..6: the pairs
    (c, c + 1) differ near the clamped ends, so the replace-one pairs have several distinct
    laws, and their powers are all kept for the reverse pairs. Run without a limit, the
    streams held at the end exceed 750,000 bytes (counted off their integers); a
    limits.memory of 750,000 must then refuse, not be passed by checking each pair alone."""
    from verifier.commands.compose import compose_spec
    from verifier.notions.composition import exact

    body = ('[data]\nrecords = 6\nvalues = [0, 1]\n[mechanism]\nkind = "geometric_count"\n'
            'alpha = "1/2"\n[query]\nepsilon = "ln(3)"\ndelta = "1/1000"\nnotions = ["dp"]\n')
    spec = tmp_path / "count.toml"
    spec.write_text(body)
    kept: list[dict] = []
    pair_case = exact._pair_case

    def spy(*args, **kwargs):
        kept.append(args[7])
        return pair_case(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exact, "_pair_case", spy)
        compose_spec(spec, 2000)
    assert len({id(s) for s in kept[-1].values()}) >= 3 and _held(kept[-1]) > 750_000
    spec.write_text(body + "[limits]\nmemory = 750000\n")
    with pytest.raises(BudgetExceeded) as err:
        compose_spec(spec, 2000)
    assert err.value.key == "limits.memory"  # type: ignore[attr-defined]
