#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The DDP demo's comparison, short, through a real ina-switchd in the netns
lab (scripts/ddp_demo.py, what scripts/ddp-demo.sh runs):
four ranks, 60 steps with ina.ddp's hook and 60 with gloo. Asserts the
demo's verdict and, from its JSON, that the switch aggregated most
fragments, that every rank of a run ended with the same parameters, that the
parameter difference is within the stated bound and not zero-width by
accident (some scaling factor was chosen automatically), and that losses
agree step by step.

usage: test_ddp_lab.py BUILD_DIR [torchrun]     (root; skips without root or torch)

With torchrun, both runs are launched by torchrun, one per worker namespace
with c10d rendezvous on the first worker (ddp_demo.py --launcher torchrun),
and every rank of both runs must have its rank from torchrun (its run id),
ranks 0..3 each once.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "scripts", "ddp_demo.py")
STEPS = 60


def main():
    build = os.path.abspath(sys.argv[1])
    torchrun = sys.argv[2:] == ["torchrun"]
    if os.geteuid() != 0:
        harness.skip("needs root (network namespaces, AF_XDP, hugepages)")
    harness.need_torch()
    harness.need_ina()
    if torchrun and not os.access("/usr/bin/torchrun", os.X_OK):
        harness.skip("no /usr/bin/torchrun (python3-torch ships it; scripts/deps.sh)")
    try:
        import sklearn  # noqa: F401
    except ImportError:
        harness.skip("python3-sklearn is not installed (the digits data set); scripts/deps.sh")
    with tempfile.NamedTemporaryFile(suffix=".json") as js:
        p = subprocess.run(["/usr/bin/python3", DEMO, "--build", build, "--steps", str(STEPS),
                            "--json", js.name, "--timeout", "150", "--min-accuracy", "0.85",
                            "--prefix", "inalabddpr" if torchrun else "inalabddpt"] +
                           (["--launcher", "torchrun"] if torchrun else []),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=400)
        out = p.stdout
        print("\n".join(out.splitlines()[-8:]))
        assert out.rstrip().endswith("ddp: OK"), f"exit {p.returncode}:\n{out[-3000:]}"
        assert p.returncode == 0, p.returncode
        r = json.load(open(js.name))
    assert r["ok"] and r["steps"] == STEPS and r["world"] == 4, r
    assert r["replicas_agree_ina"] and r["replicas_agree_gloo"]
    assert r["max_param_diff"] <= r["bound"], (r["max_param_diff"], r["bound"])
    assert r["scale_first_step"] == 1e8 and r["scales"][0] != 1e8, (r["scale_first_step"], r["scales"])
    assert r["ps"]["share_in_network"] > 0.5, r["ps"]
    assert r["switch"]["completed"] > 0, r["switch"]
    assert abs(r["correct_ina"] - r["correct_gloo"]) <= 1
    for mode, ids in r["torchrun_run_ids"].items():
        if torchrun:
            assert len(ids) == 4 and all(ids) and len(set(ids)) == 1, (mode, ids)
        else:
            assert ids == [None] * 4, (mode, ids)
    for t, (a, b) in enumerate(zip(r["loss_ina"], r["loss_gloo"])):
        assert abs(a - b) <= 1e-4 * max(1.0, b), (t, a, b)
    print(f"ddp lab{' (torchrun)' if torchrun else ''}: OK (ratio to bound {r['max_param_diff'] / r['bound']:.3f}, "
          f"{100 * r['ps']['share_in_network']:.1f}% in the switch)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
