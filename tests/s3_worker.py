"""A writer process for the S3 tests: `s3_worker.py append|append-acked PATH WRITER N FS_CONF_JSON BARRIER_DIR WRITERS`
appends rows (WRITER, 0..N-1) to the table at PATH, one commit each, once all WRITERS processes have
started (so that they race); appends rebase over each other by themselves."""
import json
import sys
import time
from pathlib import Path

from conftest import build_silt_session


def main():
    _, command, path, writer, n, conf, barrier, writers = sys.argv
    spark = build_silt_session(master="local[1]", storage="s3", extra_conf={
        "spark.hadoop." + k: v for k, v in json.loads(conf).items()})
    spark.createDataFrame([(0, 0)], "writer int, n int").count()  # warm up before the race
    Path(barrier, writer).touch()
    deadline = time.monotonic() + 300
    while len(list(Path(barrier).iterdir())) < int(writers) and time.monotonic() < deadline:
        time.sleep(0.05)
    # `append` N commits; `append-acked` the same, printing each one committed (a test kills it on the way)
    print(f"started {time.time()}", flush=True)
    for i in range(int(n)):
        spark.createDataFrame([(int(writer), i)], "writer int, n int").write.format("silt").mode("append").save(path)
        if command == "append-acked":
            print(f"committed {i}", flush=True)
    print(f"finished {time.time()}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
