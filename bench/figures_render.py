"""How each block of bench/figures.py reads its result files: markdown from the JSON, nothing typed by hand.

Every number here comes from a result file; the fixed words describe the workload as the
benchmark's code fixes it (bench/README.md), never a measured value.
"""
import re
import textwrap

WIDTH = 100  # the pages' line length
GLUE = "\x00"  # holds a number to its unit while wrapping


def para(text):
    """A paragraph wrapped to the pages' width; a number stays on the line of its unit."""
    text = re.sub(r"(\d) (?=(?:s|MiB|GiB|M|k|rows|files|CPUs)\b)", r"\1" + GLUE, " ".join(text.split()))
    return textwrap.fill(text, WIDTH, break_long_words=False, break_on_hyphens=False).replace(GLUE, " ")


def secs(x):
    """Seconds as the pages write them: 0.41 s, 15.1 s, 156 s."""
    return f"{x:.2f} s" if x < 10 else f"{x:.1f} s" if x < 100 else f"{x:.0f} s"


def count(n):
    """A size as the pages write it: 10 k, 5 M, 1,500."""
    for unit, name in ((1_000_000, "M"), (1_000, "k")):
        if n >= unit and n % unit == 0:
            return f"{n // unit:,} {name}"
    return f"{n:,}"


def speedup(reference, silt):
    """Reference seconds over Silt's, said both ways: 4.20x, 1.00x (even), 0.95x (slower)."""
    x = reference / silt
    shown = f"{x:.2f}x"
    return shown if shown != "1.00x" and x > 1 else f"{shown} (even)" if shown == "1.00x" else f"{shown} (slower)"


def frac(x):
    """A share of files read: 0.140."""
    return f"{x:.3f}"


def pct(x):
    """A share as a percentage: 73%."""
    return f"{100 * x:.0f}%"


def table(header, rows):
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def reference_name(package):
    """io.delta:delta-spark_2.13:4.4.0 -> Delta Lake 4.4.0."""
    return f"Delta Lake {package.rsplit(':', 1)[-1]}"


# ---- peers ----------------------------------------------------------------------------------

# What each operation of bench/peers.py does (its docstring), in the table and in a list; a new
# operation needs a line here.
PEER_OPERATIONS = {
    "write": ("write (`df.write`)", "write"),
    "scan": ("full scan (count and sum of every file)", "full scan"),
    "point": ("point query (`id = <key>`: one file of {files} holds it)", "point query"),
    "delete_dv": ("DELETE with deletion vectors (0.1% of the rows, in every file)", "DELETE with DVs"),
    "update_dv": ("UPDATE with deletion vectors (the same rows)", "UPDATE with DVs"),
    "delete_cow": ("DELETE copy-on-write (the same rows)", "DELETE copy-on-write"),
    "merge_dv": ("MERGE of 1% upserts, with deletion vectors", "MERGE with DVs"),
    "merge_cow": ("MERGE of 1% upserts, copy-on-write", "MERGE copy-on-write"),
    "optimize": ("OPTIMIZE (compaction) of {small_files} small files", "OPTIMIZE"),
}


def peers(r):
    """Every operation peers.json measured: medians per engine, speed-up, plain Spark's floor."""
    ref = reference_name(r["reference"]["package"]) if "reference" in r else "Delta Lake"
    missing = [op for op in r["operations"] if op not in PEER_OPERATIONS]
    if missing:
        raise KeyError(f"peers.json measured {missing}: describe them in PEER_OPERATIONS (bench/figures_render.py)")
    rows, ups = [], {}
    floors = r.get("floor_median_seconds", {})
    for op in r["operations"]:
        m = r["median_seconds"][op]
        ups[op] = m["delta"] / m["silt"]
        label = PEER_OPERATIONS[op][0].format(files=r["files"], small_files=r.get("small_files", "the"))
        rows.append([label, secs(m["silt"]), secs(m["delta"]), speedup(m["delta"], m["silt"]),
                     secs(floors[op]) if op in floors else "-"])
    master = r.get("environment", {}).get("master", "local[2]")
    warmups = f"{r['warmups']} warm-up pass" + ("" if r["warmups"] == 1 else "es")
    out = [para(f"Measured side by side against the reference {ref} on {count(r['rows'])} rows in {r['files']} "
                f"files, each engine in its own JVM (`{master}`, driver memory 4g), alternating which goes "
                f"first; median of {r['reps']} runs per engine, each after {warmups} "
                "([bench/README.md](bench/README.md)):"),
           table([f"operation ({count(r['rows'])} rows, {r['files']} files)", "Silt", ref,
                  "Silt's speed-up", "plain Spark, same physical work"], rows)]
    label = {op: PEER_OPERATIONS[op][1] for op in ups}
    faster = [op for op in ups if ups[op] >= 1.005]
    slower = [op for op in ups if ups[op] < 0.995]
    lo, hi = min(ups, key=ups.get), max(ups, key=ups.get)
    summary = (f"Silt was faster on {'every one' if len(faster) == len(ups) else f'{len(faster)}'} of the "
               f"{len(ups)} operations, from {ups[lo]:.2f}x ({label[lo]}) to {ups[hi]:.2f}x ({label[hi]})")
    if slower:
        summary += "; slower on " + ", ".join(f"{label[op]} ({ups[op]:.2f}x)" for op in slower)
    close = [op for op in ups if op not in slower and ups[op] < 1.5]
    if close:
        summary += ("; close on " + ", ".join(f"{label[op]} ({ups[op]:.2f}x)" for op in close)
                    + ": operations made mostly of reading and writing Parquet files (the last column: plain "
                    "Spark doing the same physical work alone, where measured)")
    differ = [op for op, ok in r["answers_agree"].items() if not ok]
    summary += (". Both engines gave the same answers for every operation." if not differ
                else f". The engines' answers differed for {', '.join(differ)}.")
    busy = r.get("busy_machine_runs") or []
    if busy:
        summary += (f" {len(busy)} runs had other processes using the machine (bench/README.md: their seconds "
                    "are not comparable).")
    out.append(para(summary))
    return "\n\n".join(out)


# ---- concurrent DML -------------------------------------------------------------------------

def concurrent_dml(r):
    """Four writers on one table, by key ranges and by hash slices: commits a minute, failed and rebased attempts."""
    ranges, hashed = r["workloads"]["ranges"], r["workloads"]["hash"]
    row = ranges["runs"]["row_level"]
    kinds = {}
    for w in row["per_writer"]:
        kind = w.split("-")[0].upper()
        kinds[kind] = kinds.get(kind, 0) + 1
    writers = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))

    def attempts(run):
        return run["committed"] + run["failed_attempts"]

    def sentence(w, what):
        silt, off, ref = w["runs"]["row_level"], w["runs"]["file_level"], w["runs"]["reference"]
        top = max(off["per_writer"], key=lambda n: off["per_writer"][n]["committed"])
        return (f"{what}: Silt commits {silt['commits_per_minute']:.1f} statements a minute with "
                f"{silt['failed_attempts']} failed attempts of {attempts(silt)}; {pct(silt['rebased_share'])} of its "
                f"commits lost a race and were rebased on the winner, " +
                (f"reading {silt['checked_rows_per_commit']:.0f} rows of the winners' new files a commit to rule out a "
                 "conflict. " if silt["conflict_checked_rows"] else "the winners' new files ruled out by their statistics "
                 "alone. ") +
                f"The reference Delta Lake commits {ref['commits_per_minute']:.1f} a minute and fails "
                f"{pct(ref['failed_share'])} of its {attempts(ref)} attempts "
                f"({silt['commits_per_minute'] / ref['commits_per_minute']:.1f}x the reference's rate); Silt without "
                f"row-level concurrency commits {off['commits_per_minute']:.1f} a minute, "
                f"{off['per_writer'][top]['committed']} of its {off['committed']} by the {top.upper()} writer, and fails "
                f"{pct(off['failed_share'])} of its attempts.")
    holds = ranges["all_models_hold"] and hashed["all_models_hold"]
    text = (f"On one {count(r['rows'])}-row table with deletion vectors, {len(row['per_writer'])} writers "
            f"({writers}) for {r['seconds']:.0f} s, each statement run again until it commits (a failed attempt: "
            "a statement that raised a conflict and was run again from the start; a rebased commit: one that lost "
            "the race for its version inside the engine and committed on top of the winner without failing). " +
            sentence(ranges, "On disjoint key ranges") + " " +
            sentence(hashed, "On slices by hash(id) % 4, which file statistics cannot separate") +
            f" The table matched a model of the committed statements in {'every run' if holds else 'not every run'}.")
    return para(text)


# ---- clustering -----------------------------------------------------------------------------

SILT_CLUSTERING, REFERENCE_CLUSTERING = "cluster by (x, y)", "reference cluster by (x, y)"


def rewritten(r, variant):
    """Bytes a variant rewrote over its rounds, as a multiple of the input."""
    return r["variants"][variant]["total_bytes_rewritten"] / r["input_bytes"]


def clustering_summary(r):
    """The README's sentence: first OPTIMIZE, the layout it leaves, bytes rewritten over the rounds."""
    s, ref = r["variants"][SILT_CLUSTERING], r["variants"][REFERENCE_CLUSTERING]
    text = (f"Liquid clustering, on {count(r['rows'])} rows in {r['files']} files: the first OPTIMIZE takes "
            f"{secs(s['first_optimize_seconds'])} against the reference's {secs(ref['first_optimize_seconds'])} "
            f"and leaves a 1% range on x / y reading {frac(s['first_layout']['range_x'])} / "
            f"{frac(s['first_layout']['range_y'])} of the files against {frac(ref['first_layout']['range_x'])} / "
            f"{frac(ref['first_layout']['range_y'])}. Over {len(s['rounds'])} rounds of 10% appends, each followed "
            f"by OPTIMIZE, Silt rewrites {rewritten(r, SILT_CLUSTERING):.2f}x the input against "
            f"{rewritten(r, REFERENCE_CLUSTERING):.2f}x ([Liquid clustering](docs/clustering.md)).")
    return para(text)


def clustering_table(r):
    """Silt's clustering against the reference's and ZORDER BY: first OPTIMIZE, layout, rounds."""
    names = [(SILT_CLUSTERING, "Silt"), (REFERENCE_CLUSTERING, "reference"), ("zorder", "Silt ZORDER BY each round")]
    v = {k: r["variants"][k] for k, _ in names}

    def layout(x):
        return f"{frac(x['range_x'])} / {frac(x['range_y'])} / {frac(x['box_xy'])}"

    def worst(x):
        return frac(max(x["worst_layout_in_rounds"]["range_x"], x["worst_layout_in_rounds"]["range_y"]))
    rounds = len(v[SILT_CLUSTERING]["rounds"])
    rows = [["first OPTIMIZE"] + [secs(v[k]["first_optimize_seconds"]) for k, _ in names],
            ["share of files a 1% range on x / y reads, and a 1% box"]
            + [layout(v[k]["first_layout"]) for k, _ in names],
            [f"{rounds} rounds of 10% appends, each followed by OPTIMIZE: bytes rewritten"]
            + [f"{rewritten(r, k):.2f}x the input" for k, _ in names],
            ["a round's OPTIMIZE, median"] + [secs(r["median_round_seconds"][k]) for k, _ in names],
            ["worst range over those rounds"] + [worst(v[k]) for k, _ in names]]
    intro = para(f"Measured against the reference Delta Lake's clustering and against ZORDER BY, on "
                 f"{count(r['rows'])} rows in {r['files']} files (`bench/README.md` in the repository):")
    return intro + "\n\n" + table([""] + [n for _, n in names], rows)


# ---- ZORDER layout --------------------------------------------------------------------------

LAYOUTS = (("silt_zorder_xy", "Silt `ZORDER BY (x, y)`"), ("reference_zorder", "the reference Delta Lake's ZORDER BY"),
           ("deltars_zorder", "delta-rs `z_order`"), ("linear_xy", "a linear sort on (x, y)"),
           ("ideal_grid_8x8", "an exact 8 x 8 grid (the ideal)"))


def zorder_layout(r):
    """The share of files a 1% range and box read after each engine's ZORDER BY (x, y), from the statistics."""
    got = r["layout_files_scanned"]
    rows = [[name + ("" if got[k]["files"] == r["files"] else f" ({got[k]['files']} files)"),
             frac(got[k]["range_x"]), frac(got[k]["range_y"]), frac(got[k]["box_xy"])]
            for k, name in LAYOUTS if k in got]
    intro = para(f"Measured on {count(r['rows'])} rows in {r['files']} files (`bench/README.md` in the "
                 f"repository): the share of files a query must read, from the files' statistics, over "
                 f"{r['queries_per_kind']} queries of each kind:")
    return intro + "\n\n" + table(["layout", "1% range on x", "1% range on y", "1% box on (x, y)"], rows)


# ---- log scale ------------------------------------------------------------------------------

def log_scale(r, delete_run):
    """The 10 M-file partitioned table with a small driver: Silt's steps and the reference's first plan."""
    def largest(result):
        return max((s for s in result["sizes"] if s.get("shape", "partitioned") == "partitioned"),
                   key=lambda s: s["files"])
    size = largest(r)
    own, foreign, ref = size["silt_checkpoint"], size["foreign_checkpoint"], size.get("reference") or {}
    heaps = [m[k]["value"] for m in (own, foreign) for k in m if k.startswith("heap") and "value" in m[k]]
    driver = re.sub(r"^(\d+)([gm])$", lambda m: f"{m.group(1)} {m.group(2).upper()}iB", r["driver_memory"])
    default = " (PySpark's default)" if r["driver_memory"] == "1g" else ""
    text = (f"Measured with a {driver} driver{default} on a synthetic table of {count(size['files'])} files in "
            f"{r['partitions']:,} partitions, in JVMs of their own (every open a fresh one): "
            f"the open took {secs(own['open']['seconds'])}, a partition was planned in "
            f"{secs(own['plan_partition_2']['seconds'])} (the second plan; the first took "
            f"{secs(own['plan_partition_1']['seconds'])}), a row inserted in {secs(own['insert']['seconds'])}, "
            f"DESCRIBE DETAIL in {secs(own['describe_detail']['seconds'])}, VACUUM DRY RUN in "
            f"{secs(own['vacuum_dry_run']['seconds'])}, CHECKPOINT in {secs(foreign['checkpoint']['seconds'])}, "
            f"the heap after each step at most {max(heaps):.0f} MiB.")
    first = ref.get("plan_partition_1", {})
    if "seconds" in first:
        text += (f" The reference Delta Lake, given the same driver, took {secs(first['seconds'])} for its first "
                 f"plan ({ref['heap_after_plans_mib']['value']:.0f} MiB of heap used after it)")
        errors = [v["error"] for v in ref.values() if isinstance(v, dict) and "error" in v]
        if any("SparkContext was shut down" in e for e in errors):
            text += ", then its SparkContext shut down and every later step failed."
        elif errors:
            text += f", then {len(errors)} later steps failed."
        else:
            text += "."
    later = largest(delete_run)["silt_checkpoint"]
    if "delete_partition" in later:
        d = later["delete_partition"]
        text += (f" A later run of that table alone, whose writes include a DELETE of one partition: "
                 f"{count(d['value'])} rows deleted in {secs(d['seconds'])}, heap after the writes "
                 f"{later['heap_after_writes_mib']['value']:.0f} MiB.")
    return para(text + " See `bench/README.md` (`log_scale`).")


def json_log(r):
    """A log of JSON commits alone with a small driver: Silt on it, on its own checkpoint, and the reference, as a table."""
    driver = re.sub(r"^(\d+)([gm])$", lambda m: f"{m.group(1)} {m.group(2).upper()}iB", r["driver_memory"])
    sides = (("Silt, the JSON commits", r["json_only"]), ("Silt, the checkpoint it wrote", r["checkpointed"]),
             ("reference Delta Lake, the JSON commits", r.get("reference")))

    def cell(m, key):
        x = (m or {}).get(key)
        return "-" if x is None else "failed" if "error" in x else secs(x["seconds"])

    def median(m):
        x = (m or {}).get("plan_point_median_s")
        return "-" if x is None or "error" in x else secs(x["value"])

    def heap(m):
        values = [v["value"] for k, v in (m or {}).items() if k.startswith("heap") and "value" in v]
        return f"{max(values):.0f} MiB" if values else "-"
    head = (f"A log of {count(r['files'])} files in {r['commits']} JSON commits and no checkpoint, "
            f"{r['partitions']:,} partitions, with a {driver} driver, each column a JVM of its own: the first plan "
            "includes building the state (Silt: the Spark job replaying the commits); the others are second plans, "
            "the point's median of five more in brackets; heap: the most used after a step.")
    rows = ["| | " + " | ".join(name for name, _ in sides) + " |", "|---" * (len(sides) + 1) + "|"]
    for label, key in (("open", "open"), ("first plan (day = 3)", "plan_partition_1"),
                       ("plan day = 3", "plan_partition_2"), ("plan a point on id", "plan_point_2"),
                       ("DESCRIBE DETAIL", "describe_detail"), ("CHECKPOINT", "checkpoint")):
        rows.append(f"| {label} | " + " | ".join(
            cell(m, key) + (f" [{median(m)}]" if key == "plan_point_2" and m else "") for _, m in sides) + " |")
    rows.append("| heap | " + " | ".join(heap(m) for _, m in sides) + " |")
    return para(head) + "\n\n" + "\n".join(rows)


# ---- change data feed -----------------------------------------------------------------------

def change_feed_merge(r):
    """What recording the change data feed costs a MERGE, with and without deletion vectors."""
    m = r["merge_change_feed"]

    def one(variant, name):
        v = m["variants"][variant]["median_seconds"]
        return f"{name} {secs(v['cdf_on'])} against {secs(v['cdf_off'])} ({v['cdf_on'] / v['cdf_off']:.2f}x)"
    text = (f"Recording the feed costs a MERGE one more write job. Measured on a MERGE into {count(m['rows'])} rows "
            f"({100 * m['source_rows_updated_fraction']:g}% updated, "
            f"{100 * m['source_rows_inserted_fraction']:g}% inserted), "
            f"feed on against off, median of {len(next(iter(m['variants'].values()))['seconds']['true'])}: "
            f"{one('deletionVectors=true', 'with deletion vectors')}, "
            f"{one('deletionVectors=false', 'copy-on-write')} (`bench/README.md` in the repository).")
    return para(text)


def s3_faults(r):
    """The S3 fault trials (tests/reliability/s3_faults.py): per trial, the faults done, the statements'
    outcomes and the checks; then what held in all of them."""
    def faults(t):
        return ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(t["faults_injected"].items())) or "none"

    def outcomes(t):
        o = t["outcomes"]
        return f"{o.get('acked', 0)} / {o.get('failed', 0)} / {o.get('unknown', 0)}"

    def held(t):
        return "yes" if t["ok"] else "NO"

    rows = [[t["scenario"].replace("_", " ") + ("" if t["scenario"] != "mix" else f" (seed {t['seed']})"),
             str(t["requests"]), faults(t), outcomes(t), held(t), str(t["most_sends_of_a_faulted_request"]),
             secs(t["seconds"])] for t in r["trials"]]
    statements = sum(t["statements"] for t in r["trials"])
    injected = sum(sum(t["faults_injected"].values()) for t in r["trials"])
    unknown = sum(t["outcomes"].get("unknown", 0) for t in r["trials"])
    failures = {}
    for t in r["trials"]:
        for k, n in t["failures"].items():
            failures[k] = failures.get(k, 0) + n
    said = ", ".join(f"{n} {k}" for k, n in sorted(failures.items())) or "none"
    writers = r["trials"][0]["writers"] if r["trials"] else 0
    restarted = sum(1 for t in r["trials"] if t["stream_restarted_after"])
    head = para(f"{len(r['trials'])} trials, each on a new table with {writers} writers (appends, MERGEs of their "
                f"own rows, OPTIMIZE) and a stream copying the table's appends to another table: {statements} "
                f"statements, {injected} faults injected. Acknowledged statements were in the log exactly once "
                f"and failed ones never, the table matched the model and the stream's copy held every appended "
                f"row once in {sum(t['ok'] for t in r['trials'])} of {len(r['trials'])} trials. Statements that "
                f"failed (each with the error it gave, and nothing committed): {said}; of unknown outcome: "
                f"{unknown}. The stream failed under a fault in {restarted} trials and, restarted, went on "
                f"from its checkpoint.")
    return head + "\n\n" + table(["faults", "requests", "injected", "acked / failed / unknown", "held",
                                  "most sends", "time"], rows)


# ---- lakehouse ------------------------------------------------------------------------------

def lakehouse_phases(r):
    """The phases in the order they ran (a result file keeps its keys sorted)."""
    out = ["load", "run 0"]
    for i in range(1, r["rounds"] + 1):
        out += [f"maintenance {i}", f"run {i}"]
    return out + ["optimize", "final run", "time travel"]


def lakehouse(r):
    """TPC-DS loaded, queried and maintained: each phase per engine, degradation, targets."""
    ref = reference_name(r["reference"])
    s, d = r["engines"]["silt"]["phases"], r["engines"]["delta"]["phases"]
    floor = r["engines"].get("floor", {}).get("phases", {}).get("run 0")
    n = len(r["common_queries"])
    rows = []
    for name in lakehouse_phases(r):
        if name not in s or name not in d:
            continue
        a, b = s[name], d[name]
        if "geomean_seconds" in a:
            shown = n if name != "time travel" else len(a["queries"])
            rows.append([f"{name}: {shown} queries, total (geometric mean)", f"{secs(a['seconds'])} ({secs(a['geomean_seconds'])})",
                         f"{secs(b['seconds'])} ({secs(b['geomean_seconds'])})",
                         f"{a['geomean_seconds'] / b['geomean_seconds']:.2f}"])
        else:
            files = f", {a['tables']['fact_files']:,} / {b['tables']['fact_files']:,} fact files after" if "tables" in a else ""
            rows.append([f"{name}{files}", secs(a["seconds"]), secs(b["seconds"]), f"{a['seconds'] / b['seconds']:.2f}"])
    if floor:
        rows.append(["Parquet floor: run 0 over Silt's files as loaded, read as Parquet",
                     f"{secs(floor['seconds'])} ({secs(floor['geomean_seconds'])})", "-",
                     f"Silt {s['run 0']['geomean_seconds'] / floor['geomean_seconds']:.2f}x the floor"])
    deg = lambda e: r["engines"][e]["degradation_per_round"]
    verdicts = ", ".join(f"{k} {'met' if v['ok'] else 'missed'} ({v['value']:.3f} against <= {v['target']:.3f})"
                         for k, v in r["targets"].items())
    text = (f"Query time (geometric mean) changed by {100 * deg('silt'):+.1f}% of run 0 per round for Silt and "
            f"{100 * deg('delta'):+.1f}% for the reference (least-squares slope over runs 0 to {r['rounds']}). ")
    ac = r["engines"].get("silt_autocompact")
    if ac:
        last = f"maintenance {r['rounds']}"
        same = ac["phases"][last]["tables"]["fact_files"] == s[last]["tables"]["fact_files"]
        text += (f"Silt with auto compaction on and no OPTIMIZE: its slowest run took "
                 f"{max(ac['series']) / ac['series'][0]:.2f}x its run 0 (geometric means "
                 f"{', '.join(secs(x) for x in ac['series'])}), " +
                 ("with nothing compacted: no table reached auto compaction's minimum of small files. " if same else
                  f"its fact tables at {ac['phases'][last]['tables']['fact_files']:,} files after the rounds. "))
    text += f"Targets: {verdicts}. "
    text += ("Every query gave the same answer (rows and checksum) on both engines in every phase, and time "
             "travel to the version before the rounds gave run 0's answers." if r["answers"]["agree"]
             else f"Answers differed: {r['answers']['differences']}.")
    out = [para(f"TPC-DS at scale factor {r['sf']:g} ({r['rows']['store_sales']:,} store_sales rows), "
                f"{len(r['queries'])} queries, {r['rounds']} rounds of data maintenance; Silt and the reference {ref}, "
                "each in its own JVM (`local[2]`, driver memory 4g), the same statements on the same generated "
                "files (`bench/README.md` in the repository). Seconds; geometric means over the queries every "
                "run answered; the last column is Silt's time over the reference's (below 1: Silt faster):"),
           table(["phase", "Silt", ref, "Silt / reference"], rows), para(text)]
    if r["failed_queries"]:
        out.append(para("Left out of the means, as a run failed them: " +
                        "; ".join(f"{q} ({r['query_errors'][q]})" for q in r["failed_queries"]) + "."))
    return "\n\n".join(out)


def lakehouse_summary(r):
    """One paragraph of the lakehouse run for the README: each phase's ratio and the degradation."""
    ratios = r["ratios"]
    s, d = r["engines"]["silt"], r["engines"]["delta"]
    runs = [k for k in ratios if k.endswith("(geometric mean)") and not k.startswith("time travel")]
    lo, hi = min(ratios[k] for k in runs), max(ratios[k] for k in runs)
    return para(f"On TPC-DS at scale factor {r['sf']:g}, {len(r['common_queries'])} queries and {r['rounds']} rounds of "
                f"MERGE and DELETE maintenance, Silt loads in {ratios['load']:.2f}x the reference's time, maintains in "
                f"{ratios['maintenance']:.2f}x, and runs the queries in {lo:.2f}x to {hi:.2f}x (geometric mean per run); "
                f"its query time moves by {100 * s['degradation_per_round']:+.1f}% a round against the reference's "
                f"{100 * d['degradation_per_round']:+.1f}% ([A lakehouse workload](docs/lakehouse.md)).")
