# One entry point for building, testing, the demo and the benchmarks. Everything is fetched here.
VENV    := .venv
PY      := $(VENV)/bin/python
VERSION := 0.1.0
JAR     := target/silt-spark_2.13-$(VERSION).jar
SBT     := bin/sbt

.PHONY: build venv jar test test-scala test-python demo bench reliability fuzz clean

build: venv jar

# The Python environment: the silt package (editable, so it sees the jar built below) and test deps.
venv: $(VENV)/.installed
$(VENV)/.installed: python/pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e "python[test,interop,plot,connect]"
	touch $@

# The engine jar and the Python parser, both generated from grammar/SiltSqlBase.g4 by sbt.
jar:
	$(SBT) package generatePythonParser < /dev/null
	mkdir -p python/silt/jars
	rm -f python/silt/jars/*.jar
	cp $(JAR) python/silt/jars/

test-scala:
	$(SBT) test < /dev/null

test-python: build
	cd python && ../$(PY) -m mypy silt
	$(PY) -m pytest tests -q -p no:cacheprovider

test: build test-scala test-python

demo: build
	$(PY) examples/demo.py

bench: build
	$(PY) -m bench

# The reliability report: corrupt-input matrix, 50 kill -9 trials, 6 kills of a streaming query, a 60 s soak of 9 processes.
reliability: build
	$(PY) tests/reliability/report.py

# Longer fuzzing than CI's budget: the engine's decoders and both SQL parsers.
fuzz: build
	SILT_FUZZ_CASES=200000 $(SBT) "testOnly io.silt.fuzz.*" < /dev/null
	SILT_FUZZ_CASES=20000 $(PY) -m pytest tests/test_sql_fuzz.py -q -p no:cacheprovider

clean:
	rm -rf target project/target python/silt/jars python/silt/sql/generated $(VENV)
