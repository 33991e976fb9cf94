"""The repository's documents say only what is there: every file they link to or name exists, every
provider and ``auto`` order they state is the code's, and every ``ALGORITHMS.md`` section the code
points to exists.

Documents: every ``*.md`` tracked by git (README.md, ALGORITHMS.md, launch_scripts/README.md,
mpitaskmap/data/README.md, benchmarks/peers/README.md, ...) and the text of the launch scripts and
the examples.  The truth is read from the code: the provider names from
:func:`mpitaskmap.providers.available_providers`, the detection order from
:data:`mpitaskmap.providers.AUTO_ORDER`, the simulated machines from
:data:`mpitaskmap.providers.sim.SIM_KINDS`.  Each checker is also run on a small bad document
written to ``tmp_path``, so a checker that finds nothing cannot pass unnoticed.
"""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

import pytest

from mpitaskmap.providers import AUTO_ORDER, available_providers
from mpitaskmap.providers.sim import SIM_KINDS

ROOT = Path(__file__).resolve().parents[1]

#: Top-level directories whose paths documents name (``mpitaskmap/machines/torus.py``, ``benchmarks/x.py``).
REPO_DIRS = ("mpitaskmap", "benchmarks", "examples", "tests", "launch_scripts", "cext", ".ci")
#: How a document names a repository path: a top-level directory, then path characters.
_REPO_PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(re.escape(d) for d in REPO_DIRS) + r")/[\w./-]*)")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_ALGORITHMS_REF = re.compile(r"ALGORITHMS\.md,?\s+(?:section\s+)?(\d+(?:\.\d+)?)")
#: A provider spec in a document: ``MPITASKMAP_PROVIDER=NAME...``, ``--provider NAME...``, ``provider="NAME..."``.
_PROVIDER_SPEC = re.compile(r"(?:MPITASKMAP_PROVIDER=|--provider[ =]|provider=[\"'])[\"'`]?([A-Za-z$][\w$-]*)")
#: A simulated machine given as a spec (where a spec goes, or a backticked spec): ``sim:KIND``.
_SIM_SPEC = re.compile(r"(?:MPITASKMAP_PROVIDER=|--provider[ =]|PROVIDER=|-m |--machine[ =]|provider=[\"']|`)"
                       r"[\"']?sim:([A-Za-z][\w-]*)")


def git_files(pattern: str) -> list[Path]:
    """Files tracked by git that match ``pattern`` (a ``git ls-files`` pathspec)."""
    out = subprocess.run(["git", "ls-files", "-z", "--", pattern], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / p for p in out.stdout.decode().split("\0") if p]


def documents() -> list[Path]:
    """Every tracked ``*.md``, the launch scripts and the examples' sources."""
    docs = git_files("*.md") + [p for p in git_files("launch_scripts/*") if p.suffix != ".md"]
    docs += [p for p in git_files("examples/*") if p.suffix in (".py", ".c", ".txt", ".conf")]
    return sorted(set(docs))


def _lineno(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# -- the checkers (each returns one message per fault: "LINE: what") ------------------------------

def missing_files(text: str, doc: Path, root: Path = ROOT) -> list[str]:
    """Markdown links to a file that does not exist, and repository paths that do not exist."""
    faults = []
    if doc.suffix == ".md":
        for m in _LINK.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor in the same page
            path = target.split("#", 1)[0]
            where = (root if path.startswith("/") else doc.parent) / path.lstrip("/")
            if not where.exists():
                faults.append(f"{_lineno(text, m.start())}: link to a missing file {target!r}")
    for m in _REPO_PATH.finditer(text):
        path = m.group(1).rstrip("./")
        if not (root / path).exists():
            faults.append(f"{_lineno(text, m.start())}: names a missing path {path!r}")
    return faults


def _strip_parentheses(text: str) -> str:
    while True:
        stripped = re.sub(r"\([^()]*\)", "", text)
        if stripped == text:
            return text
        text = stripped


def stated_auto_order(text: str) -> list[str] | None:
    """The order of the paragraph starting ``\\`auto\\` detection order:`` (``MPITASKMAP_PROVIDER`` read as ``env``)."""
    start = text.find("`auto` detection order:")
    if start < 0:
        return None
    end = text.find("\n\n", start)
    paragraph = _strip_parentheses(text[start + len("`auto` detection order:"):end if end >= 0 else None])
    return ["env" if name == "MPITASKMAP_PROVIDER" else name for name in re.findall(r"`([\w-]+)`", paragraph)]


def auto_order_faults(text: str) -> list[str]:
    """The stated ``auto`` order, if any, differs from :data:`AUTO_ORDER`."""
    stated = stated_auto_order(text)
    if stated is None or stated == list(AUTO_ORDER):
        return []
    line = _lineno(text, text.find("`auto` detection order:"))
    return [f"{line}: `auto` detection order {stated} differs from the code's {list(AUTO_ORDER)}"]


def provider_spec_faults(text: str) -> list[str]:
    """Provider specs naming a provider, or simulated machines naming a kind, that the code does not have."""
    faults, names = [], set(available_providers())
    for m in _PROVIDER_SPEC.finditer(text):
        family = m.group(1)
        if "$" in family or family.isupper():
            continue  # a shell variable or a placeholder (SPEC)
        if family.lower() not in names:
            faults.append(f"{_lineno(text, m.start())}: unknown provider {family!r}; the code's: {sorted(names)}")
    for m in _SIM_SPEC.finditer(text):
        kind = m.group(1)
        if not kind.isupper() and kind not in SIM_KINDS:
            faults.append(f"{_lineno(text, m.start())}: unknown simulated machine 'sim:{kind}'; the code's: "
                          f"{sorted(SIM_KINDS)}")
    return faults


def algorithms_sections(text: str) -> set[str]:
    """Section numbers of ALGORITHMS.md's headings: ``## 5. ...`` gives ``5``, ``### 2.4 ...`` gives ``2.4``."""
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.?\s", text, re.M))


def algorithms_ref_faults(text: str, sections: set[str]) -> list[str]:
    """References ``ALGORITHMS.md section N`` / ``ALGORITHMS.md N.M`` to a section the file does not have."""
    return [f"{_lineno(text, m.start())}: ALGORITHMS.md has no section {m.group(1)}"
            for m in _ALGORITHMS_REF.finditer(text) if m.group(1) not in sections]


def code_table_faults(text: str, root: Path = ROOT) -> list[str]:
    """Rows ``| `module path` | `function`, ... |`` whose module or a function does not exist."""
    faults = []
    for m in re.finditer(r"^\| `([\w/]+\.pyx?)` \| ([^|]*) \|", text, re.M):
        path, line = m.group(1), _lineno(text, m.start())
        names = re.findall(r"`([\w.]+)`", m.group(2))
        if not (root / path).exists():
            faults.append(f"{line}: no module {path}")
            continue
        if path.endswith(".pyx"):
            source = (root / path).read_text(encoding="utf-8")
            faults += [f"{line}: {path} defines no {n}" for n in names
                       if not re.search(rf"^(?:c?p?def|cdef class|class) +{re.escape(n)}\b", source, re.M)]
            continue
        module = importlib.import_module(path[:-3].replace("/", ".").removesuffix(".__init__"))
        for name in names:
            obj = module
            for part in name.split("."):
                obj = getattr(obj, part, None)
            if obj is None:
                faults.append(f"{line}: {path} has no {name}")
    return faults


# -- the repository's documents -------------------------------------------------------------------

DOCS = documents()


def test_the_documents_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in DOCS}
    assert {"README.md", "ALGORITHMS.md", "launch_scripts/README.md", "mpitaskmap/data/README.md",
            "benchmarks/peers/README.md", "launch_scripts/slurm.sbatch", "examples/minighost.py"} <= names


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_document_names_a_missing_file(doc):
    assert missing_files(doc.read_text(encoding="utf-8"), doc) == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_document_names_a_provider_or_machine_the_code_lacks(doc):
    assert provider_spec_faults(doc.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_stated_auto_order_is_the_codes(doc):
    assert auto_order_faults(doc.read_text(encoding="utf-8")) == []


def test_the_readmes_state_the_auto_order():
    for name in ("README.md", "launch_scripts/README.md"):
        assert stated_auto_order((ROOT / name).read_text(encoding="utf-8")) == list(AUTO_ORDER), name


def test_the_configuration_table_names_every_provider():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `MPITASKMAP_PROVIDER` |"))
    cells = re.split(r"(?<!\\)\|", row)  # a cell's own '|' is written '\|'
    families = {re.split(r"[:\[]", spec)[0] for spec in re.findall(r"`([^`]+)`", cells[2]) if not spec.endswith("=")}
    assert families == set(available_providers())


def test_launch_scripts_readme_lists_every_provider_and_every_script():
    text = (ROOT / "launch_scripts" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Providers and their environment"):text.index("\n## ", text.index("## Providers"))]
    bullets = re.findall(r"^\* `([\w-]+)`", section, re.M)
    assert sorted(bullets) == sorted(available_providers())
    listed = set(re.findall(r"^\| `([\w.]+)` \|", text, re.M))
    scripts = {p.name for p in git_files("launch_scripts/*") if p.suffix != ".md"}
    assert listed == scripts
    table = text[text.index("| script |"):text.index("\n\n", text.index("| script |"))]
    for cell in (line.split("|")[4] for line in table.splitlines()[2:]):
        assert set(re.findall(r"`([\w-]+)`", cell)) <= set(available_providers()), cell


def test_every_algorithms_reference_in_the_code_exists():
    sections = algorithms_sections((ROOT / "ALGORITHMS.md").read_text(encoding="utf-8"))
    assert {str(n) for n in range(1, 12)} | {"2.2", "2.4", "2.5"} <= sections
    sources = [p for p in git_files("*.py") + git_files("*.pyx") + git_files("*.md") if p != Path(__file__)]  # not BAD
    faults = []
    for path in sources:
        faults += [f"{path.relative_to(ROOT)}:{f}" for f in algorithms_ref_faults(path.read_text(encoding="utf-8"),
                                                                                  sections)]
    assert faults == []
    citing = [p for p in git_files("mpitaskmap/*.py") if "ALGORITHMS.md" in p.read_text(encoding="utf-8")]
    assert len(citing) >= 21  # the library modules that point here (issue 39)


def test_algorithms_code_tables_name_modules_and_functions_that_exist():
    text = (ROOT / "ALGORITHMS.md").read_text(encoding="utf-8")
    assert len(re.findall(r"^\| `[\w/]+\.pyx?` \|", text, re.M)) >= 40
    assert code_table_faults(text) == []


# -- the checkers catch planted errors ----------------------------------------------------------

BAD = """\
# A bad document

See [the guide](docs/guide.md) and [the API](#api), the [site](https://example.org/x.md),
the machine file reader `mpitaskmap/machines/machine_files.py` and `benchmarks/nothing.py`;
the real `mpitaskmap/machines/machine_file.py` is fine.

`auto` detection order: `MPITASKMAP_PROVIDER`, then `file` (if
`MPITASKMAP_COORDS_FILE` is set), `rca`, `bgq`, `hostname`.

Run with MPITASKMAP_PROVIDER=gemini or `--provider sim:titanic:nodes=4`, or --provider "$PROVIDER".

The docstrings point to ALGORITHMS.md section 12 and ALGORITHMS.md 2.9; section 2 and 2.4 exist.
"""


def test_the_checkers_find_every_planted_error(tmp_path):
    doc = tmp_path / "bad.md"
    doc.write_text(BAD, encoding="utf-8")
    (tmp_path / "mpitaskmap" / "machines").mkdir(parents=True)
    (tmp_path / "mpitaskmap" / "machines" / "machine_file.py").write_text("")
    assert missing_files(BAD, doc, root=tmp_path) == [
        "3: link to a missing file 'docs/guide.md'",
        "4: names a missing path 'mpitaskmap/machines/machine_files.py'",
        "4: names a missing path 'benchmarks/nothing.py'",
    ]
    assert auto_order_faults(BAD) == [
        f"7: `auto` detection order ['env', 'file', 'rca', 'bgq', 'hostname'] differs from the code's {list(AUTO_ORDER)}"]
    faults = provider_spec_faults(BAD)
    assert [f.split(";")[0] for f in faults] == ["10: unknown provider 'gemini'", "10: unknown simulated machine "
                                                 "'sim:titanic'"]
    sections = algorithms_sections("## 1. Metrics\n\n## 2. Geometric\n\n### 2.4 Improvements\n")
    assert sections == {"1", "2", "2.4"}
    assert algorithms_ref_faults(BAD, sections) == ["12: ALGORITHMS.md has no section 12",
                                                    "12: ALGORITHMS.md has no section 2.9"]


def test_a_link_resolves_against_its_documents_directory(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "local.sh").write_text("")
    doc = tmp_path / "sub" / "README.md"
    assert missing_files("[script](local.sh) and [up](../sub/local.sh)", doc, root=tmp_path) == []
    assert missing_files("[script](remote.sh)", doc, root=tmp_path) == ["1: link to a missing file 'remote.sh'"]


def test_the_code_table_checker_finds_a_missing_function_and_module(tmp_path):
    text = ("| module | functions | what |\n|---|---|---|\n"
            "| `mpitaskmap/metrics.py` | `weighted_hops`, `heavy_hops` | x |\n"
            "| `mpitaskmap/gone.py` | `f` | x |\n"
            "| `cext/_torus.pyx` | `csr_hop_sums`, `no_kernel` | x |\n")
    assert code_table_faults(text) == ["3: mpitaskmap/metrics.py has no heavy_hops", "4: no module mpitaskmap/gone.py",
                                       "5: cext/_torus.pyx defines no no_kernel"]


def test_the_provider_docstrings_name_every_provider_and_the_auto_order():
    import mpitaskmap.providers as providers
    import mpitaskmap.providers.auto as auto

    table = providers.__doc__[providers.__doc__.index("Providers\n---------"):providers.__doc__.index("Environment\n")]
    assert sorted(re.findall(r"^``([\w-]+)``", table, re.M)) == sorted(available_providers())
    detection = re.search(r"detection: ([\w ->]+)", table).group(1)
    assert [name.strip() for name in detection.split("->")] == list(AUTO_ORDER)
    assert re.findall(r"^\d\. ``([\w-]+)``", auto.__doc__, re.M) == list(AUTO_ORDER)


def test_every_complete_provider_spec_of_the_launch_scripts_parses():
    """A spec written out in full (no ``...``, no empty value, no shell variable) is one the code accepts."""
    from mpitaskmap.providers import get_provider

    specs = set()
    for path in git_files("launch_scripts/*"):
        text = path.read_text(encoding="utf-8")
        specs |= set(re.findall(r"(?:MPITASKMAP_PROVIDER=|--provider |PROVIDER=(?:\$\{PROVIDER:-)?)([a-z][\w:=,.x-]*)", text))
        specs |= {s for s in re.findall(r"`([a-z][\w-]*:[^`\s]*)`", text) if s.split(":")[0] in available_providers()}
    specs = {s.rstrip(",.") for s in specs if "..." not in s and "=," not in s and not s.endswith("=")}
    assert {"sim:titan:ppn=1,seed=1", "rca", "cxi:preset=perlmutter", "slurm:taper=4", "fjmpi"} <= specs
    for spec in sorted(specs):
        get_provider(spec)  # raises InvalidInputError naming the spec
