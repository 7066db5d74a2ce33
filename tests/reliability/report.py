"""The reliability report (`make reliability`): the corrupt-input matrix, kill -9 trials (of writers
and of a streaming query) and the concurrent soak at full size, written to bench/results/reliability.json and printed as a table.

    .venv/bin/python tests/reliability/report.py [--trials 50] [--soak-seconds 60]
"""
import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent.parent / "python")]

import corruption  # noqa: E402
import crash  # noqa: E402
import soak  # noqa: E402
import stream_crash  # noqa: E402
from conftest import build_silt_session  # noqa: E402

RESULTS = HERE.parent.parent / "bench" / "results" / "reliability.json"


def corrupt_matrix(spark, scratch):
    from silt.errors import translate
    pristine = {}
    for v2 in (False, True):
        p = scratch / ("pristine-v2" if v2 else "pristine")
        corruption.build_pristine(spark, p, v2=v2)
        pristine[v2] = (p, corruption.rows(spark, p))
    out = []
    for i, case in enumerate(corruption.CASES):
        src, expected = pristine[case.v2]
        t = scratch / f"case-{i}"
        shutil.copytree(src, t)
        named = case.damage(t)
        try:
            got, outcome = corruption.rows(spark, t), "read"
            ok = case.outcome == "read" and got == expected
            detail = "same rows as before the damage" if got == expected else "WRONG ROWS"
        except Exception as e:  # noqa: BLE001 - classified
            typed = translate(e)
            outcome = type(typed).__name__ if typed else type(e).__name__
            ok = case.outcome == "error" and outcome == case.error and named in str(typed)
            detail = str(typed or e).splitlines()[0][:160]
        out.append({"case": case.name, "expected": case.error or "correct read", "outcome": outcome,
                    "ok": ok, "detail": detail, "note": case.note})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--soak-seconds", type=float, default=60.0)
    args = ap.parse_args(argv)
    spark = build_silt_session(master="local[2]")
    spark.sparkContext.setLogLevel("OFF")
    scratch = Path(tempfile.mkdtemp(prefix="silt-reliability-"))
    try:
        t0 = time.time()
        matrix = corrupt_matrix(spark, scratch / "corrupt")
        print(f"corrupt inputs: {sum(c['ok'] for c in matrix)}/{len(matrix)} as expected", flush=True)
        crashes = crash.run_trials(spark, scratch / "crash", args.trials)
        print(f"kill -9 trials: {crashes['trials']} survived; in flight: {crashes['kills_by_operation_in_flight']}", flush=True)
        streamed = stream_crash.run_trials(spark, scratch / "stream", kill_points=[1, 2] * 3)
        print(f"streaming kill -9 trials: {len(streamed['kills'])} kills, {streamed['target_rows']} rows of "
              f"{streamed['source_rows']}, duplicated {streamed['duplicated']}, missing {streamed['missing']}", flush=True)
        soaked = soak.run_soak(spark, scratch / "soak", seconds=args.soak_seconds)
        print(f"soak: {soaked['commits']} commits in {soaked['seconds']} s ({soaked['commits_per_second']}/s), "
              f"conflicts {soaked['typed_conflicts']}, rebased {soaked['commits_rebased_over_concurrent_commits']}", flush=True)
        report = {"corrupt_inputs": matrix, "crash_trials": crashes, "stream_crash_trials": streamed, "soak": soaked,
                  "all_ok": all(c["ok"] for c in matrix) and streamed["duplicated"] == streamed["missing"] == 0,
                  "total_seconds": round(time.time() - t0)}
        RESULTS.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\n{'case':60s} {'expected':32s} outcome")
        for c in matrix:
            print(f"{c['case'][:60]:60s} {c['expected'][:32]:32s} {c['outcome']}{'' if c['ok'] else '  <-- UNEXPECTED'}")
        print(f"\nwritten to {RESULTS}")
        return 0 if report["all_ok"] else 1
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
