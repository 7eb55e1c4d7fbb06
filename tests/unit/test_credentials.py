"""What is masked before text goes to a model, and what a context file keeps as written."""

from __future__ import annotations

import pytest

from pi_lsp.prompt.credentials import MASK, mask_credentials


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("The key is sk-proj-Q7vX2mN9pL4kR8sT1wY6zA3b.", "The key is [secret]."),
        ("Anthropic: sk-ant-api03-AbCdEf1234567890xyz", "Anthropic: [secret]"),
        ("Use ghp_5fGh7JkL9mN2pQ4rS6tU8vW0xY1zA3bC in CI", "Use [secret] in CI"),
        ("pat github_pat_11AB2CD3E0fGhIjKlMnOpQ_rStUvWxYz01", "pat [secret]"),
        ("bot xoxb-2048-9081726354-AbCdEfGhIjKl here", "bot [secret] here"),
        ("id AKIAZ7Q3LX5RT2MNV8PW, region eu", "id [secret], region eu"),
        ("send Authorization: Bearer eyJhbGciOi.J9x.ab", "send Authorization: [secret]"),
        ("DB_PASSWORD=hunter2 then", "DB_PASSWORD=[secret] then"),
        ("secret_key_base = abc", "secret_key_base = [secret]"),
        ('{"api_key": "12345abcdef"}', '{"api_key": "[secret]"}'),
        ("token: ab12cd34ef", "token: [secret]"),
        ("ACCESS_KEY='x'", "ACCESS_KEY='[secret]'"),
        ("digest c0ffee4d2b9e8f7a6c5b4a39281706f5e4d3c2b1 ok", "digest [secret] ok"),
        ("blob aGVsbG8gd29ybGQgdGhpcyBpcyBhIHNlY3JldCBrZXkxMjM0NQ==.", "blob [secret]."),
        (
            "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n"
            "-----END RSA PRIVATE KEY-----\nafter",
            "before\n[secret]\nafter",
        ),
        ("cut -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "cut [secret]"),
    ],
)
def test_a_credential_is_masked(text: str, masked: str) -> None:
    assert mask_credentials(text) == masked
    assert MASK == "[secret]"


@pytest.mark.parametrize(
    "text",
    [
        "Always use pnpm to install dependencies.",
        "Secrets: keep them in Vault. Token: use the one CI provides.",
        "Tokens are counted with tiktoken; the task-force rule holds.",
        "if token == null, return early; set `password=` in .env.local",
        "see packages/web-app/src/v2/components/settings/profile for the form",
        "name it test_a_long_function_name_of_many_words_with_v2_suffix",
        "The skeleton key is a metaphor; sk-8 is a size.",
        "-----BEGIN PUBLIC KEY----- is fine to share",
    ],
)
def test_ordinary_text_is_left_as_written(text: str) -> None:
    assert mask_credentials(text) == text
