"""benchmarks/fluid_resolution.py: one small network end to end."""

import pytest

from benchmarks import fluid_resolution as bench


def test_one_network_end_to_end():
    rows = bench.rows_for("fattree", 512, 2, [0.01, 0.05])
    assert [r["mapping"] for r in rows] == ["identity", "geometric"]
    for r in rows:
        assert r["events"] > r["events@0.01"] >= r["events@0.05"] > 0 and r["work_saved@0.05"] > 1
        # the coarser the resolution, the later the starts and reallocations: never faster here,
        # and within a few resolutions of the exact replay
        e1, e5 = (float(r[f"error@{q}"].rstrip("%")) for q in ("0.01", "0.05"))
        assert 0 <= e1 <= 3 and 0 <= e5 <= 15


def test_resolutions_are_checked():
    assert bench.parse_resolutions("0.02") == [0.02]
    with pytest.raises(SystemExit, match="--resolutions"):
        bench.parse_resolutions("0.01,1.5")
