"""The floors of the house (docs/architecture.md): an app imports its own floor and the floors
below, never one above, and no two apps import each other. Read from the source with `ast`,
so an import inside a function, a view, a task or a management command counts as much as one
at the top of a module. The evaluator imports neither Django nor cupboard."""
import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import cupboard
import evaluator

PLATFORM = Path(cupboard.__file__).parent
EVALUATOR = Path(evaluator.__file__).parent

# cupboard's parts from the ground up. Floor 0 holds what every app may use and what knows no
# app: the project's small modules, user accounts, the audit log and the Celery app (celery.py
# finds each app's tasks lazily, by name). A lower floor never imports a higher one; the top
# floor is the project itself (its root urls.py, settings, wsgi and package).
FLOORS = [
    {"accounts", "audit", "bidi", "broker", "bulk_writes", "celery", "charts", "csp", "csvexport", "envconfig", "events", "followups", "health", "heartbeat",
     "jobs", "jsonexport", "links", "local_copies", "locking", "outages", "proxies", "readonly_admin", "redis_cache", "refusals",
     "staticfiles", "supervise", "tallies", "throttle"},
    {"competitions"},
    {"teams"},
    {"submissions"},
    {"leaderboards", "systems"},
    {"judging", "notifications"},
    {"flows", "operations"},
    {"demo"},
    {"cupboard", "settings", "urls", "wsgi"},
]
FLOOR_OF = {part: floor for floor, parts in enumerate(FLOORS) for part in parts}

def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement reads: `import a.b` and `from a import b`, relative ones resolved."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
    # `from cupboard import teams` names the part in the alias.
    return [f"{base}.{alias.name}" for alias in node.names] if base == "cupboard" else [base]


def imports_of(root: Path):
    """(file relative to root's parent, line, importing module, imported name) for every import under root."""
    for path in sorted(root.rglob("*.py")):
        module = _module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            for name in _imported(node, module, path.name == "__init__.py"):
                yield f"{path.relative_to(root.parent)}:{node.lineno}", module, name


def _part(module: str) -> str | None:
    """The app or floor-0 module a dotted name belongs to (`cupboard.teams.views` -> teams), None outside cupboard."""
    parts = module.split(".")
    if parts[0] != "cupboard":
        return None
    return parts[1] if len(parts) > 1 else "cupboard"


def _cross_imports() -> list[tuple[str, str, str]]:
    """(where, importing part, imported part) for every import from one part of cupboard to another."""
    found = []
    for where, module, name in imports_of(PLATFORM):
        source, target = _part(module), _part(name)
        if target is not None and target != source:
            found.append((where, source, target))
    return found


def test_every_part_of_cupboard_has_a_floor():
    parts = {path.stem if path.is_file() else path.name for path in PLATFORM.iterdir()
             if path.suffix == ".py" or (path / "__init__.py").exists()} - {"__init__"}
    assert parts - FLOOR_OF.keys() == set(), "add the new part to a floor in FLOORS (and docs/architecture.md)"


def test_no_import_climbs_a_floor():
    climbs = [f"{where}: {source} (floor {FLOOR_OF[source]}) imports {target} (floor {FLOOR_OF[target]})"
              for where, source, target in _cross_imports()
              if source in FLOOR_OF and target in FLOOR_OF and FLOOR_OF[target] > FLOOR_OF[source]]
    assert not climbs, "imports that climb a floor:\n" + "\n".join(climbs)


def _cycle(edges: dict[tuple[str, str], str]) -> list[str]:
    """One ring of parts importing each other, each step named by one of its imports; [] when there is none."""
    graph: dict[str, set[str]] = {}
    for source, target in edges:
        graph.setdefault(source, set()).add(target)
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        ring = error.args[1]  # [a, b, ..., a], each part imported by the next
        return [f"{b} imports {a}: {edges[b, a]}" for a, b in zip(ring, ring[1:], strict=False)]
    return []


def test_no_parts_import_each_other_even_round_a_cycle():
    edges: dict[tuple[str, str], str] = {}
    for where, source, target in _cross_imports():
        edges.setdefault((source, target), where)
    cycle = _cycle(edges)
    assert not cycle, "parts that import each other round a cycle:\n" + "\n".join(cycle)


def test_a_ring_of_three_is_found_and_named():
    edges = {("throttle", "locking"): "x.py:1", ("locking", "csp"): "y.py:2", ("csp", "throttle"): "z.py:3"}
    assert sorted(_cycle(edges)) == ["csp imports throttle: z.py:3", "locking imports csp: y.py:2",
                                     "throttle imports locking: x.py:1"]
    assert _cycle({("teams", "competitions"): "t.py:1"}) == []


def test_the_evaluator_imports_neither_django_nor_cupboard():
    found = [f"{where}: {name}" for where, module, name in imports_of(EVALUATOR)
             if name.split(".")[0] in {"django", "cupboard"}]
    assert found == []


def test_no_private_name_is_imported_from_another_part():
    """A `_name` belongs to its module: another app importing it copies a rule instead of sharing
    one (how a competition is found and refused lives in competitions/access.py, public)."""
    found = []
    for path in sorted(PLATFORM.rglob("*.py")):
        module = _module_name(path, PLATFORM)
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            (base,) = _imported(ast.ImportFrom(module=node.module, names=[ast.alias("x")], level=node.level),
                                module, path.name == "__init__.py")
            private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
            if private and _part(base) not in (None, _part(module)):
                found.append(f"{path.relative_to(PLATFORM.parent)}:{node.lineno}: {', '.join(private)} from {base}")
    assert found == [], "private names imported across apps:\n" + "\n".join(found)


def test_scoring_and_the_services_that_queue_submissions_do_not_import_each_other():
    """Both import the scoring kind (submissions/scoring_kind.py), not each other (issue 32's review)."""
    pair = {"cupboard.submissions.services", "cupboard.submissions.scoring"}
    found = [(where, module, name) for where, module, name in imports_of(PLATFORM)
             if module in pair and any(name == other or name.startswith(other + ".") for other in pair - {module})]
    assert found == []
