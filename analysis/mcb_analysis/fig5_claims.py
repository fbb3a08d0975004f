"""The conclusions of the DAS-2 paper's sections 5 and 6, each evaluated on located saturation
points (analysis/fig5_study.py) as held or failed, with the numbers and whether each difference
is larger than its 95% interval.

A claim is a set of comparisons between two curves (job mix, policy, rule). Each comparison
takes the paired differences d of the two curves' values over the replications (the same seeds),
their mean and a tie band t: the 95% half-width of the mean, and for saturation points at least
one bisection bracket (the bracket's width in offered net load times the curves' gross/net
ratio: points closer than that are not ordered by the bisection). |mean| <= t is a tie. How a
tie counts follows the claim's wording:
  '>='  "best", "worst", "poorest", "better", "outperform", "maintains": held unless the other
        curve is ahead beyond the band (mean >= -t); a tie does not fail it;
  '>>'  "much better", "significantly improves", "significant improvement": held only beyond
        the band (mean > t); a tie fails it;
  '~'   "similar", "the same": held on a tie;
  '<<'  LSF's "does not influence the performance much", which 5.3 sets against LP ("impact the
        performance more"): held when LS's own difference is a tie, or LP's difference for the
        same pair of rules exceeds LS's beyond the band of their paired difference.
Sections 5.x compare saturation points (gross utilization); section 6 compares the gross minus
net utilization at the saturation point (or, with --loss-at base, at the study's light load),
a measured quantity with no bracket, so its band is the interval alone.
"""

import math

# Student t, two-sided 95%, by degrees of freedom.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

# Where each claim's tie band comes from (the claims table's "tolerance" column).
BAND_POINTS = "paired 95% interval, at least one bisection bracket"
BAND_LOSS = "paired 95% interval"
BAND_LSF = "LP's gain from the same rules (5.3: many components 'impact the performance more' " \
           "for LP); paired 95% interval, at least one bracket"
# How each relation reads a tie (the claims table's "wording" column).
WORDING = {">=": "better/best: a tie holds", ">>": "much/significantly better: a tie fails",
           "~": "similar/the same: a tie holds", "<<": "not much, against LP's gain"}


def interval(values):
    """(mean, 95% half-width) of a list of numbers; half-width inf below two values."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    t = _T95[n - 2] if n - 2 < len(_T95) else 1.96
    return mean, t * math.sqrt(var / n)


def _bracket(r):
    """One replication's final bisection bracket in gross utilization (0 when censored)."""
    width = r.get("offered_high", 0.0) - r.get("offered_low", 0.0)
    net = r.get("knee_net") or 0.0
    ratio = r["knee_gross"] / net if net > 0 else 1.0
    return max(0.0, width) * ratio


def points_of(rows):
    """Per curve (mix, policy, rule): the saturation points by replication, mean and interval,
    and the widest bisection bracket of its replications (in gross utilization)."""
    by = {}
    for r in rows:
        key = (r["mix"], r["policy"], r["rule"])
        p = by.setdefault(key, {"values": {}, "loss": {}, "censored": "", "bracket": 0.0})
        p["values"][r["replication"]] = r["knee_gross"]
        p["loss"][r["replication"]] = r["loss"]
        p["bracket"] = max(p["bracket"], _bracket(r))
        if r["censored"]:
            p["censored"] = r["censored"]
    for p in by.values():
        p["mean"], p["half"] = interval(list(p["values"].values()))
        p["n"] = len(p["values"])
    return by


def _label(key):
    mix, policy, rule = key
    return f"{mix} {policy.upper()} [{rule}]"


def judge(relation, mean, band):
    """(held, tie) of a mean paired difference against its tie band under a relation."""
    tie = abs(mean) <= band
    if relation == ">=":
        return mean >= -band, tie
    if relation == ">>":
        return mean > band, tie
    if relation == "~":
        return tie, tie
    raise ValueError(f"unknown relation {relation}")


def _paired(pa, pb, field):
    reps = sorted(set(pa[field]) & set(pb[field]))
    return [pa[field][k] - pb[field][k] for k in reps]


def _floor(field, *curves):
    """The smallest difference the study resolves: one bracket for points, none for losses."""
    return max(c["bracket"] for c in curves) if field == "values" else 0.0


def _result(a, b, relation, values, diffs, floor):
    mean, half = interval(diffs)
    band = max(half, floor)
    held, tie = judge(relation, mean, band)
    return {"a": a, "b": b, "relation": relation, "a_value": values[0], "b_value": values[1],
            "difference": mean, "half_width": half, "band": band,
            "band_source": "bracket" if floor > half else "interval",
            "held": held, "tie": tie, "beyond_interval": abs(mean) > half}


def _compare(points, a, b, relation, field="values"):
    pa, pb = points.get(a), points.get(b)
    if pa is None or pb is None:
        return None
    va = sum(pa[field].values()) / len(pa[field])
    vb = sum(pb[field].values()) / len(pb[field])
    return _result(_label(a), _label(b), relation, (va, vb), _paired(pa, pb, field),
                   _floor(field, pa, pb))


def _smaller_gain(points, mix):
    """LSF: LS [fco] - [rco] is a tie, or smaller than LP [fco] - [rco] beyond its band."""
    keys = [(mix, po, r) for po in ("ls", "lp") for r in ("fco", "rco")]
    if any(k not in points for k in keys):
        return None
    ls_f, ls_r, lp_f, lp_r = (points[k] for k in keys)
    floor = _floor("values", ls_f, ls_r, lp_f, lp_r)
    ls_gain = _paired(ls_f, ls_r, "values")
    lp_gain = _paired(lp_f, lp_r, "values")
    own = _result(_label(keys[0]), _label(keys[1]), "~", (None, None), ls_gain, floor)
    lead = _result("", "", ">>", (None, None), [p - s for p, s in zip(lp_gain, ls_gain)],
                   floor)
    own["relation"], own["held"] = "<<", own["tie"] or lead["held"]
    own["lp_gain"] = interval(lp_gain)[0]
    own["lp_lead"], own["lp_lead_band"] = lead["difference"], lead["band"]
    return own


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
    floor = _floor("values", *(points[k] for k in top + others))
    return _result(f"{mix} min(LS [fco], LP [fco])", f"{mix} best other ({_label(best_other)})",
                   ">=", (None, None), diffs, floor)


def _claims():
    """(id, section, quoted text, relation, band source, function(points) -> comparisons)."""
    mixes, policies = ("poisson", "ensflow", "mixed"), ("gs", "ls", "lp")
    co_rules = ("co", "rco", "fco")

    def each(fn):
        return lambda pts: [c for c in fn(pts) if c is not None]

    return [
        ("P", "5.2", "The performance is the best for the Poisson application", ">=", BAND_POINTS,
         each(lambda p: [_compare(p, ("poisson", po, r), (m, po, r), ">=")
                         for po in policies for r in ("no",) + co_rules
                         for m in ("ensflow", "mixed")])),
        ("M", "5.2", "For all policies and co-allocation rules considered the worst performance "
                     "is displayed by the mix of the two applications", ">=", BAND_POINTS,
         each(lambda p: [_compare(p, ("ensflow", po, r), ("mixed", po, r), ">=")
                         for po in policies for r in ("no",) + co_rules])),
        ("CO", "5.2", "In all the graphs in Fig. 5 the [co] co-allocation rule yields the "
                      "poorest performance", ">=", BAND_POINTS,
         each(lambda p: [_compare(p, (m, po, r), (m, po, "co"), ">=")
                         for m in mixes for po in policies for r in ("no", "rco", "fco")])),
        ("R", "5.2", "imposing these restrictions significantly improves the performance "
                     "([rco], [fco] against [co])", ">>", BAND_POINTS,
         each(lambda p: [_compare(p, (m, po, r), (m, po, "co"), ">>")
                         for m in mixes for po in policies for r in ("rco", "fco")])),
        ("LSLP", "5.2", "For LS, the performance for both the [rco] and [fco] cases proves to be "
                        "much better than for the no co-allocation case. The same result holds "
                        "for LP.", ">>", BAND_POINTS,
         each(lambda p: [_compare(p, (m, po, r), (m, po, "no"), ">>")
                         for m in mixes for po in ("ls", "lp") for r in ("rco", "fco")])),
        ("GS", "5.2", "For GS, co-allocation does not enhance the performance, but maintains or "
                      "only slightly improves it with the [fco] restrictions [...] and "
                      "deteriorates it in the other cases", ">=", BAND_POINTS,
         each(lambda p: [_compare(p, (m, "gs", "fco"), (m, "gs", "no"), ">=") for m in mixes] +
              [_compare(p, (m, "gs", "no"), (m, "gs", r), ">=")
               for m in mixes for r in ("co", "rco")])),
        ("LPF", "5.3", "LP [...] the significant improvement brought by the [fco] restrictions "
                       "compared to the [rco] ones", ">>", BAND_POINTS,
         each(lambda p: [_compare(p, (m, "lp", "fco"), (m, "lp", "rco"), ">>") for m in mixes])),
        ("LSF", "5.3", "[LS:] avoiding jobs with many components does not influence the "
                       "performance much ([fco] against [rco]; LP: 'impact the performance "
                       "more')", "<<", BAND_LSF,
         each(lambda p: [_smaller_gain(p, m) for m in mixes])),
        ("LSB", "5.4", "independent of the application mix LS provides the best results for the "
                       "co-allocation cases", ">=", BAND_POINTS,
         each(lambda p: [_compare(p, (m, "ls", r), (m, o, r), ">=")
                         for m in mixes for r in co_rules for o in ("gs", "lp")])),
        ("GSN", "5.4", "When there are only single-component jobs the performance of GS is "
                       "better", ">=", BAND_POINTS,
         each(lambda p: [_compare(p, (m, "gs", "no"), (m, "ls", "no"), ">=") for m in mixes])),
        ("LPN", "5.4", "LP becomes LS when there are just single-component jobs, so the "
                       "performance of the two policies is the same", "~", BAND_POINTS,
         each(lambda p: [_compare(p, (m, "lp", "no"), (m, "ls", "no"), "~") for m in mixes])),
        ("RCO", "5.4", "With the [rco] restrictions LS display much better results than LP",
         ">>", BAND_POINTS,
         each(lambda p: [_compare(p, (m, "ls", "rco"), (m, "lp", "rco"), ">>") for m in mixes])),
        ("OUT", "5.4", "once multi-component jobs are allowed, [LP and LS] outperform GS", ">=",
         BAND_POINTS,
         each(lambda p: [_compare(p, (m, po, r), (m, "gs", r), ">=")
                         for m in mixes for r in co_rules for po in ("ls", "lp")])),
        ("BEST", "5.4", "the best results are displayed by LP and LS with the [fco] restrictions",
         ">=", BAND_POINTS, each(lambda p: [_best_pair(p, m) for m in mixes])),
        ("SIM", "5.4", "The similar performance of LS and LP in that case ([fco])", "~",
         BAND_POINTS,
         each(lambda p: [_compare(p, (m, "ls", "fco"), (m, "lp", "fco"), "~") for m in mixes])),
        ("G6P", "6", "The largest difference between the gross and the net utilizations is "
                     "always displayed for the Poisson application", ">=", BAND_LOSS,
         each(lambda p: [_compare(p, ("poisson", po, r), (m, po, r), ">=", "loss")
                         for po in policies for r in co_rules for m in ("ensflow", "mixed")])),
        ("G6R", "6", "the largest amount of intercluster communication is shown for the [rco] "
                     "restrictions, and the least for the [co] restrictions ([rco] > [fco] > "
                     "[co])", ">=", BAND_LOSS,
         each(lambda p: [_compare(p, (m, po, a), (m, po, b), ">=", "loss")
                         for m in mixes for po in policies
                         for a, b in (("rco", "fco"), ("fco", "co"))])),
        ("G6S", "6", "all the three policies show very similar differences between the graphs "
                     "for net and gross utilization", "~", BAND_LOSS,
         each(lambda p: [_compare(p, (m, a, r), (m, b, r), "~", "loss")
                         for m in mixes for r in co_rules
                         for a, b in (("gs", "ls"), ("gs", "lp"), ("ls", "lp"))])),
    ]


def evaluate(rows, points):
    """Every claim with its comparisons; held when every comparison held."""
    del rows
    out = []
    for cid, section, text, relation, band, fn in _claims():
        comps = fn(points)
        if not comps:
            continue
        out.append({"id": cid, "section": section, "claim": text, "relation": relation,
                    "wording": WORDING[relation], "tolerance": band,
                    "held": all(c["held"] for c in comps),
                    "comparisons": len(comps),
                    "comparisons_held": sum(c["held"] for c in comps),
                    "ties": sum(c["tie"] for c in comps),
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
              "| id | sect. | claim | wording | tolerance (source) | verdict | comparisons held "
              "| ties | beyond interval | failing comparisons (difference ± band) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for c in claims:
        fails = [d for d in c["details"] if not d["held"]]
        shown = "; ".join(_failure(d) for d in fails[:4])
        if len(fails) > 4:
            shown += f"; and {len(fails) - 4} more"
        lines.append(f"| {c['id']} | {c['section']} | \"{c['claim']}\" | {c['wording']} | "
                     f"{c['tolerance']} | {'held' if c['held'] else 'FAILED'} | "
                     f"{c['comparisons_held']}/{c['comparisons']} | {c['ties']} | "
                     f"{c['beyond_interval']}/{c['comparisons']} | {shown} |")
    lines += ["", "A comparison's band is the 95% half-width of its mean paired difference, for "
              "saturation points at least one bisection bracket; |difference| <= band is a tie. "
              "'>=' (better, best, worst, poorest, outperform): held unless the other curve is "
              "ahead beyond the band, so a tie holds; '>>' (much better, significantly): held "
              "only beyond the band; '~' (similar, the same): held on a tie; '<<' (LSF): LS's "
              "[fco] - [rco] is a tie or smaller than LP's beyond their band. 'ties': "
              "comparisons within their band; 'beyond interval': |difference| > its 95% "
              "half-width. Section 6 claims compare gross minus net utilization (where: see "
              "above).", ""]
    return "\n".join(lines)


def _failure(d):
    text = (f"{d['a']} {d['relation']} {d['b']}: {_fmt(d['difference'])} ± "
            f"{_fmt(d['band'])}")
    if d["relation"] == "<<":
        text += (f" (LP's {_fmt(d['lp_gain'])}, LP - LS {_fmt(d['lp_lead'])} ± "
                 f"{_fmt(d['lp_lead_band'])})")
    return text
