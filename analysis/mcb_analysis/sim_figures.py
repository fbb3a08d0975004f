"""The DAS-2 paper's simulation figures from simulator sweeps: Figure 5 (average response time vs
gross utilization; policies top to bottom, job mixes left to right, one curve per co-allocation
rule) and Figures 6-8 (response time vs gross and net utilization for one policy), plus the
saturation table (the largest utilization each curve reached while stable)."""

import math

import matplotlib.pyplot as plt

from .output import Figure, Table, clean, headline
from .sweeps import MIX_ORDER, POLICY_ORDER, RULE_ORDER, order_key

RULE_STYLE = {"no": ("#1b1b1b", "o"), "co": ("#c0392b", "s"), "rco": ("#1b4f9c", "^"),
              "fco": ("#2a9d3a", "D")}
EXTRA = ["#7b3294", "#e08214", "#17becf", "#8c564b"]
PAPER_FIGURE = {"ls": 6, "gs": 7, "lp": 8}
LOG_ABOVE = 100.0   # stable responses spanning more than this ratio get a log axis
RESPONSE = "average response time (s)"


def _style(rule, i):
    return RULE_STYLE.get(rule, (EXTRA[i % len(EXTRA)], "v"))


def row_keys(curves):
    """Rows of Figure 5: one per (policy, placement, queue), the paper's order first."""
    keys = {c.scheduler for c in curves.values()}
    return sorted(keys, key=lambda k: (order_key(POLICY_ORDER)(k[0]), k[1], k[2]))


def row_label(key, keys):
    policy, placement, queue = key
    label = policy.upper()
    if len({k[1] for k in keys}) > 1:
        label += f" {placement.upper()}"
    if len({k[2] for k in keys}) > 1:
        label += f" {queue.upper()}"
    return label


def mixes_of(curves):
    return sorted({m for m, _ in curves}, key=order_key(MIX_ORDER))


def _in_mix(curves, mix):
    return [c for (m, _), c in curves.items() if m == mix]


def _finite(v):
    return v is not None and not math.isnan(v) and not math.isinf(v)


def stable_responses(curves):
    """The responses of the stable points of some curves (the only points an axis is fitted
    to: a saturated run's response depends on when it was stopped)."""
    return [c.response[i] for c in curves for i in c.stable
            if _finite(c.response[i]) and c.response[i] > 0]


def y_axis(curves):
    """The response axis of one mix, from its stable points only: (bottom, top, scale). Linear
    from 0 to just above the largest stable response; logarithmic when the stable responses
    span more than two decades, so the lowest curve stays readable. Saturated points go off the
    top."""
    values = stable_responses(curves)
    if not values:
        return 0.0, 1.0, "linear"
    low, high = min(values), max(values)
    if high / low > LOG_ABOVE:
        return low / 1.5, high * 1.5, "log"
    return 0.0, high * 1.08, "linear"


def y_top(curves):
    """The top of the response axis of one mix (see y_axis)."""
    return y_axis(curves)[1]


def legend_level(curves, top):
    """The response at which curves are compared for their right-to-left position (the plotted
    data's "position"): halfway between the lowest response and the top of the axis, where the
    curves rise steeply."""
    lows = [v for c in curves for v in c.response if _finite(v)]
    low = min(lows) if lows else 0.0
    return low + 0.5 * (top - low)


def polyline(curve, xs, top):
    """Points drawn for a curve: the stable points, then the first saturated point placed at
    the top edge (the curve leaves the axes there)."""
    keep = [i for i in curve.stable if _finite(curve.response[i]) and _finite(xs[i])]
    x = [xs[i] for i in keep]
    y = [curve.response[i] for i in keep]
    sat = None
    if curve.first_saturated is not None:
        # A run stopped early may have measured no utilization: its mark goes where the curve
        # ends (it saturated at the next rate).
        r = curve.response[curve.first_saturated]
        at = xs[curve.first_saturated]
        if not _finite(at):
            at = x[-1] if x else None
        if at is not None:
            sat = (at, r if _finite(r) else None)
    return x, y, sat


def crossing(x, y, sat, level):
    """Where a curve reaches `level` (its right-to-left position in the panel); a curve
    that stays below is placed by its right-most point (a saturated one counts as reaching)."""
    px, py = list(x), list(y)
    if sat is not None:
        px.append(sat[0])
        py.append(level if sat[1] is None else max(sat[1], level))
    for i in range(len(px)):
        if py[i] >= level:
            if i == 0:
                return px[0]
            x0, x1, y0, y1 = px[i - 1], px[i], py[i - 1], py[i]
            return x0 + (x1 - x0) * (level - y0) / (y1 - y0) if y1 != y0 else x1
    return (max(px) + 1.0) if px else -1.0  # never rises: right of every curve that does


def draw_curve(ax, x, y, sat, top, colour, marker, label, linestyle="-"):
    """Stable points as measured (the axes clip what rises above the top); the first saturated
    rate as a ^ on the top edge, joined by a dotted line while the curve is still inside."""
    ax.plot(x, y, color=colour, marker=marker, markersize=3.2, linewidth=1.3,
            linestyle=linestyle, label=label)
    if sat is not None:
        if x and y[-1] < top:
            ax.plot([x[-1], sat[0]], [y[-1], top], color=colour, linewidth=1.0, linestyle=":")
        ax.plot([sat[0]], [top], marker="^", color=colour, markersize=5, clip_on=False)


def _curve_data(label, x, y, sat, curve, level):
    return {"label": label, "policy": curve.policy, "rule": curve.rule,
            "placement": curve.placement, "queue": curve.queue,
            "x": clean(x), "y": clean(y),
            "first_saturated": None if sat is None else {"x": sat[0], "y": sat[1]},
            "max_stable_gross": curve.max_stable("gross"),
            "max_stable_net": curve.max_stable("net"),
            "saturated_within_sweep": curve.first_saturated is not None,
            "position": crossing(x, y, sat, level)}


def figure5(curves, label, figure_id, title_suffix=""):
    """Figure 5: rows policies (LS, LP, GS), columns job mixes, curves co-allocation rules."""
    mixes = mixes_of(curves)
    rows = row_keys(curves)
    fig, axes = plt.subplots(len(rows), len(mixes),
                             figsize=(3.3 * len(mixes) + 0.8, 2.55 * len(rows) + 0.9),
                             squeeze=False, layout="constrained")
    panels = []
    for j, mix in enumerate(mixes):
        in_mix = _in_mix(curves, mix)
        bottom, top, scale = y_axis(in_mix)
        level = legend_level(in_mix, top)
        for i, row in enumerate(rows):
            ax = axes[i][j]
            cs = [c for c in in_mix if c.scheduler == row]
            cs.sort(key=lambda c: order_key(RULE_ORDER)(c.rule))
            drawn = []
            lines = []  # (name, points) of the curves drawn so far in this panel
            for k, c in enumerate(cs):
                x, y, sat = polyline(c, c.gross, top)
                colour, marker = _style(c.rule, k)
                name = _legend_name(_coinciding(f"[{c.rule}]", (x, y, sat), lines), x)
                draw_curve(ax, x, y, sat, top, colour, marker, name)
                drawn.append(_curve_data(name, x, y, sat, c, level))
            legend = _legend_in_drawn_order(ax, drawn)
            panel_title = f"{row_label(row, rows)}, {mix}"
            _frame(ax, panel_title, _x_range(in_mix), (bottom, top, scale), "gross utilization",
                   last_row=i == len(rows) - 1, first_column=j == 0)
            note = _saturation_note(ax, drawn)
            panels.append({"title": panel_title, "policy": row[0],
                           "placement": row[1], "queue": row[2], "mix": mix,
                           "xlabel": "gross utilization", "ylabel": RESPONSE,
                           "y_bottom": bottom, "y_top": top, "y_scale": scale,
                           "legend": legend, "note": note, "curves": drawn})
    title = ("Figure 5: average response time vs gross utilization, policies (rows) x job "
             "mixes (columns), one curve per co-allocation rule; ^ at the top: the first "
             "saturated rate; legends list the rules in the same order in every panel" +
             title_suffix)
    headline(fig, title, label)
    return Figure(figure_id, title, fig, {"panels": panels, "rows": [row_label(r, rows)
                                                                     for r in rows],
                                          "columns": mixes})


def _coinciding(name, points, lines):
    """A curve with the same points as one drawn before it in the panel covers that one; its
    legend entry names both ("[co] = [no]"), so the covered curve is not lost."""
    same = [n for n, pts in lines if pts == points]
    lines.append((name, points))
    return f"{name} = {same[0]}" if same else name


def _legend_name(name, x):
    """A curve without a stable point has nothing drawn but its saturation mark: its legend
    entry says so."""
    return name if x else f"{name} saturated throughout"


def _saturation_note(ax, drawn):
    """A panel none of whose curves has a stable point says so inside it; returns the note."""
    if not drawn or any(d["x"] for d in drawn):
        return None
    note = "every curve saturated at\nevery rate simulated"
    ax.text(0.5, 0.5, note, ha="center", va="center", transform=ax.transAxes, color="0.3",
            fontsize=8)
    return note.replace("\n", " ")


def _frame(ax, title, x_range, y_range, xlabel, last_row, first_column):
    """A panel's axes: utilization over x_range, response over y_range (bottom, top, scale);
    the axis labels on the bottom row and the left column only."""
    bottom, top, scale = y_range
    ax.set_xlim(x_range)
    ax.set_yscale(scale)
    ax.set_ylim(bottom, top)
    ax.grid(linewidth=0.4, alpha=0.5)
    ax.set_title(title)
    if last_row:
        ax.set_xlabel(xlabel)
    if first_column:
        ax.set_ylabel(RESPONSE)


def _legend_in_drawn_order(ax, drawn):
    """Legend entries in the order the curves were drawn: the rules' order ([no], [co], [rco],
    [fco]) in Figure 5, gross then net in Figures 6-8, so a curve has the same place in the
    legend of every panel."""
    handles, labels = ax.get_legend_handles_labels()
    by_label = dict(zip(labels, handles))
    names = [d["label"] for d in drawn]
    ax.legend([by_label[n] for n in names], names, loc="best", frameon=False,
              handlelength=1.6, borderaxespad=0.3)
    return names


def _x_range(curves):
    xs = [v for c in curves for v in c.gross + c.net if _finite(v)]
    lo = min(xs) if xs else 0.0
    return (max(0.0, math.floor(lo * 10) / 10 - 0.02), 1.0)


def gross_net_figure(curves, policy_key, label, figure_id, title_prefix, title_suffix=""):
    """Figures 6-8: for one policy, rows job mixes, columns the rules that allow co-allocation;
    two curves per panel, against gross (solid) and net (dashed) utilization."""
    mixes = mixes_of(curves)
    rules = sorted({c.rule for c in curves.values() if c.rule != "no"},
                   key=order_key(RULE_ORDER))
    fig, axes = plt.subplots(len(mixes), len(rules),
                             figsize=(3.1 * len(rules) + 0.8, 2.45 * len(mixes) + 0.9),
                             squeeze=False, layout="constrained")
    panels = []
    for i, mix in enumerate(mixes):
        in_mix = _in_mix(curves, mix)
        mine = [c for c in in_mix if c.scheduler == policy_key]
        bottom, top, scale = y_axis(mine or in_mix)
        level = legend_level(mine or in_mix, top)
        for j, rule in enumerate(rules):
            ax = axes[i][j]
            c = next((c for c in mine if c.rule == rule), None)
            drawn = []
            if c is not None:
                colour, marker = _style(rule, j)
                lines = []
                for which, style, xs in (("gross", "-", c.gross), ("net", "--", c.net)):
                    x, y, sat = polyline(c, xs, top)
                    name = _legend_name(_coinciding(f"{which} utilization", (x, y, sat), lines),
                                        x)
                    draw_curve(ax, x, y, sat, top, colour if which == "gross" else "0.45",
                               marker, name, linestyle=style)
                    d = _curve_data(name, x, y, sat, c, level)
                    d["utilization"] = which
                    drawn.append(d)
                legend = _legend_in_drawn_order(ax, drawn)
            else:
                legend = []
                ax.text(0.5, 0.5, "not simulated", ha="center", va="center",
                        transform=ax.transAxes, color="0.4")
            _frame(ax, f"{mix}, [{rule}]", _x_range(mine or in_mix), (bottom, top, scale),
                   "utilization", last_row=i == len(mixes) - 1, first_column=j == 0)
            note = _saturation_note(ax, drawn)
            panels.append({"title": f"{mix}, [{rule}]", "mix": mix, "rule": rule,
                           "xlabel": "utilization", "ylabel": RESPONSE,
                           "y_bottom": bottom, "y_top": top, "y_scale": scale,
                           "legend": legend, "note": note, "curves": drawn})
    title = (f"{title_prefix}: average response time vs gross (solid) and net (dashed) "
             f"utilization, {row_label(policy_key, [policy_key])}, job mixes (rows) x "
             f"co-allocation rules (columns)" + title_suffix)
    headline(fig, title, label)
    return Figure(figure_id, title, fig, {"panels": panels, "policy": policy_key[0],
                                          "rows": mixes, "columns": rules})


def saturation_table(curves, table_id, title):
    """The largest gross (and net) utilization each curve reached before saturating: rows
    (mix, policy), column groups the rules. '>=' marks curves that never saturated in the
    sweep (the value is a lower bound)."""
    mixes = mixes_of(curves)
    rows = row_keys(curves)
    rules = sorted({c.rule for c in curves.values()}, key=order_key(RULE_ORDER))
    table = Table(table_id, title, ["job mix", "policy"] + ["gross", "net"] * len(rules),
                  groups=[(f"[{r}]", 2) for r in rules])
    for mix in mixes:
        for row in rows:
            cells = [mix, row_label(row, rows)]
            for rule in rules:
                c = curves.get((mix, (row[0], row[1], rule, row[2])))
                if c is None or c.last_stable is None:
                    cells += [None, None]
                    continue
                mark = "" if c.first_saturated is not None else "≥"
                g, n = c.max_stable("gross"), c.max_stable("net")
                cells += [(mark + _utilization(g), g), (mark + _utilization(n), n)]
            table.add(cells)
    table.notes.append("Each cell: the gross (net) utilization of the last arrival rate at which "
                       "the run was not saturated; '≥' marks curves that did not saturate "
                       "within the sweep.")
    return table


def _utilization(u):
    return f"{u:.3f}" if _finite(u) else "—"


def paper_figure_number(policy):
    return PAPER_FIGURE.get(policy)
