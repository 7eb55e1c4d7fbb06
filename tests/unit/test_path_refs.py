"""Finding the existing paths a Markdown context file mentions (pi_lsp.resources.path_refs)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.resources.path_refs import PathRef, find_path_refs
from tests.shared_data import CORPUS


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for folder in ("docs", "src", "scripts", "home/.config"):
        (tmp_path / folder).mkdir(parents=True)
    for file in ("docs/guide.md", "src/app.py", "scripts/check.sh", "my file.md", "package.json"):
        (tmp_path / file).write_text("x\n")
    (tmp_path / "home" / ".config" / "pi.toml").write_text("")
    return tmp_path


def refs(project: Path, text: str, **kwargs: str) -> list[tuple[int, int, int, str, str]]:
    """(line, start, end, kind, target relative to the project) of each reference."""
    out = []
    for ref in find_path_refs(
        text, str(project / "AGENTS.md"), home=str(project / "home"), **kwargs
    ):
        where = ref.where
        assert where.start_line == where.end_line
        line = text.split("\n")[where.start_line]
        assert line[where.start_column : where.end_column] == ref.written
        target = os.path.relpath(ref.target, project)
        out.append((where.start_line, where.start_column, where.end_column, ref.kind, target))
    return out


def test_links_images_and_definitions(project: Path) -> None:
    text = (
        "See [the guide](docs/guide.md) and ![shot](<my file.md>).\n"
        "Also [again](my%20file.md#intro), [ref][g] and [top](#top).\n"
        "\n"
        "[g]: ./docs/guide.md 'Guide'\n"
    )
    assert refs(project, text) == [
        (0, 16, 29, "link", "docs/guide.md"),
        (0, 44, 54, "image", "my file.md"),
        (1, 13, 31, "link", "my file.md"),
        (3, 5, 20, "definition", "docs/guide.md"),
    ]


def test_only_existing_local_targets(project: Path) -> None:
    text = (
        "[gone](docs/missing.md) [web](https://example.com/src/app.py) [mail](mailto:a@b.c)\n"
        "[proto](//cdn.example.com/src/app.py) `src/missing.py` docs/nothing/\n"
    )
    assert refs(project, text) == []


def test_inline_code_prose_and_imports(project: Path) -> None:
    text = (
        "Edit `src/app.py` or `package.json`; run `bash scripts/check.sh --fast`.\n"
        "Docs live in **docs/**, e.g. ./docs/guide.md. Read @docs/guide.md and @package.json.\n"
        "Words with dots are not paths: package.json, and/or, src/..., src/*.py, $HOME/src.\n"
    )
    assert refs(project, text) == [
        (0, 6, 16, "code", "src/app.py"),
        (0, 22, 34, "code", "package.json"),
        (0, 47, 63, "code", "scripts/check.sh"),
        (1, 15, 20, "text", "docs"),
        (1, 29, 44, "text", "docs/guide.md"),
        (1, 52, 65, "import", "docs/guide.md"),
        (1, 71, 83, "import", "package.json"),
    ]


def test_line_suffixes(project: Path) -> None:
    text = "Crash at src/app.py:42:7, see [there](src/app.py#L10) and `docs/`.\n"
    found = find_path_refs(text, str(project / "AGENTS.md"))
    assert [(r.written, r.line, r.is_dir) for r in found] == [
        ("src/app.py:42:7", 42, False),
        ("src/app.py#L10", 10, False),
        ("docs/", None, True),
    ]


def test_code_blocks_link_only_clear_paths(project: Path) -> None:
    text = (
        "```bash src/app.py\n"
        "python src/app.py package.json /usr/bin/env ./scripts/check.sh\n"
        "```\n"
        "\n"
        "    cat docs/guide.md\n"
    )
    assert refs(project, text) == [
        (1, 7, 17, "code", "src/app.py"),
        (1, 44, 62, "code", "scripts/check.sh"),
        (4, 8, 21, "code", "docs/guide.md"),
    ]


def test_columns_are_code_points_after_emoji_and_cjk(project: Path) -> None:
    text = "🎉 漢字 [g](docs/guide.md) 😀 `src/app.py`\r\nnext src/app.py\r\n"
    assert refs(project, text) == [
        (0, 9, 22, "link", "docs/guide.md"),
        (0, 27, 37, "code", "src/app.py"),
        (1, 5, 15, "text", "src/app.py"),
    ]


def test_a_link_split_over_lines_and_table_cells(project: Path) -> None:
    text = (
        "Read [the\nguide](./docs/guide.md).\n\n"
        "| file | what |\n|---|---|\n| `src/app.py` | app |\n"
    )
    assert refs(project, text) == [
        (1, 7, 22, "link", "docs/guide.md"),
        (5, 3, 13, "code", "src/app.py"),
    ]


def test_home_absolute_and_root_relative(project: Path) -> None:
    text = f"~/.config/pi.toml and {project}/src/app.py; [root](/docs/guide.md)\n"
    sub = project / "src"
    found = find_path_refs(
        text, str(sub / "AGENTS.md"), home=str(project / "home"), root=str(project)
    )
    assert [(r.written, os.path.relpath(r.target, project)) for r in found] == [
        ("~/.config/pi.toml", "home/.config/pi.toml"),
        (f"{project}/src/app.py", "src/app.py"),
        ("/docs/guide.md", "docs/guide.md"),
    ]


def test_relative_to_the_files_own_folder(project: Path) -> None:
    text = "[up](../docs/guide.md) and `app.py`\n"
    found = find_path_refs(text, str(project / "src" / "AGENTS.md"))
    assert [r.target for r in found] == [
        str(project / "docs" / "guide.md"),
        str(project / "src" / "app.py"),
    ]


def test_odd_input_does_not_crash(project: Path) -> None:
    for text in (
        "",
        "\n",
        "`",
        "[",
        "](",
        "[a](",
        "\x00src/app.py",
        "---\n---",
        "\r\r\r",
        "\ufeff",
    ):
        find_path_refs(text, str(project / "AGENTS.md"))


def _corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*.md") if p.is_file())


@pytest.mark.shared
def test_every_corpus_file() -> None:
    files = _corpus_files()
    assert len(files) > 500
    total = 0
    for path in files:
        text = path.read_text("utf-8", errors="replace")
        lines = text.split("\n")
        found = find_path_refs(text, str(path))
        for ref in found:
            where = ref.where
            assert lines[where.start_line][where.start_column : where.end_column] == ref.written
            assert os.path.exists(ref.target), ref
        total += len(found)
    assert total > 500


def _by_written(path: Path) -> dict[str, PathRef]:
    """Each written path's first reference."""
    text = path.read_text("utf-8")
    return {ref.written: ref for ref in reversed(find_path_refs(text, str(path)))}


@pytest.mark.shared
def test_known_corpus_links() -> None:
    repos = CORPUS / "repos"
    skill = (
        repos
        / "pydantic__pydantic-ai/pydantic_ai_slim/pydantic_ai/.agents/skills"
        / "building-pydantic-ai-agents/SKILL.md"
    )
    link = _by_written(skill)["./references/AGENTS-CORE.md"]
    assert link.kind == "link"
    assert (link.where.start_line, link.where.start_column) == (298, 108)
    assert link.target == str(skill.parent / "references" / "AGENTS-CORE.md")

    uv = _by_written(repos / "astral-sh__uv" / "CLAUDE.md")["AGENTS.md"]  # "@AGENTS.md"
    assert (uv.kind, uv.where.start_column) == ("import", 1)

    creator = _by_written(repos / "anthropics__skills/skills/skill-creator/SKILL.md")
    assert creator["references/schemas.md"].kind == "code"
    assert creator["references/"].is_dir
