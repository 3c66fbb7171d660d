"""Paired comparisons over seeds for the fleet experiment scripts (fleet_power.sh, fleet_tail.sh)."""
import math

# Two-sided 95% t quantiles by sample size (n - 1 degrees of freedom).
T95 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}


def paired_text(a, b):
    """The mean over seeds of a - b relative to b's mean, and its 95% t half-width: "+1.2 ± 0.3%"."""
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    m = sum(d) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1)) if n > 1 else float("nan")
    mb = sum(b) / n
    return f"{100 * m / mb:+.1f} ± {100 * T95.get(n, 1.96) * sd / math.sqrt(n) / mb:.1f}%"
