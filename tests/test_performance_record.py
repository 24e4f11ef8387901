"""experiments/PERFORMANCE.md keeps the command behind every folder of experiments/results/ (its section
*Commands behind results/*), and the README points to that record."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands_block() -> str:
    text = (ROOT / "experiments" / "PERFORMANCE.md").read_text()
    section = text.split("## Commands behind `results/`", 1)[1]
    return section.split("```", 2)[1]


def test_every_results_folder_has_its_command():
    block = _commands_block()
    folders = sorted(p.name for p in (ROOT / "experiments" / "results").iterdir() if p.is_dir())
    assert folders, "no results folders found"
    missing = [name for name in folders
               if not re.search(rf"results/{re.escape(name)}\b|^# {re.escape(name)}:", block, re.MULTILINE)]
    assert not missing, f"results folders without a command in experiments/PERFORMANCE.md: {missing}"


def test_every_command_names_an_existing_script():
    scripts = set(re.findall(r"experiments/(\w+\.py)", _commands_block()))
    assert scripts, "no commands found"
    assert not [s for s in scripts if not (ROOT / "experiments" / s).is_file()]


def test_readme_points_to_the_record():
    readme = (ROOT / "README.md").read_text()
    performance = readme.split("## Performance", 1)[1].split("\n## ", 1)[0]
    assert "experiments/PERFORMANCE.md" in performance
