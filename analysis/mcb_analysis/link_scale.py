"""The main job's wide-area links, scaled to this machine (scripts/main-job.sh, README "The main
job's regime"): links chosen so that a 2-process job on 2 clusters takes the DAS-2's share
(`target`, Table 4) longer than on 1 cluster.

Probe runs give T1 (seconds per iteration on 1 cluster) and T2 (on 2) over the reference link
(1 ms, 100 Mbit/s), so W_ref = T2 - T1 is the time the link adds. Latency and transfer time are
scaled together by s1 = target x T1 / W_ref and probed again: U1, U2, so W(s1) = U2 - U1. The
link's cost is not quite proportional to s (each message also pays the emulation's wake-up), so
a line through (1, W_ref) and (s1, W(s1)) gives the final scale, where it predicts target x T1.

That line's value at s = 0 is the emulation's floor: what the link costs per iteration however
fast it is scaled. On a fast core the compute per iteration shrinks until target x T1 falls
near or below the floor, and no scale reaches the target (the penalty stays at 1 + floor / T1).
So the probes choose the grid as well: grid_for grows it until target x T1 is FLOOR_MARGIN
times the floor, and the main job probes again there.
"""

import math

REFERENCE_LATENCY_US = 1000.0    # the reference link: 1 ms ...
REFERENCE_BANDWIDTH_MBIT = 100.0  # ... and 100 Mbit/s (the DAS-2 backbone's bandwidth)
MIN_LATENCY_US = 5.0              # below this the emulation's wake-up dominates
# The link's designed share of an iteration (target x T1) must be this many times the floor, so
# that the scaled link, not the emulation's own cost, makes the penalty.
FLOOR_MARGIN = 3.0
# At most twice the starting grid: SOR's iterations grow with the grid too, so a run's time grows
# with its cube, and the demo's service-time runs stay within minutes. On a 2-core host whose
# grid-1024 iteration fits in cache (0.39 ms), the probes found a floor of 0.58 T1 and asked
# for 3328, where one 1-process run would take minutes; at 2048 the floor is 0.07 T1 there.
MAX_GRID = 2048
GRID_STEP = 256   # grids the process grids of the service times divide


def link(scale):
    """(latency, bandwidth) option values of the reference link scaled by `scale`: latency times
    scale (at least 5 us), bandwidth divided by the same factor, e.g. ('500us', '200Mbit/s')."""
    lat = max(REFERENCE_LATENCY_US * scale, MIN_LATENCY_US)
    return f"{lat:.0f}us", f"{REFERENCE_BANDWIDTH_MBIT / (lat / 1000.0):.0f}Mbit/s"


def first_scale(target, t1, t2, max_scale):
    """s1 = target x T1 / W_ref, capped at max_scale, as text with four significant digits (the
    value the second probe and the fit use). On a busy host 2 clusters can come out no slower
    than 1 over the reference link (their waits sleep while the others poll): W_ref is then
    noise, and the cap keeps the scale from growing without bound."""
    return f"{min(target * t1 / max(t2 - t1, 1e-9), max_scale):.4g}"


def line(t1, t2, s1, u1, u2):
    """(a, b) of the line W(s) = a + b s through (1, W_ref) and (s1, W(s1)): a is the floor,
    the time per iteration the link adds at any scale; b the part that scales."""
    w_ref, w1 = t2 - t1, u2 - u1
    b = (w_ref - w1) / (1.0 - s1) if s1 != 1.0 else w_ref
    return w_ref - b, b


def grid_for(target, t1, floor, grid, margin=FLOOR_MARGIN, max_grid=MAX_GRID, step=GRID_STEP):
    """The grid at which target x T1 is at least `margin` times `floor` (both measured at
    `grid`). The floor is per message, and the messages per iteration do not grow with the grid,
    while the compute grows with its square: grid x sqrt(margin x floor / (target x T1)),
    rounded up to a multiple of `step`, at most `max_grid`. `grid` itself when it is enough
    already, or when the floor is not positive (the probes' noise hid it)."""
    if floor <= 0 or target * t1 >= margin * floor:
        return grid
    wanted = grid * math.sqrt(margin * floor / (target * t1))
    return min(max(grid, step * math.ceil(wanted / step)), max_grid)


def grid_line(target, t1, t2, s1, u1, u2, grid):
    """What the main job reads after the first probes: "GRID FLOOR_SHARE", the grid to measure
    at and the floor as a share of T1."""
    a, _ = line(t1, t2, s1, u1, u2)
    return f"{grid_for(target, t1, a, grid)} {max(a, 0.0) / t1:.3g}"


def final_scale(target, t1, t2, s1, u1, u2, max_scale):
    """The scale where the line W(s) = a + b s through (1, W_ref) and (s1, W(s1)) predicts
    target x T1; kept within a factor 4 of s1 when the probes disagree with a line (noise on a
    busy host), and at most max_scale. Returns (scale, W_ref, U2 / U1)."""
    a, b = line(t1, t2, s1, u1, u2)
    w_ref = t2 - t1
    s = (target * t1 - a) / b if b > 0 else s1
    s = min(max(s, s1 / 4), s1 * 4, max_scale)
    return s, w_ref, u2 / u1


def final_line(target, t1, t2, s1, u1, u2, max_scale):
    """What the main job reads: "LATENCY BANDWIDTH SCALE T1 W_REF PROBED_PENALTY"."""
    s, w_ref, probed = final_scale(target, t1, t2, s1, u1, u2, max_scale)
    latency, bandwidth = link(s)
    return f"{latency} {bandwidth} {s:.4g} {t1:.4g} {w_ref:.4g} {probed:.3g}"
