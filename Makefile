# One entry point for building, testing, the demo and the benchmarks. Everything is fetched here.
VENV    := .venv
PY      := $(VENV)/bin/python
VERSION := 0.1.0
SBT     := bin/sbt
JARS    := python/silt/jars

# One jar per Spark minor. For each: the Spark release it is compiled against (from Maven Central,
# or, where Maven Central lacks it, the jars inside that pyspark release), and the pyspark release
# its smoke tests run on (the newest patch release on PyPI). The default minor is the development
# environment's (.venv) and gets the full test suite.
DEFAULT_MINOR := 4.2
OTHER_MINORS  := 3.5 4.0 4.1 4.3
BUILD_3.5     := 3.5.9
BUILD_4.0     := 4.0.1
BUILD_4.1     := 4.1.3
BUILD_4.2     := 4.2.0
BUILD_4.3     := 4.3.0
PYSPARK_3.5   := 3.5.9
PYSPARK_4.0   := 4.0.5
PYSPARK_4.1   := 4.1.4
PYSPARK_4.2   := 4.2.0
PYSPARK_4.3   := 4.3.0
FROM_PYSPARK  := 4.3
VENVS         := .venvs
comma         := ,
# The Scala a minor's jar is built for: Spark 3.5's is 2.12, Spark 4's 2.13.
SCALA_3.5     := 2.12
scala_of = $(or $(SCALA_$(1)),2.13)
jar_of = $(JARS)/silt-spark_$(1)_$(call scala_of,$(1))-$(VERSION).jar
OTHER_VENVS   := $(addprefix $(VENVS)/spark-,$(addsuffix /.installed,$(OTHER_MINORS)))
# The oldest minor, whose smoke tests and wheel the second tier runs first (test-second-tier-rest, test-heavy-suite);
# the others' smoke tests, and the oldest's rest of the core suite, come in its heavy part.
TIER1_MINORS  := 3.5
TIER2_MINORS  := $(filter-out $(TIER1_MINORS),$(OTHER_MINORS))
SMOKE_MINORS  := $(TIER1_MINORS)
# Which smoke tests: on the oldest minor, not those marked full too (the heavy part runs them), nor those
# running the reference Delta Lake (its round trip runs in the second tier on the default minor).
SMOKE_MARKS   := smoke and not full and not reference

.PHONY: build build-second-tier build-all venv jar jars publish-local jvm-example dist test test-full test-scala test-python test-versions test-wheel test-beside-python test-python-beside test-second-tier test-second-tier-suite test-second-tier-rest test-heavy test-heavy-suite test-heavy-versions test-delta-defaults demo docs bench reliability fuzz clean

# What `make test` needs: the default minor's jar and environment. sbt runs one build at a time (the jars
# below are chained); the environments are installed meanwhile (`make -j2 build-all`).
build: venv $(call jar_of,$(DEFAULT_MINOR))
# What the second tier needs beside `build`: the oldest minor's jar and environment (its smoke subset and wheel), the
# Spark 4.0 environment (where Iceberg's runtime reads UniForm tables) and the Spark Connect client's.
build-second-tier: build $(call jar_of,$(TIER1_MINORS)) $(VENVS)/spark-$(TIER1_MINORS)/.installed \
                   $(VENVS)/spark-4.0/.installed $(VENVS)/connect-client/.installed
# Every minor's jar and environment and dbt's: the heavy part's (the wheel bundles every jar; each minor's smoke
# tests; the JVM job; the dbt projects).
build-all: build-second-tier jars $(OTHER_VENVS) $(VENVS)/dbt/.installed jvm-example

# The Python environment, in two steps: what the demo needs (the silt package, editable so that it
# sees the jars built below, its pyspark and matplotlib), then the test and interop dependencies.
venv: $(VENV)/.installed
$(VENV)/.core: python/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e "python[plot]" "pyspark==$(PYSPARK_$(DEFAULT_MINOR))"
	touch $@
$(VENV)/.installed: $(VENV)/.core
	$(PY) -m pip install -q -e "python[test,interop,plot,connect]" "pyspark[connect]==$(PYSPARK_$(DEFAULT_MINOR))"
	# delta-spark's Python package: the reference's API (tests/interop/reference_delta.py), and the
	# signatures Silt's delta API is compared with (it requires pyspark <= 4.2: this environment only)
	$(PY) -m pip install -q "delta-spark==4.4.0"
	touch $@

# A virtual environment per other Spark minor, with that pyspark (and its Connect client, for the smoke
# tests that run over Spark Connect, where Silt has a Connect plugin: not on Spark 3.5): where its smoke tests run.
NO_CONNECT    := 3.5
with_connect = $(if $(filter $(1),$(NO_CONNECT)),,$(2))
$(VENVS)/spark-%/.installed: python/pyproject.toml
	test -x $(VENVS)/spark-$*/bin/python || python3 -m venv $(VENVS)/spark-$*
	$(VENVS)/spark-$*/bin/python -m pip install -q --upgrade pip
	$(VENVS)/spark-$*/bin/python -m pip install -q -e "python[test,interop,plot$(call with_connect,$*,$(comma)connect)]" \
	  "pyspark$(call with_connect,$*,[connect])==$(PYSPARK_$*)"
	touch $@

# A Spark Connect client with pyspark-client instead of pyspark: silt installed without its
# dependencies, then the two that pyspark-client does not bring (tests/test_connect_client.py).
$(VENVS)/connect-client/.installed: python/pyproject.toml
	test -x $(VENVS)/connect-client/bin/python || python3 -m venv $(VENVS)/connect-client
	$(VENVS)/connect-client/bin/python -m pip install -q --upgrade pip
	$(VENVS)/connect-client/bin/python -m pip install -q "pyspark-client==$(PYSPARK_$(DEFAULT_MINOR))" \
	  "pyroaring>=1.0,<2" "antlr4-python3-runtime>=4.13.1,<4.14"
	$(VENVS)/connect-client/bin/python -m pip install -q --no-deps -e python
	touch $@

# dbt-core with dbt-spark (its `session` connection runs in the process's SparkSession), with the default
# minor's pyspark and silt: where tests/dbt/run_project.py runs the dbt project (tests/test_dbt.py). Its own
# environment: dbt-core wants a protobuf older than the Spark Connect client's. dbt-core 1.11 is the newest
# release that needs nothing from outside PyPI.
DBT_CORE  := 1.11.16
DBT_SPARK := 1.11.0
$(VENVS)/dbt/.installed: python/pyproject.toml
	test -x $(VENVS)/dbt/bin/python || python3 -m venv $(VENVS)/dbt
	$(VENVS)/dbt/bin/python -m pip install -q --upgrade pip
	$(VENVS)/dbt/bin/python -m pip install -q -e python "pyspark==$(PYSPARK_$(DEFAULT_MINOR))" \
	  "dbt-core==$(DBT_CORE)" "dbt-spark[session]==$(DBT_SPARK)"
	touch $@

# The engine's sources: a jar is rebuilt (and sbt started) only when one of them changed.
ENGINE_SOURCES := build.sbt $(shell find scala grammar project -type f -not -path '*/target/*' \
                    \( -name '*.scala' -o -name '*.java' -o -name '*.g4' -o -name '*.properties' -o -name '*.tsv' -o -name '*.avsc' -o -name 'repositories' \))

# The default minor's jar and the Python parser, both generated from grammar/SiltSqlBase.g4 by sbt.
jar: $(call jar_of,$(DEFAULT_MINOR))
$(call jar_of,$(DEFAULT_MINOR)): $(ENGINE_SOURCES)
	$(SBT) package generatePythonParser < /dev/null
	$(call install_jar,$(DEFAULT_MINOR))

# Every minor's jar (the wheel bundles them all; silt.configure picks the running pyspark's).
jars: $(foreach m,$(DEFAULT_MINOR) $(OTHER_MINORS),$(call jar_of,$(m)))

# One sbt at a time: each other minor's jar waits for the one before it (order only; a new minor in
# OTHER_MINORS gets a line here).
$(call jar_of,3.5): | $(call jar_of,$(DEFAULT_MINOR))
$(call jar_of,4.0): | $(call jar_of,3.5)
$(call jar_of,4.1): | $(call jar_of,4.0)
$(call jar_of,4.3): | $(call jar_of,4.1)
# A minor compiled against its pyspark's jars needs that environment first.
$(foreach m,$(FROM_PYSPARK),$(call jar_of,$(m))): $(JARS)/silt-spark_%_2.13-$(VERSION).jar: $(VENVS)/spark-%/.installed
$(JARS)/silt-spark_%_2.13-$(VERSION).jar: $(ENGINE_SOURCES)
	$(call build_jar,$*)
$(JARS)/silt-spark_%_2.12-$(VERSION).jar: $(ENGINE_SOURCES)
	$(call build_jar,$*)

# Silt's artifacts (io.silt:silt-spark_<minor>_<Scala>) in the local Maven repository, ~/.m2/repository,
# where spark-submit --packages and Maven or sbt builds find them; one sbt at a time, minor by minor.
publish-local: jars
	$(SBT) publish < /dev/null
	$(foreach m,$(OTHER_MINORS),$(SBT) -Dsilt.spark=$(BUILD_$(m)) $(if $(filter $(m),$(FROM_PYSPARK)),-Dsilt.spark.jars=$(call pyspark_jars,$(m))) publish < /dev/null && ) true

# The JVM example (examples/jvm, a job written for Delta Lake's Scala API), the same job built against
# delta-spark (examples/jvm/on-delta, for the reference), and the default minor's artifact in a
# repository folder of the build's own, which tests/test_jvm_api.py gives spark-submit.
TEST_REPO   := target/maven
JVM_EXAMPLE := examples/jvm/target/spark-$(DEFAULT_MINOR)/scala-2.13/silt-jvm-example_2.13-$(VERSION).jar
jvm-example: $(JVM_EXAMPLE)
$(JVM_EXAMPLE): $(ENGINE_SOURCES) $(shell find examples/jvm -name '*.scala') | $(call jar_of,4.3)
	$(SBT) -Dsilt.publish.dir=$(CURDIR)/$(TEST_REPO) publish jvmExample/package jvmExampleOnDelta/package < /dev/null

# The jars folder inside a venv's pyspark.
pyspark_jars = $$($(VENVS)/spark-$(1)/bin/python -c 'import pyspark, os; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')

define build_jar
	$(SBT) -Dsilt.spark=$(BUILD_$(1)) $(if $(filter $(1),$(FROM_PYSPARK)),-Dsilt.spark.jars=$(call pyspark_jars,$(1))) package < /dev/null
	$(call install_jar,$(1))
endef

define install_jar
	mkdir -p $(JARS)
	rm -f $(JARS)/silt-spark_$(1)_*.jar
	cp target/spark-$(1)/silt-spark_$(1)_$(call scala_of,$(1))-$(VERSION).jar $(JARS)/
endef

# The wheel (every minor's jar inside) and the source distribution, in dist/.
dist: $(VENV)/.core jars
	rm -rf dist python/build
	$(PY) -m pip install -q "build>=1.2,<2"
	$(PY) -m build --sdist --wheel --outdir dist python
	rm -rf python/build
	@ls -l dist

test-scala:
	$(SBT) test < /dev/null

# The core suite: everything but the second tier (marked full) and `make reliability`'s (marked slow), on the
# default minor. In two parts: CORE_BESIDE's modules run after the Scala tests, so that both lanes of `make test`
# end about together (on 2026-12-02, in a fresh clone: 856 s in one lane, 815 s in the other, `make test` 1,079 s).
CORE_BESIDE := tests/reliability tests/test_column_expressions.py \
               tests/test_delta_session_keys.py tests/test_merge.py tests/test_docs.py tests/test_checkpoint_scan.py \
               tests/test_change_feed.py tests/test_dml.py tests/test_s3.py tests/test_commit_replay.py \
               tests/test_checkpoint_replay.py tests/test_optimize.py tests/test_replace_matching.py
test-python: build
	cd python && ../$(PY) -m mypy silt
	$(PY) -m pytest tests -q -p no:cacheprovider -m "not slow and not full" --durations=40 \
	  $(foreach f,$(CORE_BESIDE),--ignore=$(f))

test-python-beside: build
	$(PY) -m pytest $(CORE_BESIDE) -q -p no:cacheprovider -m "not slow and not full" --durations=10

# The smoke subset (tests marked smoke) on other Spark minors, each in its own environment and with
# its own jar (SMOKE_MINORS picks): the oldest's in the second tier, the others' in its heavy part.
test-versions: build $(foreach m,$(SMOKE_MINORS),$(call jar_of,$(m)) $(VENVS)/spark-$(m)/.installed)
	set -e; for m in $(SMOKE_MINORS); do \
	  echo "== smoke tests on pyspark $$($(VENVS)/spark-$$m/bin/python -c 'import pyspark; print(pyspark.__version__)')"; \
	  $(VENVS)/spark-$$m/bin/python -m pytest tests -q -p no:cacheprovider -m "$(SMOKE_MARKS)"; \
	done

# The wheel of the jars built here (the second tier's `make dist` bundles every minor's), installed with the
# oldest minor's pyspark into a fresh environment: tests/test_wheel.py's case for that minor.
TEST_WHEEL := target/wheel
test-wheel: build $(foreach m,$(TIER1_MINORS),$(call jar_of,$(m)) $(VENVS)/spark-$(m)/.installed)
	rm -rf $(TEST_WHEEL) python/build
	$(PY) -m pip install -q "build>=1.2,<2"
	$(PY) -m build --wheel --outdir $(TEST_WHEEL) python
	rm -rf python/build
	SILT_WHEEL_DIR=$(TEST_WHEEL) $(PY) -m pytest -q -p no:cacheprovider \
	  $(foreach m,$(TIER1_MINORS),"tests/test_wheel.py::test_the_wheel_installs_and_works_outside_the_checkout[spark-$(m)]")

# The DML, maintenance and streaming tests in a session that sets every Delta Lake setting the reference
# registers to its default (but Silt's own settings under Delta's names): a Delta deployment's session.
DELTA_DEFAULTS_TESTS := tests/test_dml.py tests/test_merge.py tests/test_optimize.py tests/test_streaming.py tests/test_streaming_source.py \
                        tests/test_table_utilities.py tests/test_checkpoints.py
test-delta-defaults: build
	SILT_DELTA_DEFAULTS=1 $(PY) -m pytest $(DELTA_DEFAULTS_TESTS) -q -p no:cacheprovider -m "not slow and not full and not server"

# The README's tests (under 15 minutes here): the Scala unit tests and the core suite on the default minor. The
# core suite keeps about one of the two cores busy (a Spark session's driver waits on Python and on its files):
# the rest runs beside it. The other minors (the smoke subset, the wheel) are the second tier's.
test:
	$(MAKE) -j2 -Otarget build
	$(MAKE) -j2 --output-sync=line test-python test-beside-python

test-beside-python: build
	$(MAKE) test-scala test-python-beside

# The second tier, which CI runs after `make test`: interop matrices with the reference Delta Lake,
# delta-rs and DuckDB, the conflict matrix, the corpus' expected results derived again from delta-rs and
# the reference engine, a fresh clone, the site; then its heavy part (test-heavy, below).
test-full:
	$(MAKE) -j2 -Otarget build-all
	$(MAKE) test-second-tier
	$(MAKE) test-heavy
# Two lanes side by side (each lane is run by test-second-tier, after its prerequisites): the second-tier
# tests, and the rest with the row-conflict cells, the Iceberg runtime's reads and the oldest minor's smoke
# subset and wheel, so that the two end about together.
SECOND_TIER_BESIDE := tests/test_row_conflicts.py tests/test_uniform_spark.py
# The heavy part of the second tier, in lanes of its own: reliability's kill trials and soak at CI's size, the
# faulty-S3 trials, the wheel on every minor, the reference's interop matrices and the conflict matrix, the
# lakehouse benchmark's small run, the dbt projects, a fresh clone, local-cluster mode and the JVM job (pytest);
# the smoke subset on the other minors and the rest of the core suite on the oldest. `.ci/run` runs it when the
# rest left it the time (see docs/development.md): on 2026-12-02 the second tier with these in it took past CI's
# limit (its lane with the lakehouse run, 902 s, dbt's reference project, 692 s, and the fresh clone, 444 s,
# took 2,951 s, and the other lane longer).
SECOND_TIER_HEAVY  := tests/reliability tests/test_s3_faults.py tests/test_wheel.py tests/test_conflict_table.py \
                      tests/test_interop_column_mapping.py tests/test_interop_features.py tests/test_interop_change_feed.py \
                      tests/test_interop_dv.py tests/test_interop_writes.py tests/test_interop_utilities.py \
                      tests/test_interop_clustering.py tests/test_interop_conflicts.py tests/test_interop_streaming.py \
                      tests/test_local_cluster.py tests/test_jvm_api.py tests/test_fresh_clone.py \
                      tests/test_bench_lakehouse.py tests/test_dbt.py
test-second-tier: build-second-tier docs
	$(MAKE) -j2 --output-sync=line test-second-tier-suite test-second-tier-rest

test-second-tier-suite:
	$(PY) -m pytest tests -q -p no:cacheprovider -m "full or slow" --durations=25 \
	  $(foreach f,$(SECOND_TIER_BESIDE) $(SECOND_TIER_HEAVY),--ignore=$(f))

test-second-tier-rest:
	$(PY) -m pytest $(SECOND_TIER_BESIDE) -q -p no:cacheprovider -m "full or slow" --durations=5
	$(MAKE) test-versions test-wheel
	$(PY) tests/conformance/make_expected.py --check
	$(MAKE) test-delta-defaults

test-heavy: build-all dist
	$(MAKE) -j2 --output-sync=line test-heavy-suite test-heavy-versions

test-heavy-suite:
	# (the wheel with the oldest minor's pyspark under this Python: test-second-tier-rest ran it)
	$(PY) -m pytest $(SECOND_TIER_HEAVY) -q -p no:cacheprovider -m "full or slow" --durations=10 \
	  $(foreach m,$(TIER1_MINORS),--deselect "tests/test_wheel.py::test_the_wheel_installs_and_works_outside_the_checkout[spark-$(m)]")

test-heavy-versions:
	$(MAKE) test-versions SMOKE_MINORS="$(TIER2_MINORS)" SMOKE_MARKS=smoke
	# the oldest minor: the rest of the core suite (test-second-tier-rest ran its smoke subset) and its reference's tests
	$(MAKE) test-versions SMOKE_MINORS="$(TIER1_MINORS)" \
	  SMOKE_MARKS="(not slow and not full and not server and not smoke) or (smoke and (full or reference))"

# Only what the demo needs: the default minor's jar and environment (the others come with build/test).
demo:
	$(MAKE) -j2 $(VENV)/.core jar
	$(PY) examples/demo.py

bench: build
	$(PY) -m bench

# The reliability report: corrupt-input matrix, 50 kill -9 trials, 6 kills of a streaming query, a 60 s soak of 9 processes;
# then writers on a misbehaving S3, each fault and 3 mixes (bench/results/s3_faults.json, ~15 min).
reliability: build
	$(PY) -m pytest tests -q -p no:cacheprovider -m slow
	$(PY) tests/reliability/report.py
	$(PY) tests/reliability/s3_faults.py

# Longer fuzzing than CI's budget: the engine's decoders and both SQL parsers.
fuzz: build
	SILT_FUZZ_CASES=200000 $(SBT) "testOnly io.silt.fuzz.*" < /dev/null
	SILT_FUZZ_CASES=20000 $(PY) -m pytest tests/test_sql_fuzz.py -q -p no:cacheprovider

# The user guide (docs/) as a site in build/site: mkdocs with --strict, so that a broken link, a
# missing page or a bad anchor fails the build. Phony (above): make would take the folder docs/ as up to date.
docs: $(VENV)/.core
	$(PY) -m pip install -q -e "python[docs]"
	$(PY) -m mkdocs build --strict

clean:
	rm -rf dist target project/target python/silt/jars python/silt/sql/generated $(VENV) $(VENVS)
