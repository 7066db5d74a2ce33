"""The reference page's tables of options and settings say exactly what the engine honours and refuses."""
import re

from conftest import REPO_ROOT

# The page that holds the marker blocks (<!-- write-options --> ... <!-- /write-options --> etc.).
DOC = REPO_ROOT / "docs" / "reference.md"


def readme_table(marker):
    text = DOC.read_text()
    body = re.search(rf"<!-- {marker} -->(.*?)<!-- /{marker} -->", text, re.S).group(1)
    rows = [line.split("|")[1:-1] for line in body.strip().splitlines()[2:]]
    return {r[0].strip().strip("`"): r[1].strip() for r in rows}


def engine_list(seq):
    specs = [seq.apply(i) for i in range(seq.size())]
    return {s.name(): "honoured" if s.honoured() else "refused" for s in specs}


def marker_rows(marker):
    """The rows of the table between a marker's comments, each a list of its cells, stripped."""
    body = re.search(rf"<!-- {marker} -->(.*?)<!-- /{marker} -->", DOC.read_text(), re.S).group(1)
    return [[c.strip() for c in line.split("|")[1:-1]] for line in body.strip().splitlines()[2:]]


def test_table_properties_are_documented_as_the_registry_declares_them(spark):
    """The honoured properties' table is their declarations (key, default, values, meaning); the table of the
    others is delta-table-properties.tsv (class, Delta Lake's default, statements another value changes, meaning)."""
    registry = spark._jvm.io.silt.features.TableProperties
    props = registry.all()
    declared = {}
    for i in range(props.size()):
        p = props.apply(i)
        declared[p.key()] = (p.defaultText(), p.expected(), p.doc())
    assert {r[0].strip("`"): (r[1].strip("`"), r[2], r[3]) for r in marker_rows("table-properties")} == declared
    others = {}
    keys = registry.declared()
    for i in range(keys.size()):
        k = keys.apply(i)
        default = k.deltaDefault().get() if k.deltaDefault().isDefined() else None
        kinds = ", ".join(sorted(x for x in k.kinds().mkString(",").split(",") if x))
        others[k.key()] = (k.treatment().name(), "(none)" if default is None else f"`{default}`" if default else "(empty)",
                           kinds, k.meaning())
    assert {r[0].strip("`"): tuple(r[1:]) for r in marker_rows("delta-table-properties")} == others


def test_readme_tables_match_the_engine(spark):
    jvm = spark._jvm
    assert readme_table("write-options") == engine_list(jvm.io.silt.write.WriteOptions.Options())
    assert readme_table("read-options") == engine_list(jvm.io.silt.read.ReadOptions.Options())
    assert readme_table("stream-read-options") == engine_list(jvm.io.silt.read.SourceOptions.Options())
    assert readme_table("write-settings") == engine_list(jvm.io.silt.write.WriteOptions.Settings())


def test_readme_settings_match_the_registry(spark):
    text = DOC.read_text()
    body = re.search(r"<!-- settings -->(.*?)<!-- /settings -->", text, re.S).group(1)
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in body.strip().splitlines()[2:]]
    documented = {r[0].strip("`"): (r[1].strip("`"), r[2], r[3].strip("`") or None) for r in rows}
    registry = spark._jvm.io.silt.config.SiltSettings.all()
    declared = {}
    for i in range(registry.size()):
        s = registry.apply(i)
        declared[s.key()] = (s.defaultText(), s.doc(), s.deltaKey().get() if s.deltaKey().isDefined() else None)
    assert documented == declared


def test_every_engine_error_has_its_python_class_and_a_line_in_the_reference():
    """Each typed error of the engine has a Python class of the same name that translate() maps to,
    and the reference's table of errors names it."""
    import silt.errors
    source = (REPO_ROOT / "scala" / "src" / "main" / "scala" / "io" / "silt" / "errors" / "SiltException.scala").read_text()
    engine = set(re.findall(r"^(?:abstract )?class (\w+Exception)\b", source, re.M)) - {"SiltException"}
    assert engine and engine <= set(silt.errors._BY_NAME), engine - set(silt.errors._BY_NAME)
    documented = set(re.findall(r"^\| `(\w+Exception)` \|", DOC.read_text(), re.M))
    # the concurrency subclasses are listed on the Concurrency page, the reference names their parent
    concurrency = {n for n in engine if n.startswith("Concurrent") or n in ("MetadataChangedException", "ProtocolChangedException")}
    assert engine - concurrency - {"ConcurrentModificationException"} <= documented, engine - documented


def test_delta_lakes_settings_are_documented_as_the_registry_classes_them(spark):
    """The reference page's table of Delta Lake's settings: each key the registry classes, with its class, the
    statements another value changes and what it means (honoured keys: the Silt setting they are)."""
    body = re.search(r"<!-- delta-settings -->(.*?)<!-- /delta-settings -->", DOC.read_text(), re.S).group(1)
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in body.strip().splitlines()[2:]]
    documented = {r[0].strip("`"): tuple(r[1:]) for r in rows}
    jvm = spark._jvm
    declared = jvm.io.silt.config.DeltaSessionKeys.declared()
    registry = {}
    for i in range(declared.size()):
        k = declared.apply(i)
        kinds = ", ".join(sorted(x for x in k.kinds().mkString(",").split(",") if x))
        registry[k.key()] = (k.treatment().name(), kinds, k.meaning())
    assert {k: v for k, v in documented.items() if v[0] != "honoured"} == registry
    settings = jvm.io.silt.config.SiltSettings.all()
    silt_keys = {settings.apply(i).key() for i in range(settings.size())}
    for key, (treatment, kinds, what) in documented.items():
        if treatment == "honoured":
            assert jvm.io.silt.config.DeltaSessionKeys.treatmentOf(key).get().name() == "honoured", key
            assert what.startswith("Silt's `") and what[8:-1] in silt_keys, (key, what)
