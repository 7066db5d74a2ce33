"""The OPTIMIZE benchmark's targets and report: the layout matrix, the speed table, and the rows of
the closing table of `python -m bench`.
"""
import statistics

from bench.machine_load import LOAD_WARNING

TARGET_RANGE = 0.16      # files scanned for a 1% range on x or on y
TARGET_BOX = 0.07        # files scanned for a 1% box on (x, y)
TARGET_FLOOR = 1.3       # silt / floor
TARGET_REFERENCE = 1.0   # silt / reference (strictly below)
DELTA_RS_ISSUE_FIGURE = "0.79-0.82"  # the issue's figure for delta-rs z_order, 1% range on x or y

VARIANTS = [  # (key, label, report only)
    ("silt_zorder_xy", "Silt ZORDER BY (x, y)", False),
    ("linear_xy", "linear sort (x, y), written by Silt", False),
    ("deltars_zorder", "delta-rs z_order([x, y])", False),
    ("reference_zorder", "reference Delta ZORDER BY (x, y)", True),
    ("floor_morton", "floor: range partitions of Morton key k", True),
    ("silt_zorder_xs", "Silt ZORDER BY (x, s)", True),
    ("ideal_grid_8x8", "ideal 8 x 8 grid on (x, y)", True),
]
METRICS = [  # (key, label)
    ("range_x", "1% x"), ("range_y", "1% y"), ("point_x", "pt x"), ("point_y", "pt y"),
    ("box_xy", "box xy"), ("range_s", "1% s"), ("point_s", "pt s"), ("box_xs", "box xs"),
]


def report_lines(r):
    """The full report: the layout matrix and the speed table."""
    lines = []
    head = ["layout (fraction of files scanned)", "files", "rows/file min-max"] + [m[1] for m in METRICS]
    table = [head]
    q = r["layout_files_scanned"]
    for key, label, report_only in VARIANTS:
        if key not in q:
            continue
        v = q[key]
        rpf = "-" if v["rows_per_file_min"] is None else f"{v['rows_per_file_min']:,}-{v['rows_per_file_max']:,}"
        table.append([label + (" *" if report_only else ""), str(v["files"]), rpf] +
                     ["-" if v[m] is None else f"{v[m]:.3f}" for m, _ in METRICS])
    w = [max(len(row[i]) for row in table) for i in range(len(head))]
    for j, row in enumerate(table):
        lines.append("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(row)))
        if j == 0:
            lines.append("  ".join("-" * x for x in w))
    lines.append(f"* report only. {r['queries_per_kind']} predicates of each kind; 1% = 1% of the value span; "
                 f"box = 0.1 x 0.1. Targets (Silt ZORDER BY (x, y)): 1% x, 1% y <= {TARGET_RANGE}, "
                 f"box xy <= {TARGET_BOX}. Issue's figure for delta-rs, 1% x or y: {r['delta_rs_issue_figure_range']}.")
    reps = r["silt_zorder_xy_every_rep"]
    if len(reps) > 1:
        lines.append("Silt ZORDER BY (x, y), every rep (1% x / 1% y / box xy): " +
                     ", ".join(f"{e['range_x']:.3f}/{e['range_y']:.3f}/{e['box_xy']:.3f}" for e in reps))
    bad = {k: v["points_in_no_file"] for k, v in q.items() if v["points_in_no_file"]}
    if bad:
        lines.append(f"WARNING: point predicates on existing values that scan no file (wrong statistics): {bad}")
    lines.append("")
    sp = r["speed"]
    m = sp["median_seconds"]
    rows = [("speed: OPTIMIZE ZORDER BY (x, y)", "value")]
    every = lambda k: ", ".join(f"{x:.2f}{'*' if a['other_load'] > LOAD_WARNING else ''}"
                                for x, a in zip(sp["seconds"][k], sp["runs"][k]))
    rows.append(("silt, every run (* = on a busy machine)", f"{every('silt')} s"))
    rows.append(("floor (Parquet, range partitions of k), every run", f"{every('floor')} s"))
    if "reference" in m:
        rows.append(("reference Delta, every run", f"{every('reference')} s"))
    t = r["targets"]
    rows.append((f"ratio silt/floor, median of pairs (target <= {TARGET_FLOOR})",
                 f"{sp['median_ratio_silt_over_floor']:.3f} {'ok' if t['silt_over_floor']['ok'] else 'ABOVE TARGET'}"
                 f"  [{sp.get('ratio_basis', 'all pairs')}]"))
    if "silt_over_reference" in t:
        rows.append((f"ratio silt/reference, medians (target < {TARGET_REFERENCE})",
                     f"{sp['ratio_silt_over_reference']:.3f} {'ok' if t['silt_over_reference']['ok'] else 'ABOVE TARGET'}"
                     f"  [{sp.get('ratio_silt_over_reference_basis', 'all runs')}]"))
    rows.append(("JVM CPU seconds, medians silt / floor" + (" / reference" if "reference" in m else ""),
                 " / ".join(f"{statistics.median(a['jvm_cpu_s'] for a in sp['runs'][k]):.0f} s"
                            for k in ("silt", "floor", "reference") if k in sp["runs"])))
    if sp.get("median_task_cpu_s"):
        mt = {k: sp["median_task_cpu_s"][k] for k in ("silt", "floor", "reference") if k in sp["median_task_cpu_s"]}
        rows.append(("task CPU seconds (Spark executorCpuTime), medians " + " / ".join(mt),
                     " / ".join(f"{v:.1f} s" for v in mt.values())))
        if sp.get("task_cpu_ratio_silt_over_floor"):
            rows.append(("task CPU ratio silt/floor", f"{sp['task_cpu_ratio_silt_over_floor']:.3f}"))
        if sp.get("task_cpu_ratio_silt_over_reference"):
            rows.append(("task CPU ratio silt/reference", f"{sp['task_cpu_ratio_silt_over_reference']:.3f}"))
    if sp.get("median_jvm_cpu_ratio_silt_over_floor"):
        rows.append(("JVM CPU ratio silt/floor, median of pairs", f"{sp['median_jvm_cpu_ratio_silt_over_floor']:.3f}"))
    rows.append(("silt ZORDER BY (x, s) (one run)", f"{r['silt_zorder_xs']['seconds']:.2f} s"))
    rows.append(("linear sort (x, y) written by Silt (one run)", f"{r['linear_sort_seconds']:.2f} s"))
    if r.get("deltars"):
        tr = r["deltars"]["tries"][-1]
        rows.append((f"delta-rs z_order (target_size {tr['target_size']:,}) (one run)", f"{tr['seconds']:.2f} s"))
    w = [max(len(x[i]) for x in rows) for i in range(2)]
    for j, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(row)))
        if j == 0:
            lines.append("  ".join("-" * x for x in w))
    if sp.get("busy_machine_runs"):
        lines.append(f"WARNING: other processes used more than {LOAD_WARNING:.0%} of the CPUs during: "
                     f"{', '.join(sp['busy_machine_runs'])}; their seconds are not comparable")
    lines.append(f"input: {r['input']['files']} files, {r['input']['bytes'] / 2**20:.0f} MiB, {r['rows']:,} rows; "
                 f"maxFileSize {r['max_file_size']:,} bytes; all targets met: {r['all_targets_met']}")
    return lines


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table of `python -m bench`."""
    q, t, sp = r["layout_files_scanned"]["silt_zorder_xy"], r["targets"], r["speed"]
    ok = lambda k: "ok" if t[k]["ok"] else "ABOVE TARGET"
    rows = [("optimize", f"ZORDER (x, y): files scanned, 1% range on x (target <= {TARGET_RANGE})", f"{q['range_x']:.3f} {ok('range_x')}"),
            ("optimize", f"ZORDER (x, y): files scanned, 1% range on y (target <= {TARGET_RANGE})", f"{q['range_y']:.3f} {ok('range_y')}"),
            ("optimize", f"ZORDER (x, y): files scanned, 1% box (target <= {TARGET_BOX})", f"{q['box_xy']:.3f} {ok('box_xy')}"),
            ("optimize", f"OPTIMIZE time ratio silt/floor (target <= {TARGET_FLOOR})",
             f"{sp['median_ratio_silt_over_floor']:.3f} {ok('silt_over_floor')}")]
    if "silt_over_reference" in t:
        rows.append(("optimize", f"OPTIMIZE time ratio silt/reference Delta (target < {TARGET_REFERENCE})",
                     f"{sp['ratio_silt_over_reference']:.3f} {ok('silt_over_reference')}"))
    return rows
