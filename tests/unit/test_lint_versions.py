"""Versions read as constraints: floors and pins of any product the catalogue names, compared
as constraints (two floors, two pins, a pin below a floor)."""

from __future__ import annotations

import pytest

from pi_lsp.lint.choices import Choice, contradicts, read_choices
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.versions import excludes, is_requirement, normalise


def picks(clause: str) -> set[str]:
    return {c.value for c in read_choices(clause) if c.stance == "prefer"}


def conflict_dimensions(root: str, child: str) -> list[str]:
    findings = find_conflicts([("AGENTS.md", root + "\n"), ("svc/AGENTS.md", child + "\n")])
    return [str(f.data.get("dimension")) for f in findings if "conflicting" in f.rule]


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("Ruby 3.3 or above across all services.", "Ruby 3.3+"),
        ("We need at least Ruby 3.2 here.", "Ruby 3.2+"),
        ("The lowest supported Ruby version in this gem is 3.1.", "Ruby 3.1+"),
        ("Kotlin 2.1 and up.", "Kotlin 2.1+"),
        ("Kotlin 2.0 and up.", "Kotlin 2+"),  # shown without its trailing zero
        ("TypeScript >= 5.4 everywhere.", "TypeScript 5.4+"),
        ("Rust 1.78+ (the MSRV).", "Rust 1.78+"),
        ("PostgreSQL 16 or newer in every environment.", "PostgreSQL 16+"),
        ("The Rust version floor is 1.80.", "Rust 1.80+"),
        # a label naming the floor, or the product as a label before it
        ("Minimum JDK: 21.", "Java 21+"),
        ("Minimum supported Python: 3.10", "Python 3.10+"),
        ("Supported Python: 3.10 and newer.", "Python 3.10+"),
        ("Node.js 20 is the minimum version.", "Node.js 20+"),
        ("Go 1.22 is the minimum supported version.", "Go 1.22+"),
    ],
)
def test_a_floor_of_any_product_is_read_without_an_imperative(clause: str, value: str) -> None:
    assert picks(clause) == {value}


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("Kotlin 2.1 exactly, matching the compiler plugin.", "Kotlin 2.1"),
        ("Exactly Rust 1.79 on the build hosts.", "Rust 1.79"),
        ("The Go toolchain is pinned to 1.22.", "Go 1.22"),
    ],
)
def test_a_pin_is_read_as_an_exact_version(clause: str, value: str) -> None:
    assert picks(clause) == {value}


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        (
            'The gemspec has `required_ruby_version`; `.tool-versions` says `ruby-version: "3.3"`.',
            "Ruby 3.3",
        ),
        ('Set `rust-version = "1.76"` in every crate manifest.', "Rust 1.76"),
        ("Each `pom.xml` sets `maven.compiler.release=17`.", "Java 17"),
        ("Build scripts call `jvmToolchain(21)`.", "Java 21"),
        ('Declare `requires-python = ">=3.11"` in `pyproject.toml`.', "Python 3.11+"),
        ("Projects target `<TargetFramework>net8.0</TargetFramework>`.", ".NET 8"),
    ],
)
def test_a_configuration_key_in_inline_code_states_the_version(clause: str, value: str) -> None:
    assert picks(clause) == {value}


@pytest.mark.parametrize(
    "clause",
    [
        # a condition: what to do on some versions, not which version the project needs
        "Use the new `asyncio.TaskGroup` helpers only on Python 3.11+.",
        "When running under Java 21+, prefer virtual threads.",
        # the version describes something else
        "Annotate with Python >=3.10 style unions (`int | None`).",
        "Modules may rely on Kotlin 2.0+ features such as K2 smart casts.",
        # a mention without a constraint is no claim by itself
        "Ruby 3.3 shipped a faster YJIT last year.",
    ],
)
def test_a_version_that_is_a_condition_or_a_description_is_no_claim(clause: str) -> None:
    assert picks(clause) == set()


def test_normalise_drops_trailing_zero_parts() -> None:
    assert normalise("1.8.0") == "1.8"
    assert normalise("8.0") == "8"
    assert normalise("22") == "22"
    assert normalise("1.10") == "1.10"


def test_a_pin_below_a_floor_is_excluded_and_one_above_is_not() -> None:
    assert excludes("Node.js 20+", "Node.js 18")
    assert excludes("Terraform 1.8+", "Terraform 1.5.7")
    assert not excludes("Node.js 18+", "Node.js 22")
    assert not excludes("Terraform 1.8+", "Terraform 1.8")
    assert not excludes("Node.js 18.2+", "Node.js 18")  # 18 may be 18.19: no certainty
    assert not excludes("Go version", "Go 1.21")


def test_contradicts_compares_floors_and_pins_as_constraints() -> None:
    floor = Choice("ruby-version", "Ruby 3.2+", "prefer", 0, 0, "floor")
    assert contradicts(floor, Choice("ruby-version", "Ruby 3.1", "prefer", 0, 0, ""))
    assert not contradicts(floor, Choice("ruby-version", "Ruby 3.3", "prefer", 0, 0, ""))
    assert contradicts(floor, Choice("ruby-version", "Ruby 3.3+", "prefer", 0, 0, "floor"))
    # ecosystem groups of a choice role stay apart: only version roles compare across groups
    pytest_ = Choice("test-runner", "pytest", "prefer", 0, 0, "python")
    assert not contradicts(pytest_, Choice("test-runner", "vitest", "prefer", 0, 0, "js"))


def test_is_requirement_reads_the_words_around_the_version() -> None:
    text = "on Python 3.13+ only"
    assert not is_requirement(text, 3, 15)
    assert is_requirement("Python 3.13+ only", 0, 12)


def test_a_pin_below_the_root_floor_is_a_conflict_and_one_above_is_not() -> None:
    root = "- Ruby 3.2 or newer for every service."
    assert conflict_dimensions(root, "- This service is pinned to Ruby 3.1 exactly.") == [
        "ruby-version"
    ]
    assert conflict_dimensions(root, "- This service runs Ruby 3.3 only.") == []


def test_two_floors_of_one_product_conflict_and_equal_floors_do_not() -> None:
    root = "Every crate builds with Rust 1.75 or later."
    assert conflict_dimensions(
        root, "The minimum supported Rust version for this crate is 1.80."
    ) == ["rust-msrv"]
    assert conflict_dimensions("Rust >= 1.80.0 everywhere.", "Rust 1.80+ only.") == []


def test_floors_of_different_products_never_meet() -> None:
    assert conflict_dimensions("PHP 8.2 or newer.", "Node 22 or newer.") == []


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("Deno 2.x or newer for every tool script.", "Deno 2+"),
        ("We need at least Zig 0.13 to build.", "Zig 0.13+"),
        ("C++20 or later across the engine.", "C++20+"),
        ("Compile with -std=c++17 or newer.", "C++17+"),
        ("Elixir ~> 1.16 for all umbrella apps.", "Elixir 1.16+"),
        ("minSdk 26 or higher for the app module.", "Android API 26+"),
        ("ansible-core 2.16+ on every controller.", "ansible-core 2.16+"),
        ("Swift 5.9 or newer for the packages.", "Swift 5.9+"),
        ("The service requires Node 20.", "Node.js 20+"),
        ("Scala 3.3 exactly.", "Scala 3.3"),
        ("Stay on Terraform 1.5.7.", "Terraform 1.5.7"),
    ],
)
def test_forms_of_more_runtimes_and_platforms_are_read(clause: str, value: str) -> None:
    assert value in picks(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "Node 20 reached end of life last year.",
        "It works on 18 but we develop on Node 20.",
        "Zig 0.12 shipped a new build system last spring.",
        "Node 18 is the lowest LTS still in support upstream.",
    ],
)
def test_a_runtime_mentioned_in_narrative_is_no_constraint(clause: str) -> None:
    assert picks(clause) == set()


def test_a_pin_kept_below_a_root_floor_conflicts() -> None:
    root = "- Terraform >= 1.6 is required in every module."
    child = "- Keep this module on Terraform 1.5.7 exactly. Don't upgrade it."
    assert "terraform-version" in conflict_dimensions(root, child)
    assert conflict_dimensions(root, "- This module stays on Terraform 1.8.") == []


def test_two_floors_of_a_new_platform_conflict() -> None:
    root = "- C++17 or newer in every library."
    assert conflict_dimensions(root, "- This library needs C++20 at minimum.") == ["cpp-standard"]
    assert conflict_dimensions("- minSdk 26 or higher everywhere.", "- Zig 0.13+ here.") == []


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("The parser is written against Zig 0.12 and its allocator API.", "Zig 0.12"),
        ("Every crate compiles with Rust 1.79 today.", "Rust 1.79"),
        ("The plugin was built against Kotlin 2.0.21.", "Kotlin 2"),
        ("This package supports Python 3.11 today.", "Python 3.11"),
        ("Minimum deployment target: iOS 14 for the widget.", "iOS 14+"),
        ("Go 1.20 is enough for the CLI.", "Go 1.20+"),
    ],
)
def test_the_version_the_code_is_made_with_is_read(clause: str, value: str) -> None:
    assert value in picks(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "The app supports iOS 14 and 15.",
        "Written against Go 1.20 to 1.22.",
        "The library supports Python 3.10, 3.11 and 3.12.",
        "Upstream docs say Kubernetes needs care; we develop on Node 20.",
    ],
)
def test_a_range_of_supported_versions_is_no_pin(clause: str) -> None:
    assert not {v for v in picks(clause) if v[-1].isdigit()}


def test_the_version_code_is_written_against_meets_the_root_constraint() -> None:
    root = "- Zig is pinned to 0.12.1 exactly for every package."
    assert conflict_dimensions(root, "- Written against Zig 0.13 (new build API).") == [
        "zig-version"
    ]
    assert conflict_dimensions(root, "- Written against Zig 0.12 like the rest.") == []
    floor = "- Minimum deployment target: iOS 17 for all targets."
    assert conflict_dimensions(floor, "The widget target supports iOS 16 only.") == [
        "ios-deployment-target"
    ]
    assert conflict_dimensions(floor, "The widget target supports iOS 18.") == []
    assert conflict_dimensions("- Python 3.12 or newer.", "- Python 3.10 is enough here.") == [
        "python-version"
    ]


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("This project targets `net9.0`; the SDK we use needs it.", ".NET 9"),
        ("All projects target `net8.0` (LTS).", ".NET 8"),
    ],
)
def test_a_product_glued_to_its_version_is_read(clause: str, value: str) -> None:
    """A version written against its product's name ("net8.0") is one word to the tokenizer;
    the product's letters still trigger the version patterns."""
    assert picks(clause) == {value}


@pytest.mark.parametrize(
    "clause",
    [
        "The internet2 backbone carries the mirror traffic.",
        "Ask in #dotnet8-migration before touching the build.",
    ],
)
def test_letters_glued_to_digits_are_no_version_by_themselves(clause: str) -> None:
    assert picks(clause) == set()


def test_two_target_frameworks_glued_to_their_version_conflict() -> None:
    assert conflict_dimensions(
        "- All projects target `net8.0` (LTS).", "- This project targets `net9.0`."
    ) == ["dotnet-version"]


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("Every module compiles for Java 21, the JDK we run in production.", "Java 21"),
        ("The image is built for Python 3.12.", "Python 3.12"),
    ],
)
def test_the_version_code_is_built_for_is_a_pin(clause: str, value: str) -> None:
    assert picks(clause) == {value}


@pytest.mark.parametrize(
    "clause",
    [
        "Wheels are built for Python 3.12 and 3.13.",
        "Builds for Node 18, 20 and 22 run in CI.",
        "Use the legacy flag for Node 16.",
    ],
)
def test_built_for_a_list_or_a_plain_for_is_no_pin(clause: str) -> None:
    assert picks(clause) == set()


def test_a_module_kept_on_an_older_release_than_the_root_builds_for_conflicts() -> None:
    assert conflict_dimensions(
        "- Every module compiles for Java 21 (toolchain set in `buildSrc`).",
        "- This module sets `<maven.compiler.release>17</maven.compiler.release>`.",
    ) == ["java-version"]


def test_a_labelled_floor_meets_a_floor_stated_in_words() -> None:
    assert conflict_dimensions(
        "- Requires Python 3.11+.", "- Supported Python: 3.10 and newer."
    ) == ["python-version"]


def test_a_cli_pinned_to_a_version_is_a_pin() -> None:
    assert "Terraform 1.5.7" in picks(
        "The Terraform CLI is pinned to 1.5.7 in `.terraform-version`."
    )


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        # a copular statement naming the version's part: the baseline is a floor, the
        # target the one version the code is made for
        ("Java 21 is the baseline; use records freely.", "Java 21+"),
        ("Java 17 is the target here because a client library lags.", "Java 17"),
        ("Go 1.22 is our target version.", "Go 1.22"),
        # the minimum named by the product alone
        ("The minimum supported Python is 3.11.", "Python 3.11+"),
        # builds on a floor, written in or developed against one version
        ("This crate builds on Rust 1.70 and later.", "Rust 1.70+"),
        ("Written in Scala 3.4 with the new indentation syntax.", "Scala 3.4"),
        ("This package is developed against Unity 6 (6000.0).", "Unity 6"),
        # a version line without a verb
        ("Scala 2.13 across all modules (Spark 3.5 is built for it).", "Scala 2.13"),
        ("Unity 2022.3 LTS", "Unity 2022.3"),
        ("Node 20 everywhere.", "Node.js 20"),
    ],
)
def test_a_version_stated_as_a_fact_about_the_code_is_read(clause: str, value: str) -> None:
    assert picks(clause) == {value}


@pytest.mark.parametrize(
    "clause",
    [
        # past narrative, plans and conditions
        "Java 17 was the target until last year.",
        "Java 21 is the target of the next migration.",
        "Java 21 is the target once the SDK supports it.",
        "The old code was written in Scala 2.12.",
        "This library was developed against Unity 2021.3 originally.",
        "Unity 2022.3 was used before the upgrade.",
        "On Python 3.13, run the slow tests too.",
        # another version tested beside the one chosen
        "Python 3.12 is also tested in CI.",
        # ranges and lists
        "Written in Scala 2.13 and 3.3 (cross-built).",
        "Written in Scala 2.13/3.3.",
        "This crate builds on Rust 1.70 to 1.74.",
        "The minimum supported Python is 3.11 or 3.12, depending on the image.",
        "Scala 2.13 or 3.3.",
        "Python 3.12 (and 3.13) in CI.",
        # a version line that goes on to say something else, or an exception
        "Python 3.12: dropped support for 3.8.",
        "Python 3.12 for the scripts.",
        "Node 20 everywhere except the docs.",
        # a bare version line may be one item of a list of versions or of a changelog
        "Python 3.12.",
        "- Python 3.12",
        # a library's version, not the language's
        "Spark 3.5 is the baseline for the jobs.",
    ],
)
def test_a_version_in_narrative_a_list_or_of_a_library_is_no_fact(clause: str) -> None:
    assert not {v for v in picks(clause) if v[-1].isdigit()}


def test_versions_stated_as_facts_meet_the_other_files_constraint() -> None:
    assert conflict_dimensions(
        "- Java 21 is the baseline; use records freely.",
        "- Java 17 is the target here because the SFTP library is not 21-compatible.",
    ) == ["java-version"]
    assert conflict_dimensions(
        "- The minimum supported Rust version (MSRV) is 1.74.",
        "- This crate builds on Rust 1.70 and later.",
    ) == ["rust-msrv"]
    assert conflict_dimensions(
        "- Scala 2.13 across all modules.", "- Written in Scala 3.4 with the new syntax."
    ) == ["scala-version"]
    assert conflict_dimensions(
        "- Unity 2022.3 LTS; open the project with the exact version.",
        "- This package is developed against Unity 6 (6000.0).",
    ) == ["unity-version"]
    # two versions of two different runtimes never meet, nor a version in a code block
    assert conflict_dimensions("- Java 21 is the baseline.", "- Kotlin 2.0 is the target.") == []
    assert conflict_dimensions("- Scala 2.13 across all modules.", "```\nscala 3.4\n```") == []


def test_versions_listed_in_a_changelog_or_a_support_list_are_no_pins() -> None:
    root = "- Python 3.12 or newer."
    assert conflict_dimensions(root, "## Changelog\n\n- Python 3.9.\n- Python 3.10.") == []
    assert conflict_dimensions(root, "## Supported versions\n\n- Python 3.12\n- Python 3.13") == []
