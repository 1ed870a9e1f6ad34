"""What a check reports: tight δ at the claimed ε, tight ε at the claimed δ, the verdict, a witness.

Every notion (DP, APK, PPK, noiseless) reduces to a family of *cases*, each with its own
privacy loss; the notion's δ(ε) is the largest δ over the cases and its tight ε the largest
tight ε (each δ is non-increasing in ε, so ``max_k δ_k(ε) ≤ δ`` iff ``ε ≥ max_k ε_k(δ)``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from itertools import islice

from gmpy2 import mpq

from verifier.core.certified import compare_exp, decimal_string, shown_decimal
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import VerifierError
from verifier.core.numbers import Rational, format_rational
from verifier.notions.html_page import Html, exact, fragment, section, table, verdict
from verifier.notions.loss import Loss, LossKind, LossLaw
from verifier.notions.serial import result_json

__all__ = ["Case", "NotionResult", "Summary", "summarize", "MAX_WITNESS_OUTPUTS", "VACUOUS_NOTE",
           "VACUOUS_RELATION_NOTE", "witness_text", "witness_items", "show_value", "with_approx",
           "results_repr", "results_html", "results_parts", "witness_html"]

MAX_WITNESS_OUTPUTS = 100  # a witness lists at most this many outputs (and says how many)
VACUOUS_NOTE = ("vacuously: the compared values have probability 0 for every target, so no "
                "pair of them can occur and δ = 0")
VACUOUS_RELATION_NOTE = ("vacuously: the neighbouring relation has no pair of inputs, so "
                         "nothing is compared and δ = 0 at every ε")


@dataclass(frozen=True)
class Case:
    """One comparison: a label (which databases, index, values, background) and its loss.

    ``outputs`` yields ``(output, loss)`` on demand, to name the outputs of a witness.
    """

    label: Mapping[str, object]
    loss: LossLaw
    outputs: Callable[[], Iterable[tuple[Hashable, Loss]]] = lambda: ()
    count: int = 1  # the comparisons this case stands for (a worst over several)
    laws: tuple | None = None  # (P, Q): the two output laws, where a DP case has them


@dataclass(frozen=True)
class NotionResult:
    """The exact answer for one notion.

    ``delta`` is the tight δ at the query's ε, ``epsilon`` the tight ε at the query's δ,
    ``holds`` whether (ε, δ) is satisfied, ``witness`` the case attaining ``delta`` and the
    outputs that contribute to it (those with loss > ε). ``details`` holds notion-specific
    rows (e.g. APK δ per background value).
    """

    notion: str
    query_epsilon: Epsilon
    query_delta: mpq
    delta: Delta
    epsilon: Epsilon
    holds: bool
    witness: Mapping[str, object]
    cases: int
    details: Sequence = field(default=())
    # the privacy loss of the witness (or worst case) shown: for plrv report's histogram
    loss: LossLaw | None = field(default=None, compare=False, repr=False)

    def to_dict(self, full: bool = False) -> dict:
        """This result as JSON-ready data: one notion's entry of ``plrv check --json``
        (``--full`` with ``full``; :mod:`verifier.core.vocabulary`)."""
        return result_json(self, full=full)

    def __repr__(self) -> str:
        """The verdict, the claim, the tight values (exact, with a certified decimal where
        irrational) and the witness in brief.

        >>> from verifier.model.mechanisms import randomized_response
        >>> from verifier.notions.dp.api import check_dp
        >>> from verifier.notions.dp.neighbours import replace_one
        >>> check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), "ln(2)", "1/8")
        ... # doctest: +NORMALIZE_WHITESPACE
        NotionResult(dp FAILS at ε = ln(2), δ = 1/8: tight δ(ε) = 1/4 > 1/8,
            tight ε(δ) = ln(5/2) ≈ 0.91629; witness: databases [0] vs [1] (differing in
            record 0), outputs (0,): ln(3); 2 cases)
        """
        tight_d, tight_e = with_approx(self.delta), with_approx(self.epsilon)
        relation = "≤" if self.holds else ">"
        which = "worst case" if self.holds else "witness"
        return (f"NotionResult({self.notion} {'holds' if self.holds else 'FAILS'} at "
                f"ε = {self.query_epsilon}, δ = {format_rational(self.query_delta)}: "
                f"tight δ(ε) = {tight_d} {relation} {format_rational(self.query_delta)}, "
                f"tight ε(δ) = {tight_e}; {which}: {witness_text(self.witness)}; "
                f"{self.cases} case{'s' if self.cases != 1 else ''})")

    def _repr_html_(self) -> str:
        """A small table for notebooks: verdict, claim, tight values, witness."""
        return results_html({self.notion: self})


def _listed(case: Case, keep: Callable[[Loss], bool]) -> dict:
    """``case``'s label with the outputs whose loss ``keep`` selects (at most
    :data:`MAX_WITNESS_OUTPUTS`, and a flag when there are more)."""
    chosen = islice(((o, loss) for o, loss in case.outputs() if keep(loss)),
                    MAX_WITNESS_OUTPUTS + 1)
    listed = [(o, str(loss)) for o, loss in chosen]
    witness = dict(case.label)
    witness["outputs"] = listed[:MAX_WITNESS_OUTPUTS]
    if len(listed) > MAX_WITNESS_OUTPUTS:
        witness["outputs_truncated"] = True
    return witness


@dataclass(frozen=True)
class _Fixed:
    """The outputs of a witness, computed already (picklable, unlike a closure)."""

    outputs: tuple

    def __call__(self) -> Iterable[tuple[Hashable, Loss]]:
        return iter(self.outputs)


@dataclass
class Summary:
    """The running worst over an enumeration of cases, mergeable in enumeration order.

    ``worst_delta`` is the largest δ at ε seen and ``delta_case`` the first case attaining it;
    ``worst_epsilon`` the largest tight ε at δ and ``epsilon_case`` the first case attaining
    it. Ties keep the earlier case, so the summaries of consecutive runs of one enumeration,
    merged in order (:meth:`merge`), are the summary of the whole: a sharded enumeration
    reports the serial run's numbers and witness.
    """

    eps: Epsilon
    delta: mpq
    count: int = 0
    worst_delta: Delta | None = None
    delta_case: Case | None = None
    worst_epsilon: Epsilon | None = None
    epsilon_case: Case | None = None

    def add(self, case: Case) -> None:
        self.count += case.count
        d = case.loss.delta(self.eps)
        if self.worst_delta is None or d.compare(self.worst_delta) > 0:
            self.worst_delta, self.delta_case = d, case
        e = case.loss.epsilon(self.delta)
        if self.worst_epsilon is None or e.compare(self.worst_epsilon) > 0:
            self.worst_epsilon, self.epsilon_case = e, case

    def merge(self, later: Summary) -> None:
        """Fold in the summary of the cases enumerated after this one's."""
        self.count += later.count
        if later.worst_delta is not None and (
                self.worst_delta is None or later.worst_delta.compare(self.worst_delta) > 0):
            self.worst_delta, self.delta_case = later.worst_delta, later.delta_case
        if later.worst_epsilon is not None and (
                self.worst_epsilon is None
                or later.worst_epsilon.compare(self.worst_epsilon) > 0):
            self.worst_epsilon, self.epsilon_case = later.worst_epsilon, later.epsilon_case

    def portable(self) -> Summary:
        """The same summary with its witnesses' outputs computed (for a shard to return):
        the outputs above ε of the δ-attaining case, those reaching the tight ε of the
        ε-attaining one — the lists :meth:`result` shows, whichever way the claim goes."""
        def fixed(case: Case | None, keep: Callable[[Loss], bool]) -> Case | None:
            if case is None:
                return None
            outs = islice((x for x in case.outputs() if keep(x[1])), MAX_WITNESS_OUTPUTS + 1)
            return Case(case.label, case.loss, _Fixed(tuple(outs)), case.count)

        return Summary(self.eps, self.delta, self.count, self.worst_delta,
                       fixed(self.delta_case, lambda x: x.exceeds(self.eps)),
                       self.worst_epsilon, fixed(self.epsilon_case, self._reaches))

    def _reaches(self, loss: Loss) -> bool:
        """Whether ``loss`` is at least the tight ε (an output where the worst case is
        reached); none is when the tight ε is 0 (every ratio is at most 1 there)."""
        e = self.worst_epsilon
        if e is None or e.is_zero:
            return False
        if loss.kind is LossKind.PLUS_INF:
            return True
        if loss.kind is not LossKind.FINITE or e.infinite:
            return False
        assert loss.ratio is not None  # a finite loss carries its ratio
        return compare_exp(loss.ratio, e) >= 0

    def result(self, notion: str, details: Sequence = ()) -> NotionResult:
        """The notion's answer. A claim that fails has for witness the first case whose δ
        at ε is the worst, with its outputs of loss > ε; a claim that holds has for worst
        case the first case whose tight ε is the worst, with its outputs of loss ≥ that ε."""
        eps, delta = self.eps, self.delta
        if self.worst_delta is None or self.worst_epsilon is None:
            # nothing to compare: dp's relation has no pair, or the partial-knowledge pairs
            # name only values the target never takes; the claim holds vacuously, δ = 0
            note = VACUOUS_RELATION_NOTE if notion == "dp" else VACUOUS_NOTE
            return NotionResult(notion, eps, delta, Delta.make(mpq(0), mpq(0), eps),
                                Epsilon.ZERO, True, {"note": note}, 0, details)
        holds = self.worst_delta.compare(delta) <= 0
        if holds:
            assert self.epsilon_case is not None
            case = self.epsilon_case
            witness = _listed(case, self._reaches)
        else:
            assert self.delta_case is not None
            case = self.delta_case
            witness = _listed(case, lambda loss: loss.exceeds(eps))
        return NotionResult(notion, eps, delta, self.worst_delta, self.worst_epsilon, holds,
                            witness, self.count, details, case.loss)


def summarize(notion: str, cases: Iterable[Case], eps: Epsilon, delta: mpq,
              details: Sequence = ()) -> NotionResult:
    """Worst δ at ε and worst ε at δ over ``cases``, with the witness (a claim that fails)
    or the worst case (a claim that holds): see :meth:`Summary.result`."""
    summary = Summary(eps, delta)
    for case in cases:
        summary.add(case)
    return summary.result(notion, details)


# ------------------------------------------------------------------------- display

_SHOWN_OUTPUTS = 3  # a repr names at most this many outputs of a witness
_HTML_OUTPUTS = 20  # the HTML table of a witness lists at most this many


def with_approx(value: Delta | Epsilon) -> str:
    """The exact value, with a certified decimal after it when it is not a short rational."""
    text = str(value)
    if isinstance(value, Delta) and value.is_rational or isinstance(value, Epsilon) and (
            value.infinite or value.is_zero or value.nats is not None):
        return text
    return f"{text} ≈ {shown_decimal(value)}"


def show_value(value: object, top: bool = True) -> str:
    """A witness value as text: rationals as ``3/4``, exact numbers as written, strings
    bare at the top level (a label) and quoted inside a container (an output)."""
    if isinstance(value, Rational):
        return format_rational(value)
    if isinstance(value, str):
        return value if top else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v, False) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(show_value(v, False) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{show_value(k, False)}: {show_value(v, False)}"
                               for k, v in value.items()) + "}"
    return str(value)


def witness_items(witness: Mapping[str, object]) -> list[tuple[str, str]]:
    """``(name, text)`` per entry of a witness: a compared pair as ``x vs y``, the outputs
    as ``output: loss``, the first few only."""
    items = []
    for key, value in witness.items():
        if key in ("outputs", "outputs_truncated"):
            continue
        if key in ("databases", "inputs") and isinstance(value, list) and len(value) == 2:
            items.append((key, f"{show_value(value[0])} vs {show_value(value[1])}"))
        else:
            items.append((key, show_value(value)))
    outputs = witness.get("outputs")
    if isinstance(outputs, list) and outputs:
        shown = [f"{show_value(o, False)}: {loss}" for o, loss in outputs[:_SHOWN_OUTPUTS]]
        more = len(outputs) - _SHOWN_OUTPUTS
        if more > 0 or witness.get("outputs_truncated"):
            shown.append(f"… {max(more, 0)} more" + (" (list truncated)"
                                                       if witness.get("outputs_truncated")
                                                       else ""))
        items.append(("outputs", ", ".join(shown)))
    return items


def witness_text(witness: Mapping[str, object]) -> str:
    """A witness in one line: ``databases [0] vs [1] (differing in record 0), outputs 0:
    ln(3)``; the record that differs in the words ``plrv check`` prints."""
    parts: list[str] = []
    for key, text in witness_items(witness):
        if key == "index" and parts and parts[-1].startswith("databases "):
            parts[-1] += f" (differing in record {text})"
        else:
            parts.append(f"{key} {text}")
    return ", ".join(parts) or "none"


def results_repr(kind: str, results: Mapping[str, NotionResult]) -> str:
    """``kind(holds=…, one result per line)``: the repr of a report of several notions."""
    holds = all(r.holds for r in results.values())
    lines = "".join(f"\n  {r!r}," for r in results.values())
    return f"{kind}(holds={holds},{lines}\n)"


def _value_html(value: Delta | Epsilon) -> Html:
    """An exact δ or ε with its certified decimal beside it."""
    return exact(str(value), value.approx())


def _loss_html(loss: str) -> Html:
    """A privacy loss as the witness lists it (``ln(3)``, ``+inf``), with a decimal when
    it is finite."""
    try:
        eps = parse_epsilon(loss)
    except VerifierError:
        return exact(loss)
    return exact(loss, None if eps.infinite else eps.approx())


def witness_html(witness: Mapping[str, object]) -> Html:
    """A witness (or worst case) as two small tables: what is compared, then its outputs
    with their privacy losses (the first :data:`_HTML_OUTPUTS`, and how many more)."""
    described = table(("", "value"), [(key, Html(f"<code>{escape(value)}</code>"))
                                      for key, value in witness_items(witness)
                                      if key != "outputs"])
    outputs = witness.get("outputs")
    if not isinstance(outputs, list) or not outputs:
        return described
    rows: list[tuple[object, object]] = [
        (Html(f"<code>{escape(show_value(o, False))}</code>"), _loss_html(str(loss)))
        for o, loss in outputs[:_HTML_OUTPUTS]]
    more = len(outputs) - _HTML_OUTPUTS
    if more > 0 or witness.get("outputs_truncated"):
        rows.append((f"… {max(more, 0)} more"
                     + (" (the list is truncated)" if witness.get("outputs_truncated") else ""),
                     ""))
    return Html(described + table(("output", "privacy loss"), rows))


def results_parts(results: Mapping[str, NotionResult]) -> list[Html]:
    """The sections of a check's report: the verdict of every notion with the claim and the
    tight values, then each notion's witness (a claim that fails) or worst case."""
    verdicts = table(("notion", "verdict", "claim ε", "claim δ", "tight δ at the claimed ε",
                      "tight ε at the claimed δ", "cases"), [
        (r.notion, verdict("holds" if r.holds else "FAILS"), _value_html(r.query_epsilon),
         exact(format_rational(r.query_delta), decimal_string(r.query_delta)),
         _value_html(r.delta), _value_html(r.epsilon), r.cases) for r in results.values()])
    parts = [section("Verdicts", verdicts)]
    for r in results.values():
        which = "worst case" if r.holds else "witness"
        parts.append(section(f"{r.notion}: {which}", witness_html(r.witness)))
    return parts


def results_html(results: Mapping[str, NotionResult], title: str = "plrv check") -> str:
    """The notebook view of a check (:mod:`verifier.notions.html_page`, the template of
    ``plrv report``): the verdicts, the claim, the tight values, the witnesses."""
    holds = all(r.holds for r in results.values())
    return str(fragment(title, "holds" if holds else "FAILS", results_parts(results)))
