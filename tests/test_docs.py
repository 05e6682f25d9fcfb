"""The README is the front door: every link it gives leads somewhere (docs/ is checked by MkDocs,
`mkdocs build --strict` in `make test`), and every page of docs/ is in the site's navigation."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\((?!https?://|mailto:|#)([^)#\s]+)(?:#[^)]*)?\)")


def test_every_relative_link_of_the_readme_leads_to_a_file():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = LINK.findall(readme)
    assert targets, "the README links its reference pages"
    assert [t for t in targets if not (ROOT / t).exists()] == []


def test_the_readme_stays_a_front_door():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 150


def pages(nav: list) -> set[str]:
    found: set[str] = set()
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            found |= pages(value) if isinstance(value, list) else {value}
    return found


def test_every_page_of_the_reference_is_in_the_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = pages(config["nav"])
    assert {p.name for p in (ROOT / "docs").glob("*.md")} == listed
