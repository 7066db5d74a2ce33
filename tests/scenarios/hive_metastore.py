"""A session with Hive support (an embedded Derby metastore in the folder given) runs statements on `USING delta`
tables by name and prints, as one JSON line, what each statement returned (rows as strings, or the error) and,
after each, what the metastore holds of every table (provider, type, location, columns) beside what the
table's _delta_log says. With `--engine reference`, the reference Delta Lake runs them (its jar from Maven
Central) in the same metastore.

    python hive_metastore.py FOLDER STATEMENTS_JSON [--engine silt|reference]
"""
import json
import sys

import hive_session

folder, statements = sys.argv[1], json.loads(open(sys.argv[2]).read())
engine = sys.argv[sys.argv.index("--engine") + 1] if "--engine" in sys.argv else "silt"

spark = hive_session.build(folder, engine)

results = []
for statement in statements:
    try:
        rows = [[None if v is None else str(v) for v in r] for r in spark.sql(statement).collect()]
        results.append({"statement": statement, "rows": rows, "metastore": hive_session.metastore(spark)})
    except Exception as e:  # noqa: BLE001 - reported to the test, which decides
        results.append({"statement": statement, "error": f"{type(e).__name__}: {e}"[:2000],
                        "metastore": hive_session.metastore(spark)})
print("@@RESULT@@ " + json.dumps(results))
spark.stop()
