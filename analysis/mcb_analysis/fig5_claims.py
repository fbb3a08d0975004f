"""The conclusions of the DAS-2 paper's sections 5 and 6, each evaluated on located saturation
points (analysis/fig5_study.py) as held or failed, with the numbers and whether each difference
is larger than its 95% interval.

A claim is a set of comparisons between two curves (job mix, policy, rule). Each comparison
takes the paired differences of the two curves' values over the replications (the same seeds):
  '>'   held if the mean difference is > 0; beyond the interval if it exceeds its half-width;
  '>~'  "maintains or slightly improves": held if the difference is > -max(half-width, TOL);
  '~'   "similar": held if |difference| <= max(half-width, TOL).
Sections 5.x compare saturation points (gross utilization); section 6 compares the gross minus
net utilization at the saturation point (or, with --loss-at base, at the study's light load).
"""

import math

TOL = 0.01       # saturation points closer than this are "similar" (the bisection's resolution x 2)
TOL_LOSS = 0.002  # gross - net at the light load closer than this are "similar"

# Student t, two-sided 95%, by degrees of freedom.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def interval(values):
    """(mean, 95% half-width) of a list of numbers; half-width inf below two values."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    t = _T95[n - 2] if n - 2 < len(_T95) else 1.96
    return mean, t * math.sqrt(var / n)


def points_of(rows):
    """Per curve (mix, policy, rule): the saturation points by replication, mean and interval."""
    by = {}
    for r in rows:
        key = (r["mix"], r["policy"], r["rule"])
        p = by.setdefault(key, {"values": {}, "loss": {}, "censored": ""})
        p["values"][r["replication"]] = r["knee_gross"]
        p["loss"][r["replication"]] = r["loss"]
        if r["censored"]:
            p["censored"] = r["censored"]
    for p in by.values():
        p["mean"], p["half"] = interval(list(p["values"].values()))
        p["n"] = len(p["values"])
    return by


def _label(key):
    mix, policy, rule = key
    return f"{mix} {policy.upper()} [{rule}]"


def _compare(points, a, b, relation, field="values", tol=TOL):
    pa, pb = points.get(a), points.get(b)
    if pa is None or pb is None:
        return None
    reps = sorted(set(pa[field]) & set(pb[field]))
    diffs = [pa[field][k] - pb[field][k] for k in reps]
    mean, half = interval(diffs)
    if relation == ">":
        held = mean > 0
    elif relation == ">~":
        held = mean > -max(half, tol)
    else:
        held = abs(mean) <= max(half, tol)
    beyond = abs(mean) > half
    va = sum(pa[field].values()) / len(pa[field])
    vb = sum(pb[field].values()) / len(pb[field])
    return {"a": _label(a), "b": _label(b), "relation": relation, "a_value": va, "b_value": vb,
            "difference": mean, "half_width": half, "held": held, "beyond_interval": beyond}


def _best_pair(points, mix):
    """LS [fco] and LP [fco] against the best other curve of the mix, per replication."""
    top = [(mix, "ls", "fco"), (mix, "lp", "fco")]
    others = [k for k in points if k[0] == mix and k not in top]
    if any(k not in points for k in top) or not others:
        return None
    reps = sorted(points[top[0]]["values"])
    diffs, best_other = [], None
    for k in reps:
        low_top = min(points[t]["values"][k] for t in top)
        other = max(others, key=lambda o: points[o]["values"][k])
        diffs.append(low_top - points[other]["values"][k])
        best_other = other
    mean, half = interval(diffs)
    return {"a": f"{mix} min(LS [fco], LP [fco])", "b": f"{mix} best other ({_label(best_other)})",
            "relation": ">", "a_value": None, "b_value": None, "difference": mean,
            "half_width": half, "held": mean > 0, "beyond_interval": abs(mean) > half}


def _claims():
    """(id, section, quoted text, function(points) -> comparisons)."""
    mixes, policies = ("poisson", "ensflow", "mixed"), ("gs", "ls", "lp")
    co_rules = ("co", "rco", "fco")

    def each(fn):
        return lambda pts: [c for c in fn(pts) if c is not None]

    return [
        ("P", "5.2", "The performance is the best for the Poisson application",
         each(lambda p: [_compare(p, ("poisson", po, r), (m, po, r), ">")
                         for po in policies for r in ("no",) + co_rules
                         for m in ("ensflow", "mixed")])),
        ("M", "5.2", "For all policies and co-allocation rules considered the worst performance "
                     "is displayed by the mix of the two applications",
         each(lambda p: [_compare(p, ("ensflow", po, r), ("mixed", po, r), ">")
                         for po in policies for r in ("no",) + co_rules])),
        ("CO", "5.2", "In all the graphs in Fig. 5 the [co] co-allocation rule yields the "
                      "poorest performance",
         each(lambda p: [_compare(p, (m, po, r), (m, po, "co"), ">")
                         for m in mixes for po in policies for r in ("no", "rco", "fco")])),
        ("R", "5.2", "imposing these restrictions significantly improves the performance "
                     "([rco], [fco] against [co])",
         each(lambda p: [_compare(p, (m, po, r), (m, po, "co"), ">")
                         for m in mixes for po in policies for r in ("rco", "fco")])),
        ("LSLP", "5.2", "For LS, the performance for both the [rco] and [fco] cases proves to be "
                        "much better than for the no co-allocation case. The same result holds "
                        "for LP.",
         each(lambda p: [_compare(p, (m, po, r), (m, po, "no"), ">")
                         for m in mixes for po in ("ls", "lp") for r in ("rco", "fco")])),
        ("GS", "5.2", "For GS, co-allocation does not enhance the performance, but maintains or "
                      "only slightly improves it with the [fco] restrictions [...] and "
                      "deteriorates it in the other cases",
         each(lambda p: [_compare(p, (m, "gs", "fco"), (m, "gs", "no"), ">~") for m in mixes] +
              [_compare(p, (m, "gs", "no"), (m, "gs", r), ">")
               for m in mixes for r in ("co", "rco")])),
        ("LPF", "5.3", "LP [...] the significant improvement brought by the [fco] restrictions "
                       "compared to the [rco] ones",
         each(lambda p: [_compare(p, (m, "lp", "fco"), (m, "lp", "rco"), ">") for m in mixes])),
        ("LSF", "5.3", "[LS:] avoiding jobs with many components does not influence the "
                       "performance much ([fco] similar to [rco])",
         each(lambda p: [_compare(p, (m, "ls", "fco"), (m, "ls", "rco"), "~") for m in mixes])),
        ("LSB", "5.4", "independent of the application mix LS provides the best results for the "
                       "co-allocation cases",
         each(lambda p: [_compare(p, (m, "ls", r), (m, o, r), ">")
                         for m in mixes for r in co_rules for o in ("gs", "lp")])),
        ("GSN", "5.4", "When there are only single-component jobs the performance of GS is "
                       "better",
         each(lambda p: [_compare(p, (m, "gs", "no"), (m, "ls", "no"), ">") for m in mixes])),
        ("LPN", "5.4", "LP becomes LS when there are just single-component jobs, so the "
                       "performance of the two policies is the same",
         each(lambda p: [_compare(p, (m, "lp", "no"), (m, "ls", "no"), "~") for m in mixes])),
        ("RCO", "5.4", "With the [rco] restrictions LS display much better results than LP",
         each(lambda p: [_compare(p, (m, "ls", "rco"), (m, "lp", "rco"), ">") for m in mixes])),
        ("OUT", "5.4", "once multi-component jobs are allowed, [LP and LS] outperform GS",
         each(lambda p: [_compare(p, (m, po, r), (m, "gs", r), ">")
                         for m in mixes for r in co_rules for po in ("ls", "lp")])),
        ("BEST", "5.4", "the best results are displayed by LP and LS with the [fco] restrictions",
         each(lambda p: [_best_pair(p, m) for m in mixes])),
        ("SIM", "5.4", "The similar performance of LS and LP in that case ([fco])",
         each(lambda p: [_compare(p, (m, "ls", "fco"), (m, "lp", "fco"), "~") for m in mixes])),
        ("G6P", "6", "The largest difference between the gross and the net utilizations is "
                     "always displayed for the Poisson application",
         each(lambda p: [_compare(p, ("poisson", po, r), (m, po, r), ">", "loss")
                         for po in policies for r in co_rules for m in ("ensflow", "mixed")])),
        ("G6R", "6", "the largest amount of intercluster communication is shown for the [rco] "
                     "restrictions, and the least for the [co] restrictions ([rco] > [fco] > "
                     "[co])",
         each(lambda p: [_compare(p, (m, po, a), (m, po, b), ">", "loss")
                         for m in mixes for po in policies
                         for a, b in (("rco", "fco"), ("fco", "co"))])),
        ("G6S", "6", "all the three policies show very similar differences between the graphs "
                     "for net and gross utilization",
         each(lambda p: [_compare(p, (m, a, r), (m, b, r), "~", "loss", TOL_LOSS)
                         for m in mixes for r in co_rules
                         for a, b in (("gs", "ls"), ("gs", "lp"), ("ls", "lp"))])),
    ]


def evaluate(rows, points):
    """Every claim with its comparisons; held when every comparison held."""
    del rows
    out = []
    for cid, section, text, fn in _claims():
        comps = fn(points)
        if not comps:
            continue
        out.append({"id": cid, "section": section, "claim": text,
                    "held": all(c["held"] for c in comps),
                    "comparisons": len(comps),
                    "comparisons_held": sum(c["held"] for c in comps),
                    "beyond_interval": sum(c["beyond_interval"] for c in comps),
                    "details": comps})
    return out


def _fmt(v, digits=3):
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def markdown(claims, points, description):
    lines = ["## Figure 5 study: saturation points and the paper's claims", "", description, "",
             "### Saturation points (gross utilization, mean ± 95% half-width)", "",
             "| mix | policy | [no] | [co] | [rco] | [fco] |", "|---|---|---|---|---|---|"]
    mixes = sorted({k[0] for k in points}, key=("poisson", "ensflow", "mixed").index)
    for m in mixes:
        for po in ("gs", "ls", "lp"):
            cells = []
            for r in ("no", "co", "rco", "fco"):
                p = points.get((m, po, r))
                cells.append("" if p is None else
                             f"{p['mean']:.3f} ± {p['half']:.3f}" +
                             (f" ({p['censored']})" if p["censored"] else ""))
            if any(cells):
                lines.append(f"| {m} | {po.upper()} | " + " | ".join(cells) + " |")
    lines += ["", "### Claims of sections 5 and 6", "",
              "| id | sect. | claim | verdict | comparisons held | beyond interval | "
              "failing comparisons (difference ± half-width) |",
              "|---|---|---|---|---|---|---|"]
    for c in claims:
        fails = [d for d in c["details"] if not d["held"]]
        shown = "; ".join(f"{d['a']} {d['relation']} {d['b']}: {_fmt(d['difference'])} ± "
                          f"{_fmt(d['half_width'])}" for d in fails[:4])
        if len(fails) > 4:
            shown += f"; and {len(fails) - 4} more"
        lines.append(f"| {c['id']} | {c['section']} | \"{c['claim']}\" | "
                     f"{'held' if c['held'] else 'FAILED'} | {c['comparisons_held']}/"
                     f"{c['comparisons']} | {c['beyond_interval']}/{c['comparisons']} | "
                     f"{shown} |")
    lines += ["", "'>' held: mean paired difference > 0; '~' held: |difference| <= max(half-width, "
              f"{TOL} for saturation points, {TOL_LOSS} for gross - net); '>~' held: difference "
              f"> -max(half-width, {TOL}). 'beyond interval': |difference| > its 95% half-width. "
              "Section 6 claims compare gross minus net utilization (where: see above).", ""]
    return "\n".join(lines)
