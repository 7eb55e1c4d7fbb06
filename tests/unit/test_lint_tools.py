"""Tools, services and infrastructure a context file chooses: commands of a shell fence that an
instruction introduces, the files and folders that imply a tool, and values that belong to a
product family (AWS ECS is where the code is hosted). Written in words of their own, not those
of the dev workspaces."""

from __future__ import annotations

import pytest

from pi_lsp.lint.blocks import split_blocks
from pi_lsp.lint.catalogue import CatalogueError, parse_role
from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts
from pi_lsp.lint.fences import command_lines, fence_choices, leads_commands
from pi_lsp.lint.instructions import extract_instructions
from tests.clauses import masked_clause


def picks(text: str) -> set[tuple[str, str, str]]:
    return {(c.dimension, c.value, c.stance) for c in read_choices(*masked_clause(text))}


def chosen(text: str) -> set[tuple[str, str]]:
    return {
        (c.dimension, c.value)
        for i in extract_instructions("/r/pkg/AGENTS.md", text)
        for c in i.choices
        if c.stance == "prefer"
    }


def conflicting(root: str, nested: str) -> list[str]:
    files = [("/r/AGENTS.md", root), ("/r/pkg/AGENTS.md", nested)]
    return [f.message for f in find_conflicts(files) if f.rule == "conflicting-instructions"]


# --- a shell fence introduced by an instruction ---------------------------------------------


def test_a_fence_after_an_imperative_lead_chooses_its_commands_tools() -> None:
    text = "Set the workspace up from a clean checkout with:\n\n```sh\nyarn install\n```\n"
    assert ("package-manager", "yarn") in chosen(text)
    text = "To preview the chart locally, run:\n\n```\nhelm template web ./deploy\n```\n"
    assert ("k8s-packaging", "Helm") in chosen(text)


def test_a_fence_with_prompts_reads_only_its_command_lines() -> None:
    content = "$ CI=1 bun install  # fresh lockfile\nresolved 412 packages\n$ cd web && bunx vite\n"
    assert [line for _, line in command_lines(content)] == ["bun install", "cd web", "bunx vite"]
    assert {(c.dimension, c.value) for c in fence_choices(content)} >= {("package-manager", "bun")}


def test_a_fence_without_an_instruction_lead_chooses_nothing() -> None:
    # under a heading that is no how-to, after a description, after an example lead, after a
    # condition
    assert chosen("## Usage\n\n```bash\nyarn install\n```\n") == set()
    assert chosen("## Architecture\n\n```bash\nyarn install\n```\n") == set()
    assert chosen("## Setup\n\nThe old way was:\n\n```bash\nyarn install\n```\n") == set()
    assert chosen("What new readers paste into a shell:\n\n```sh\nyarn install\n```\n") == set()
    assert chosen("For example:\n\n```sh\nyarn install\n```\n") == set()
    assert chosen("If the cache is corrupted, run:\n\n```sh\nyarn install\n```\n") == set()
    # a paragraph between the lead and the fence: the fence is no longer introduced
    text = "Install it with:\n\nIt takes a minute.\n\n```sh\nyarn install\n```\n"
    assert chosen(text) == set()


@pytest.mark.parametrize(
    "heading",
    [
        "## Setup",
        "## Getting started",
        "### Build and test",
        "## Local development",
        "## 2. Commands",
        "## Running tests",
        "## Dev setup",
        "## Local preview",
    ],
)
def test_a_fence_right_under_a_how_to_heading_chooses_its_commands_tools(heading: str) -> None:
    # the section is how to work on the project: its commands are the ones to run
    text = f"{heading}\n\n```bash\nyarn install\nyarn dev\n```\n"
    assert ("package-manager", "yarn") in chosen(text)


def test_a_fence_under_a_how_to_heading_is_read_only_as_commands() -> None:
    # not a shell fence, an example subsection, alternatives, a list in between
    assert chosen("## Setup\n\n```yaml\nrun: yarn install\n```\n") == set()
    assert chosen("## Setup\n\n### Examples\n\n```bash\nyarn install\n```\n") == set()
    assert chosen("## Getting started\n\n```sh\nnpm ci\npnpm install\n```\n") == set()
    assert chosen("## Build\n\n- Ask first.\n\n```sh\nyarn build\n```\n") == set()


def test_a_how_to_fence_is_reported_at_its_commands() -> None:
    root = "- Always use pnpm in this monorepo.\n"
    nested = "# web\n\nThe shop.\n\n## Getting started\n\n```\nnpm install\nnpm run dev\n```\n"
    files = [("/r/AGENTS.md", root), ("/r/pkg/AGENTS.md", nested)]
    found = [f for f in find_conflicts(files) if f.rule == "conflicting-instructions"]
    assert len(found) == 1
    assert found[0].where.start_line == 7  # the first command, not the heading (0-based)


def test_a_commands_table_chooses_the_tools_of_its_commands() -> None:
    text = "| Task | Command |\n|---|---|\n| Test | `cargo nextest run --workspace` |\n"
    assert ("test-runner", "nextest") in chosen(text)
    text = "| Style | Setting |\n|---|---|\n| Semicolons | always |\n| Quotes | single |\n"
    assert chosen(text) == {("semicolons", "semicolons"), ("quotes", "single quotes")}


def test_a_fence_that_is_not_shell_or_installs_a_named_package_chooses_nothing() -> None:
    assert chosen("Configure it with:\n\n```yaml\nrun: yarn install\n```\n") == set()
    # how a user installs a published package says nothing of the project's own tools
    assert fence_choices("pip install acme-sdk\n") == []
    assert fence_choices("pip install -e .\n") != []


def test_a_fence_naming_two_tools_of_one_role_chooses_neither() -> None:
    assert fence_choices("npm ci\npnpm install\n") == []


def test_leads_are_instructions_ending_with_a_colon() -> None:
    assert leads_commands("Bring the services up using:")
    assert leads_commands("Build and serve the docs:")
    assert not leads_commands("Build and serve the docs.")
    assert not leads_commands("You can also run:")
    assert not leads_commands("Sample session:")


def test_a_fence_command_contradicts_the_root_package_manager() -> None:
    root = "- Always use pnpm in this monorepo.\n"
    nested = "# pkg\n\nBootstrap the package with:\n\n```bash\nnpm ci\nnpm run build\n```\n"
    assert len(conflicting(root, nested)) == 1


# --- files and folders that imply a tool ------------------------------------------------------


def test_a_file_or_folder_in_a_choosing_clause_implies_its_tool() -> None:
    assert ("ci-system", "GitHub Actions", "prefer") in picks(
        "Add the lint job to `.github/workflows/checks.yml`."
    )
    assert ("ci-system", "CircleCI", "prefer") in picks("Define jobs in `.circleci/config.yml`.")
    assert ("hosting-platform", "Fly.io", "prefer") in picks(
        "Configure the machine size in `infra/fly.toml`."
    )
    assert ("k8s-packaging", "Kustomize", "prefer") in picks(
        "Keep each overlay in its own `overlays/prod/kustomization.yaml`."
    )


def test_a_file_mentioned_in_passing_implies_nothing() -> None:
    assert picks("See `.github/workflows/nightly.yml` for the schedule.") == set()
    assert picks("The old `Jenkinsfile` was deleted last spring.") == set()
    # another file whose name only starts like the entry
    assert ("ios-deps", "CocoaPods", "prefer") not in picks("Commit `Podfile.lock.orig` too.")


def test_a_negated_file_rejects_no_tool() -> None:
    # not editing the workflows does not ban GitHub Actions
    assert ("ci-system", "GitHub Actions", "reject") not in picks(
        "Never edit `.github/workflows/deploy.yml` by hand."
    )


def test_files_are_validated_on_load() -> None:
    role = {"name": "x-tool", "values": [{"name": "X", "files": ["x config"]}]}
    with pytest.raises(CatalogueError, match="file 'x config'"):
        parse_role(role)
    assert parse_role({"name": "y", "values": [{"name": "Y", "files": ["Yfile"]}]})


def test_a_workflow_file_contradicts_another_ci_system() -> None:
    root = "Our CI runs on CircleCI.\n"
    nested = "Add the new check as a job in `.github/workflows/pkg.yml`.\n"
    assert len(conflicting(root, nested)) == 1


# --- a product family and where its values land -----------------------------------------------


def test_a_hosting_choice_named_by_its_product_or_command_meets_another_host() -> None:
    assert ("hosting-platform", "AWS ECS", "prefer") in picks(
        "Deploy the worker to AWS Fargate with `copilot svc deploy --env staging`."
    )
    assert ("hosting-platform", "Netlify", "prefer") in picks("We deploy to Netlify.")
    root = "We deploy everything to Heroku.\n"
    nested = "Ship this service to AWS ECS with `copilot deploy`.\n"
    assert len(conflicting(root, nested)) == 1


def test_publishing_to_the_npm_registry_is_no_package_manager_choice() -> None:
    assert ("package-manager", "npm", "prefer") not in picks(
        "Release the SDK by tagging it; the workflow publishes to npm."
    )
    assert ("package-manager", "npm", "prefer") in picks("Use npm for scripts.")


def test_a_step_that_is_not_needed_bans_no_tool() -> None:
    assert ("changelog-tool", "Changesets", "reject") not in picks(
        "No changeset is needed for docs-only changes."
    )
    assert ("changelog-tool", "Changesets", "reject") in picks("No changesets in this repo.")


def test_a_fence_counts_as_its_lead_sentence_read_whole_or_in_chunks() -> None:
    text = "# pkg\n\nBuild the site and serve it with:\n\n```sh\nyarn install\nyarn dev\n```\n"
    text = "\n\n".join(f"- Rule {n} stays." for n in range(60)) + "\n\n" + text
    # the fence opens a chunk of its own: the lead is read in the chunk before it
    assert any(chunk.text.startswith("```sh") for chunk in split_blocks(text))
    whole = extract_instructions("/r/pkg/AGENTS.md", text, whole=True)
    chunked = extract_instructions("/r/pkg/AGENTS.md", text)
    assert whole == chunked
    fence = next(i for i in whole if i.choices)
    lead_line = text.split("\n").index("Build the site and serve it with:")
    assert fence.where.start_line == lead_line
    assert fence.where.end_line == lead_line + 4


# --- values added to roles, and where a table names them ---------------------------------------


def test_experiment_trackers_are_one_role() -> None:
    assert ("experiment-tracking", "Weights & Biases", "prefer") in picks(
        "Log each sweep to Weights & Biases."
    )
    root = "Track every training run in MLflow.\n"
    nested = "Log metrics with `wandb.log(...)` from the evaluation loop.\n"
    assert len(conflicting(root, nested)) == 1
    assert not conflicting("Use MLflow for experiment tracking.\n", "Use pytest.\n")


def test_a_library_named_by_its_module_in_code_is_that_library() -> None:
    assert ("http-client-python", "httpx", "prefer") in picks(
        "Send outbound requests with `httpx.Client` and a short timeout."
    )
    assert ("error-handling-rust", "anyhow", "prefer") in picks(
        "Use `anyhow::Context` on every fallible call in the binary."
    )


def test_a_table_of_providers_by_concern_states_each_choice() -> None:
    root = "| Concern | Provider |\n|---|---|\n| Payments | Braintree |\n| Secrets | Infisical |\n"
    assert chosen(root) >= {
        ("payment-provider", "Braintree"),
        ("secrets-manager", "Infisical"),
    }
    nested = "Keep every API key in Doppler; run the app with `doppler run -- make dev`.\n"
    assert len(conflicting(root, nested)) == 1


def test_a_state_label_names_the_state_library() -> None:
    assert ("state-management", "MobX", "prefer") in picks("State: MobX stores per screen.")


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Gate unfinished screens behind an Unleash toggle.", "Unleash"),
        ("Put every new endpoint behind a LaunchDarkly flag.", "LaunchDarkly"),
        ("Hide the beta page behind a Flagsmith flag.", "Flagsmith"),
    ],
)
def test_what_the_work_is_put_behind_is_the_tool(sentence: str, value: str) -> None:
    assert ("feature-flags", value, "prefer") in picks(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Some pages sit behind an Unleash toggle.",
        "You may put the page behind a LaunchDarkly flag.",
        "If the team wants it, put the page behind a LaunchDarkly flag.",
        "Put the notes in the Notion docs.",
    ],
)
def test_a_hedged_partial_or_scoped_put_chooses_no_tool(sentence: str) -> None:
    assert {(d, s) for d, _, s in picks(sentence) if s == "prefer"} == set()


def test_a_toggle_of_one_service_meets_the_root_flag_service() -> None:
    root = "# Rules\n\n- Feature flags: LaunchDarkly via the shared client.\n"
    child = "# Handlers\n\nPut each new handler behind an Unleash toggle.\n"
    findings = find_conflicts([("/r/AGENTS.md", root), ("/r/handlers/AGENTS.md", child)])
    assert any("Unleash" in f.message and "LaunchDarkly" in f.message for f in findings)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Index products into Meilisearch and query it from the search view.", "Meilisearch"),
        ("Subscribe to tracking events on NATS JetStream.", "NATS"),
        ("Export traces to Honeycomb.", "Honeycomb"),
    ],
)
def test_a_verb_of_the_work_chooses_the_tool_after_its_preposition(text: str, value: str) -> None:
    assert value in {v for _, v, stance in picks(text) if stance == "prefer"}


@pytest.mark.parametrize(
    "text",
    [
        "Process payments in the background.",
        "Index the new column before the backfill runs.",
        "Report flaky tests in the #ci channel.",
    ],
)
def test_a_verb_of_the_work_without_a_tool_chooses_nothing(text: str) -> None:
    assert picks(text) == set()


def test_two_search_engines_chosen_by_their_work_conflict() -> None:
    found = conflicting(
        "- Product search is served by OpenSearch 2.x through `search/client.py`.\n",
        "- Index products into Meilisearch and query it from `search/views.py`.\n",
    )
    assert found and "Meilisearch" in found[0] and "OpenSearch" in found[0]


def test_a_php_formatter_named_by_its_vendor_binary_meets_another() -> None:
    found = conflicting(
        "- Code style: PSR-12 enforced with `vendor/bin/php-cs-fixer fix`.\n",
        "- Format with Laravel Pint: `./vendor/bin/pint`.\n",
    )
    assert found and "php-cs-fixer" in found[0] and "Laravel Pint" in found[0]
