"""MkDocs hooks: the site's rule pages and rule table come from the registry and the catalog ``rules/``.

Nothing here is a hand copy: each ``rules/<CODE>-<name>/README.md`` becomes ``rules/<CODE>.md`` (its links to
other catalog pages and to the old README sections rewritten to site pages, its ``bad.py``/``good.py`` appended),
the ``<!-- rules-table-from-registry -->`` marker of ``rules/index.md`` becomes ``tfguard rules --format
markdown`` with links to those pages, README.md becomes the home page ``index.md``
CONTRIBUTING.md ``contributing.md`` and CHANGELOG.md ``changelog.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "rules"
TABLE_MARKER = re.compile(r"<!-- rules-table-from-registry[^>]*-->")
# Links the catalog READMEs make, as they read on GitHub, and the site page each one means.
_OLD_SECTIONS = {"fixing": "../checker/fixing.md", "slowdown-test": "../runtime/guard.md#slowdown-test"}


def _rule_folders():
    return sorted(p for p in CATALOG.iterdir() if p.is_dir() and re.match(r"TFG\d{3}-", p.name))


def _site_links(text: str) -> str:
    """Rewrite a catalog README's links for ``docs/rules/<CODE>.md``."""
    text = re.sub(r"\]\(\.\./(TFG\d{3})-[a-z0-9-]+/README\.md\)", r"](\1.md)", text)
    text = re.sub(r"\]\(\.\./\.\./docs/([^)]+)\)", r"](../\1)", text)
    return re.sub(r"\]\(\.\./\.\./README\.md#([a-z0-9-]+)\)",
                  lambda m: "](" + _OLD_SECTIONS.get(m.group(1), "../index.md") + ")", text)


def rule_page(folder: Path) -> str:
    """Return the site page of one catalog folder: its README, then its bad and good examples."""
    text = _site_links(folder.joinpath("README.md").read_text(encoding="utf-8")).rstrip() + "\n"
    for name, title in (("bad.py", "Flagged (`bad.py`)"), ("good.py", "Not flagged (`good.py`)")):
        example = folder / name
        if example.is_file():
            text += f"\n## {title}\n\n```python\n{example.read_text(encoding='utf-8').rstrip()}\n```\n"
    return text


def rules_table() -> str:
    """Return the registry's rule table with each code linked to its site page."""
    from tfguard.cli.rules import rule_rows, rules_markdown

    return re.sub(r"\]\(rules/(TFG\d{3})-[a-z0-9-]+/README\.md\)", r"](\1.md)", rules_markdown(rule_rows()))


def home_page() -> str:
    """Return README.md as the site's home page, its links rewritten from the repository to the site."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/([^)]+)\)", r"](\1)", text)
    text = re.sub(r"\]\(rules/(TFG\d{3})-[a-z0-9-]+/README\.md\)", r"](rules/\1.md)", text)
    text = text.replace("](CHANGELOG.md)", "](changelog.md)")
    text = text.replace("](LICENSE)", "](https://www.apache.org/licenses/LICENSE-2.0)")
    return text.replace("](CONTRIBUTING.md)", "](contributing.md)")


def rules_nav() -> list:
    """The Rules section of the nav: the rule list, then one sub-section per group of the registry's rows (TF 1
    graphs, training costs, TF 2 functions and costs, runtime...), each page titled `CODE name`, marked
    `(fixable)` when `--fix` fixes it (safe) or `(fixable, unsafe)` with `--unsafe-fixes`."""
    from tfguard.catalog import group_title
    from tfguard.cli.rules import rule_rows

    pages = {folder.name.split("-")[0] for folder in _rule_folders()}
    sections: dict = {}
    for row in rule_rows():
        if row["code"] not in pages:
            continue
        mark = {"safe": " (fixable)", "unsafe": " (fixable, unsafe)"}.get(row["fix"], "")
        title = group_title(row["group"]).split(":")[0]
        sections.setdefault(title, []).append({f"{row['code']} {row['name']}{mark}": f"rules/{row['code']}.md"})
    return ["rules/index.md", *({title: entries} for title, entries in sections.items())]


def on_config(config, **kwargs):
    """Put every rule page under the Rules section of the nav, grouped."""
    for entry in config["nav"]:
        if isinstance(entry, dict) and "Rules" in entry:
            entry["Rules"] = rules_nav()
    return config


def on_files(files, config, **kwargs):
    """Add the generated pages: one per catalog folder, and CONTRIBUTING.md."""
    for folder in _rule_folders():
        files.append(File.generated(config, f"rules/{folder.name.split('-')[0]}.md", content=rule_page(folder)))
    files.append(File.generated(config, "index.md", content=home_page()))
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    contributing = contributing.replace("](README.md#architecture)", "](architecture.md)")
    contributing = re.sub(r"\]\(docs/([^)]+)\)", r"](\1)", contributing)
    files.append(File.generated(config, "contributing.md", content=contributing))
    files.append(File.generated(config, "changelog.md", content=(ROOT / "CHANGELOG.md").read_text(encoding="utf-8")))
    return files


def on_page_markdown(markdown, page, **kwargs):
    """Fill the rule table marker from the registry."""
    if TABLE_MARKER.search(markdown):
        markdown = TABLE_MARKER.sub(lambda _: rules_table(), markdown)
    return markdown
