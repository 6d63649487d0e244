"""Zero to JupyterHub: docs/z2jh/config.yaml is valid for the chart it names (validated as Helm
does, against the chart's own values schema, pinned in tests/data/), its memory and CPU follow
from the class `make bench-class` measured (bench/RESULTS.md), and the guide's learners-per-node
table is that arithmetic, in both languages."""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import ROOT

from whentostop.lesson.classroom import EDITIONS

CHART = "4.4.0"
DATA = ROOT / "tests" / "data"
SCHEMA = json.loads((DATA / f"z2jh-{CHART}-values.schema.json").read_text(encoding="utf-8"))
DEFAULTS = yaml.safe_load((DATA / f"z2jh-{CHART}-values.yaml").read_text(encoding="utf-8"))
CONFIG_FILE = ROOT / "docs" / "z2jh" / "config.yaml"
CONFIG = yaml.safe_load(CONFIG_FILE.read_text(encoding="utf-8"))
GUIDES = {"en": ROOT / "docs" / "workshop.md", "pt": ROOT / "docs" / "pt" / "oficina.md"}


def coalesced(defaults: Any, values: Any) -> Any:
    """The chart's values with the user's over them, as Helm merges them before it validates:
    maps merge key by key, anything else is replaced, and a null removes the chart's key."""
    if not (isinstance(defaults, dict) and isinstance(values, dict)):
        return copy.deepcopy(values)
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = coalesced(defaults.get(key), value)
    return merged


def validate(config: dict) -> None:
    jsonschema.Draft7Validator(SCHEMA).validate(coalesced(DEFAULTS, config))


def mib(size: str) -> float:
    """A Z2JH size ("512M", "1G": JupyterHub's ByteSpecification, powers of 1024) in MiB."""
    number, unit = re.fullmatch(r"([\d.]+)([KMGT])", size).groups()  # type: ignore[union-attr]
    return float(number) * 1024 ** "KMGT".index(unit) / 1024


def measured() -> dict[str, float]:
    """One learner as the class of 20 measured it (every kernel on the mock): p90 of each row."""
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    block = results.split("<!-- class-sim: begin 20 learners -->", 1)[1].split("<!-- class-sim")[0]
    rows = {}
    for label, key in [
        ("single-user server alone, peak RSS", "server_mib"),
        ("kernel alone, peak RSS", "kernel_mib"),
        ("CPU time: server", "server_cpu_s"),
        ("CPU time: kernel", "kernel_cpu_s"),
    ]:
        row = re.search(rf"^\| {re.escape(label)} +\| [^|]+\| ([\d.]+) (MiB|s) +\|", block, re.M)
        assert row, f"bench/RESULTS.md no longer has the row {label!r}"
        rows[key] = float(row.group(1))
    return rows


# --- the config is the chart's ----------------------------------------------------------------


def test_the_lessons_config_validates_against_the_charts_pinned_values_schema() -> None:
    validate(CONFIG)


def test_the_pinned_chart_defaults_themselves_validate() -> None:
    validate({})  # the schema and the defaults are the same release's


@pytest.mark.parametrize(
    "path, value",
    [
        (("singleuser", "memory", "guarante"), "512M"),  # a misspelt key
        (("singleuser", "cpu", "guarantee"), "a fifth"),  # a number, not words
        (("cull", "timeout"), "1h"),  # seconds, an integer
    ],
)
def test_a_wrong_setting_fails_the_schema(path: tuple[str, ...], value: object) -> None:
    broken = copy.deepcopy(CONFIG)
    node = broken
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)


def test_the_config_says_the_chart_version_the_schema_is_pinned_at() -> None:
    text = CONFIG_FILE.read_text(encoding="utf-8")
    assert f"Helm chart, {CHART})" in text and f"--version {CHART}" in text
    for guide in GUIDES.values():
        assert f"--version {CHART}" in guide.read_text(encoding="utf-8"), guide.name


# --- what the config asks for -----------------------------------------------------------------


def test_the_image_is_built_from_requirements_txt_which_brings_lab_and_nbgitpuller() -> None:
    requirements = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert ".[lab]" in requirements
    assert any(r.startswith("nbgitpuller") for r in requirements)
    text = CONFIG_FILE.read_text(encoding="utf-8")
    assert "repo2docker" in text and CONFIG["singleuser"]["image"]["tag"] != "latest"
    assert CONFIG["singleuser"]["defaultUrl"] == "/lab"


def test_idle_servers_and_kernels_are_culled() -> None:
    assert CONFIG["cull"]["enabled"] is True and CONFIG["cull"]["timeout"] > 0
    culling = CONFIG["singleuser"]["extraFiles"]["kernel-culling"]
    assert culling["mountPath"].endswith("/jupyter_server_config.json")
    assert culling["data"]["MappingKernelManager"]["cull_idle_timeout"] > 0


def test_each_learners_memory_comes_from_the_measured_class() -> None:
    one = measured()
    memory = CONFIG["singleuser"]["memory"]
    # the guarantee: the server and three kernels; the limit: every notebook of the lesson open
    assert mib(memory["guarantee"]) >= one["server_mib"] + 3 * one["kernel_mib"]
    notebooks = len(EDITIONS["en"])
    assert mib(memory["limit"]) >= one["server_mib"] + notebooks * one["kernel_mib"]
    assert mib(memory["guarantee"]) < one["server_mib"] + 4 * one["kernel_mib"] + 64  # not lavish


def test_each_learners_cpu_starts_a_full_node_within_the_hubs_wait() -> None:
    one = measured()
    cpu = CONFIG["singleuser"]["cpu"]
    wait = CONFIG["hub"]["config"]["KubeSpawner"]["http_timeout"]
    # every learner on the node starting at once, each at its guarantee
    assert one["server_cpu_s"] / cpu["guarantee"] < 30 <= wait  # KubeSpawner's default wait: 30 s
    assert cpu["limit"] >= 1


# --- the guide's table is that arithmetic -------------------------------------------------------


def table(guide: Path) -> list[list[str]]:
    """The rows of the learners-per-node table (after its header) in a guide."""
    text = guide.read_text(encoding="utf-8")
    start = text.index("| 2 ")
    rows = []
    for line in text[start:].splitlines():
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("*") for cell in line.strip("|").split("|")])
    return rows


@pytest.mark.parametrize("lang", GUIDES)
def test_the_guides_learners_per_node_follow_from_the_configs_guarantees(lang: str) -> None:
    cpu = CONFIG["singleuser"]["cpu"]["guarantee"]
    memory = mib(CONFIG["singleuser"]["memory"]["guarantee"])
    rows = table(GUIDES[lang])
    assert len(rows) >= 4
    for node, by_cpu, by_memory, per_node in rows:
        cores, gib = (int(n) for n in re.findall(r"\d+", node))
        assert int(by_cpu) == math.floor(cores / cpu + 1e-9), node
        assert int(by_memory) == math.floor(gib * 1024 / memory), node
        assert int(per_node) == min(int(by_cpu), int(by_memory)), node
    text = GUIDES[lang].read_text(encoding="utf-8")
    general = next(int(r[3]) for r in rows if re.findall(r"\d+", r[0]) == ["8", "32"])
    assert f"300 ÷ {general}" in text  # a course of 300 on 8-core, 32 GiB nodes


@pytest.mark.parametrize("lang", GUIDES)
def test_the_guide_links_the_config_it_describes(lang: str) -> None:
    guide = GUIDES[lang]
    targets = re.findall(r"\]\(([^)\s]*z2jh/config\.yaml)\)", guide.read_text(encoding="utf-8"))
    assert targets and all((guide.parent / t).resolve() == CONFIG_FILE for t in targets), targets
