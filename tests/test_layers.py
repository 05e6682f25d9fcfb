"""How the code is layered, read from its imports (the AST, not a running import): the ground shelf
(``debates/lib/``) reads nothing of Teorema's; the engine and the providers know nothing of the web;
the roster reads only the rows and what lies below them; no way in from outside reaches into
another, and only the URLs read the pages; the engine's modules import one another in one
direction only, its readers none of the others."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEBATES = ROOT / "debates"
# The ground shelf: plain helpers every layer may read.
GROUND = ("debates.lib",)
# Who can be called and what it costs: it reads the rows, and the layers below them.
ROSTER = ("debates.roster", "debates.models", "debates.engine", "debates.providers", *GROUND)
# The pages and their error handlers: the top floor, read by the URLs alone.
PAGES = ("debates.views", "debates.errors")
WEB = ("django", "channels", "channels_redis", "daphne", "asgiref", "twisted")
# Each way in from outside the page, by the modules that make it up.
CHANNELS = {
    "api": ("debates.integrations.api",),
    "mcp": ("debates.integrations.mcp", "debates.management.commands.mcp"),
    "openai": ("debates.integrations.openai",),
    "telegram": ("debates.integrations.telegram", "debates.management.commands.telegram_poll"),
    "cli": ("debates.integrations.cli", "debates.management.commands.ask"),
    "page": ("debates.views", "debates.conversations.views"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, by its absolute name (``from a import b`` counts a and a.b)."""
    found: set[str] = set()
    package = module_name(path).rsplit(".", 0 if path.name == "__init__.py" else 1)[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def modules(*names: str) -> dict[str, set[str]]:
    """Each module of these packages (or the module itself), with what it imports."""
    found = {}
    for name in names:
        base = ROOT / name.replace(".", "/")
        for path in sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]:
            found[module_name(path)] = imports(path)
    return found


def within(name: str, prefixes: tuple[str, ...] | set[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_ground_shelf_reads_nothing_of_teoremas():
    for name, imported in modules("debates.lib").items():
        reached = sorted(i for i in imported if within(i, ("debates",)) and i != "debates" and not within(i, GROUND))
        assert not reached, f"{name} is on the ground shelf yet reads {reached}"


def test_the_roster_reads_the_rows_and_what_lies_below_them():
    for name, imported in modules("debates.roster").items():
        upward = sorted(i for i in imported if within(i, ("debates",)) and i != "debates" and not within(i, ROSTER))
        assert not upward, f"{name} reaches up into {upward}"


def test_only_the_urls_read_the_pages_and_their_error_handlers():
    for name, imported in modules("debates").items():
        if not within(name, (*PAGES, "debates.urls")):
            reached = sorted(i for i in imported if within(i, PAGES))
            assert not reached, f"{name} reads {reached}: what two pages share goes below them"


def test_the_runs_and_the_live_page_read_no_domain_built_on_them():
    above = ("debates.evaluation", "debates.integrations", "debates.service", *PAGES)
    for name, imported in modules("debates.runs", "debates.live").items():
        reached = sorted(i for i in imported if within(i, above))
        assert not reached, f"{name} reaches up into {reached}"


@pytest.mark.parametrize("layer", ["debates.engine", "debates.providers"])
def test_the_engine_and_the_providers_import_nothing_of_the_web(layer):
    allowed = ("debates.engine", "debates.providers", *GROUND)
    for name, imported in modules(layer).items():
        web = sorted(i for i in imported if within(i, WEB))
        assert not web, f"{name} imports {web}"
        upward = sorted(i for i in imported if within(i, ("debates",)) and i != "debates" and not within(i, allowed))
        assert not upward, f"{name} reaches up into {upward}"


def test_the_providers_do_not_reach_into_the_engine():
    for name, imported in modules("debates.providers").items():
        assert not [i for i in imported if within(i, ("debates.engine",))], name


def test_no_way_in_imports_another():
    every = modules("debates.integrations", "debates.management.commands", "debates.conversations") | modules(
        "debates.views"
    )
    for channel, own in CHANNELS.items():
        others = tuple(p for other, prefixes in CHANNELS.items() if other != channel for p in prefixes)
        for name, imported in every.items():
            if within(name, own):
                reached = sorted(i for i in imported if within(i, others))
                assert not reached, f"{name} ({channel}) imports {reached}"


def test_the_readers_of_model_text_read_no_other_engine_module():
    """A reader is small and pure (engine/reading/): what a step makes of what it read, as which of
    the asker's options a ballot names, is the step's."""
    for name, imported in modules("debates.engine.reading").items():
        reached = sorted(
            i for i in imported if within(i, ("debates.engine",)) and not within(i, ("debates.engine.reading",))
        )
        assert not reached, f"{name} reaches up into {reached}"


def test_the_engines_modules_import_one_another_in_one_direction():
    graph = {
        name: {i for i in imported if i in engine and i != name}
        for engine in [set(modules("debates.engine"))]
        for name, imported in modules("debates.engine").items()
    }
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"an import cycle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for target in graph[name]:
            if not target.startswith(name + "."):  # a package reading its own modules is not a cycle
                visit(target, (*path, name))
        done.add(name)

    for name in graph:
        visit(name, ())


def test_the_channels_read_nothing_from_the_database_themselves():
    """A channel translates; what it needs of the rows comes from the service (debates.service), so a
    rule of who may read what is written once."""
    for path in sorted((DEBATES / "integrations").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        queries = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "objects"]
        assert not queries, f"{module_name(path)} queries the database at lines {queries}"
