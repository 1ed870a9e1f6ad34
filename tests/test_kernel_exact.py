"""The kernel's exact arithmetic against independent computations.

``exp_sign(r, x)`` — the sign of ``r − e^x`` — is compared with ``decimal``'s correctly
rounded ``exp`` at 100 digits (a different algorithm from the kernel's Taylor bounds), on
rationals a hair below and above ``e^x``; reading a certificate file is checked on the cases
that must be errors, each with its message.
"""

from __future__ import annotations

import decimal
import json
import os
from fractions import Fraction

import pytest

from verifier.kernel import exact
from verifier.kernel.exact import Rejected, brief, exp_sign, load

CTX = decimal.Context(prec=100)
XS = [Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2), Fraction(3), Fraction(-3),
      Fraction(10), Fraction(-7, 3), Fraction(37, 2), Fraction(1, 1000)]


def _exp(x: Fraction) -> Fraction:
    """``e^x`` to 100 significant digits, as a rational (decimal rounds correctly)."""
    d = CTX.exp(CTX.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator)))
    return Fraction(d)


@pytest.mark.parametrize("x", XS, ids=str)
def test_exp_sign_separates_rationals_a_hair_from_e_to_the_x(x):
    e = _exp(x)
    for gap in (Fraction(1, 10 ** 12), Fraction(1, 10 ** 40)):
        below, above = e * (1 - gap), e * (1 + gap)
        assert exp_sign(below, x) == -1
        assert exp_sign(above, x) == 1


@pytest.mark.parametrize("r, x, sign", [
    (Fraction(0), Fraction(1), -1),       # 0 < e^x always
    (Fraction(0), Fraction(-2), -1),
    (Fraction(1), Fraction(-1), 1),       # 1 > 1/e
    (Fraction(1), Fraction(1), -1),       # 1 < e
    (Fraction(15, 2), Fraction(3), -1),   # 7.5 < e^3 ≈ 20.09 (the numerator has 4 bits)
    (Fraction(21), Fraction(3), 1),       # 21 > e^3
    (Fraction(3, 1024), Fraction(-6), 1),  # 0.00293 > e^-6 ≈ 0.00248
    (Fraction(2, 1024), Fraction(-6), -1),
    (Fraction(10 ** 6), Fraction(10 ** 9), -1),  # decided by bit sizes, at once
    (Fraction(1, 10 ** 6), Fraction(-10 ** 9), 1),
])
def test_exp_sign_on_hand_cases(r, x, sign):
    assert exp_sign(r, x) == sign


def test_brief_cuts_long_numbers_only():
    assert brief("7" * 60) == "7" * 60
    assert brief("7" * 61) == "7" * 25 + "…(61 characters)"


def test_a_key_given_twice_makes_the_file_unreadable(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"kind": "check", "kind": "pso"}', encoding="utf-8")
    with pytest.raises(ValueError, match="the key 'kind' is given twice in one object"):
        load(str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_only_a_regular_file_is_read(tmp_path):
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    with pytest.raises(ValueError, match="^not a regular file$"):
        load(str(pipe))


def test_the_size_cap_is_inclusive(tmp_path, monkeypatch):
    text = json.dumps({"a": "é"})  # non-ASCII: read as UTF-8 whatever the locale
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    size = path.stat().st_size
    monkeypatch.setattr(exact, "MAX_BYTES", size)
    assert load(str(path)) == {"a": "é"}
    monkeypatch.setattr(exact, "MAX_BYTES", size - 1)
    with pytest.raises(ValueError, match=f"^{size} bytes, over the kernel's limit of {size - 1}$"):
        load(str(path))


def test_a_dp_only_certificate_must_carry_the_defaults():
    spec = {"values": [0, 1], "records": 2, "models": [], "knowledge": [{"known": []}],
            "targets": [0], "pairs": [[0, 1], [1, 0]]}
    with pytest.raises(Rejected, match=r"spec.targets: a dp-only certificate has \[0, 1\], "
                                       r"not \[0\]"):
        exact._dp_defaults(spec)


@pytest.mark.parametrize("text", ["0", "0/1", "-0", "0/7"])
def test_zero_nats_is_the_rational_rate_one(text):
    eps = exact.Eps(text)
    assert eps.rate == 1 and eps.nats is None
    # at ε = 0 a δ is rational: A − C·e^ε written out is refused, never compared by bounds
    # (a tie such as 3/4 − 1/4·e^0 = 1/2 would never separate)
    assert exact.read_delta("1/2", eps, "d") == (Fraction(1, 2), Fraction(0))
    with pytest.raises(Rejected):
        exact.read_delta({"a": "3/4", "c": "1/4"}, eps, "d")


@pytest.mark.parametrize("r, sign", [(Fraction(1), 0), (Fraction(2), 1), (Fraction(1, 2), -1)])
def test_exp_sign_at_zero(r, sign):
    assert exp_sign(r, Fraction(0)) == sign
