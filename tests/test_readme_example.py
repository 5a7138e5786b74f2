"""The README's example runs on the bundled data and prints what lastz printed."""
import subprocess
import sys

from conftest import REPO, drop_version


def _fastz(*args):
    return subprocess.run([sys.executable, "-m", "fastz", *args], cwd=REPO,
                          capture_output=True, check=True).stdout


def test_readme_example_equals_lastz_golden():
    # golden made by the real lastz 1.04.22: see data/README.md
    want = (REPO / "data" / "human_mt.orangutan_mt.lastz.maf").read_bytes()
    got = _fastz("data/human_mt.fa", "data/orangutan_mt.fa", "--format=maf")
    assert drop_version(got) == drop_version(want)


def test_default_lav_on_lastz_regression_pair():
    want = (REPO / "data" / "pseudocat.pseudopig.lastz.lav").read_bytes()
    got = _fastz("data/pseudocat.fa", "data/pseudopig.fa")
    assert drop_version(got) == drop_version(want)
