"""The shadow's comparisons as its /metrics reports them, summed by result, by cause and by
whether the HPA has `behavior`."""
import re
from collections import namedtuple

# The causes the shadow gives a comparison, in the order the report lists them.
CAUSES = ["agree", "inputs", "history", "warmup", "rules"]

# One series of hpa_controller_shadow_comparisons_total; cause is None when the shadow reports none.
Series = namedtuple("Series", "name result cause count")


class Tally:
    def __init__(self, comparisons, divergences):
        self.comparisons = comparisons  # [Series]
        self.divergences = divergences  # {(name, kind): count}

    @staticmethod
    def parse(metrics_text):
        comparisons, divergences = [], {}
        for line in metrics_text.splitlines():
            m = re.match(r'hpa_controller_shadow_(comparisons|divergences)_total\{(.*)\} (\S+)', line)
            if not m:
                continue
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
            count = int(float(m.group(3)))
            if m.group(1) == "comparisons":
                comparisons.append(Series(labels["name"], labels["result"], labels.get("cause"), count))
            else:
                divergences[(labels["name"], labels["kind"])] = count
        return Tally(comparisons, divergences)

    def count(self, name=None, result=None, cause=None, names=None):
        """Comparisons matching every filter given (`names`: of any of these HPAs)."""
        return sum(s.count for s in self.comparisons
                   if (name is None or s.name == name) and (result is None or s.result == result)
                   and (cause is None or s.cause == cause) and (names is None or s.name in names))

    def agreement(self):
        """Agreements over all comparisons, in percent; None without comparisons."""
        total = self.count()
        return 100.0 * self.count(result="agree") / total if total else None

    def by_cause(self):
        """{cause: comparisons}, the known causes first; None when the shadow reports no cause."""
        if not any(s.cause is not None for s in self.comparisons):
            return None
        causes = CAUSES + sorted({s.cause for s in self.comparisons if s.cause not in CAUSES} - {None})
        return {c: self.count(cause=c) for c in causes}

    def lines(self, with_behavior):
        """The report, `with_behavior` naming the HPAs that have `behavior`."""
        agree, diverge, agreement = self.count(result="agree"), self.count(result="diverge"), self.agreement()
        lines = [f"comparisons: {agree + diverge}, agreements: {agree}, divergences: {diverge}"
                 + (f", agreement {agreement:.2f} %" if agreement is not None else "")]
        causes = self.by_cause()
        lines.append("by cause: " + ", ".join(f"{c} {n}" for c, n in causes.items()) if causes
                     else "cause: not reported")
        with_ = self.count(result="diverge", names=with_behavior)
        lines.append(f"divergences on HPAs without / with behavior: {diverge - with_} / {with_}")
        for (name, kind), v in sorted(self.divergences.items()):
            lines.append(f"  divergence {name} {kind}: {v}")
        return lines

    def as_json(self, with_behavior):
        diverge, with_ = self.count(result="diverge"), self.count(result="diverge", names=with_behavior)
        return {"comparisons": self.count(), "agree": self.count(result="agree"), "diverge": diverge,
                "agreementPercent": self.agreement(), "byCause": self.by_cause(),
                "divergencesWithoutBehavior": diverge - with_, "divergencesWithBehavior": with_,
                "divergences": {f"{n} {k}": v for (n, k), v in self.divergences.items()}}
