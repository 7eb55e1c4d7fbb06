"""The write tool: result text, the bytes on disk, directories, permissions and failures."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.tools import file_mutation, write
from pi_lsp.tools.base import AbortSignal, ToolContext, ToolResult
from pi_lsp.tools.registry import execute, run_tool
from tests.shared_data import CONFORMANCE


async def _write(cwd: Path, path: str, content: str) -> ToolResult:
    return await run_tool("write", {"path": path, "content": content}, ToolContext(cwd=cwd))


def _text(result: ToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_reply_names_the_path_without_a_byte_count(tmp_path: Path) -> None:
    result = await _write(tmp_path, "out.txt", "h\u00e9llo\n")
    assert not result.is_error
    assert _text(result) == "Successfully wrote to out.txt"
    assert result.details is None
    assert "details" not in result.to_json()
    assert (tmp_path / "out.txt").read_bytes() == b"h\xc3\xa9llo\n"


async def test_missing_parent_directories_are_created(tmp_path: Path) -> None:
    result = await _write(tmp_path, "new/dir/file.txt", "x")
    assert _text(result) == "Successfully wrote to new/dir/file.txt"
    assert (tmp_path / "new" / "dir" / "file.txt").read_bytes() == b"x"


async def test_existing_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("a much longer old content\n")
    await _write(tmp_path, "f.txt", "short")
    assert target.read_bytes() == b"short"


async def test_content_is_written_verbatim(tmp_path: Path) -> None:
    content = "\ufeffbom\r\nCRLF\rCR\n\U0001f642 \u0000 end"
    await _write(tmp_path, "f.txt", content)
    assert (tmp_path / "f.txt").read_bytes() == content.encode("utf-8")


async def test_lone_surrogate_becomes_replacement_character(tmp_path: Path) -> None:
    await _write(tmp_path, "f.txt", "a\ud800b")
    assert (tmp_path / "f.txt").read_bytes() == b"a\xef\xbf\xbdb"


async def test_permission_bits_of_replaced_file_survive(tmp_path: Path) -> None:
    target = tmp_path / "tool.sh"
    target.write_text("echo old\n")
    target.chmod(0o741)
    await _write(tmp_path, "tool.sh", "echo new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o741
    assert target.read_text() == "echo new\n"


async def test_new_file_gets_default_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        await _write(tmp_path, "f.txt", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == 0o644


async def test_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    await _write(tmp_path, "link.txt", "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


async def test_absolute_path(tmp_path: Path) -> None:
    target = tmp_path / "abs.txt"
    result = await _write(Path("/"), str(target), "x")
    assert _text(result) == f"Successfully wrote to {target}"
    assert target.read_text() == "x"


# --------------------------------------------------------------------------------------------
# failures


async def test_directory_target(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    result = await _write(tmp_path, "adir", "x")
    assert result.is_error
    assert _text(result) == (
        f"EISDIR: illegal operation on a directory, open '{tmp_path / 'adir'}'"
    )
    assert result.details == {}


async def test_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("hi\n")
    result = await _write(tmp_path, "afile/sub/x.txt", "x")
    assert _text(result) == f"ENOTDIR: not a directory, mkdir '{tmp_path / 'afile' / 'sub'}'"
    assert (tmp_path / "afile").read_text() == "hi\n"


async def test_failed_write_keeps_the_old_file_and_no_leftovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_text("precious\n")

    def disk_full(src: Any, dst: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    result = await _write(tmp_path, "f.txt", "new content")
    assert _text(result) == f"ENOSPC: no space left on device, open '{target}'"
    assert target.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


async def test_read_only_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "ro.txt"
    target.write_text("old")
    target.chmod(0o444)
    real_access = os.access

    def access_like_an_ordinary_user(path: Any, mode: int, **kwargs: Any) -> bool:
        # root may write anything; answer from the permission bits as for other users
        if mode & os.W_OK and not os.stat(path).st_mode & stat.S_IWUSR:
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access_like_an_ordinary_user)
    result = await _write(tmp_path, "ro.txt", "new")
    assert _text(result) == f"EACCES: permission denied, open '{target}'"
    assert target.read_text() == "old"


async def test_aborted_call_writes_nothing(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    ctx = ToolContext(cwd=tmp_path, signal=signal)
    result = await execute(write.TOOL, {"path": "sub/f.txt", "content": "x"}, ctx)
    assert _text(result) == "Operation aborted"
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------------
# serialization with edit


async def test_write_and_edit_on_one_file_run_in_order(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    first = run_tool("write", {"path": "f.txt", "content": "one\n"}, ctx)
    second = run_tool(
        "edit", {"path": "f.txt", "edits": [{"oldText": "one", "newText": "two"}]}, ctx
    )
    third = run_tool("write", {"path": "g.txt", "content": "other\n"}, ctx)
    results = await asyncio.gather(first, second, third)
    assert [r.is_error for r in results] == [False, False, False]
    assert (tmp_path / "f.txt").read_text() == "two\n"


async def test_mutation_lock_admits_one_holder_per_file(tmp_path: Path) -> None:
    inside: list[str] = []
    order: list[str] = []

    async def hold(name: str, path: Path) -> None:
        async with file_mutation.file_mutation_lock(str(path)):
            inside.append(name)
            order.append(f"{name}:{len(inside)}")
            await asyncio.sleep(0.01)
            inside.remove(name)

    same = tmp_path / "same.txt"
    link = tmp_path / "link.txt"
    same.write_text("")
    link.symlink_to(same)
    await asyncio.gather(hold("a", same), hold("b", link), hold("c", same))
    assert order == ["a:1", "b:1", "c:1"]  # a symlink is the same file; arrival order kept


async def test_mutation_lock_lets_other_files_run_together(tmp_path: Path) -> None:
    both_inside = asyncio.Event()
    count = 0

    async def hold(path: Path) -> None:
        nonlocal count
        async with file_mutation.file_mutation_lock(str(path)):
            count += 1
            if count == 2:
                both_inside.set()
            await asyncio.wait_for(both_inside.wait(), timeout=5)

    await asyncio.gather(hold(tmp_path / "a.txt"), hold(tmp_path / "b.txt"))


async def test_cancelled_write_holds_the_file_until_its_thread_is_done(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    first_started = threading.Event()
    release_first = threading.Event()
    log: list[str] = []

    def slow_first_write(path: str, text: str) -> None:
        log.append(f"start {text}")
        if text == "first":
            first_started.set()
            release_first.wait(5)
        file_mutation.write_text_file(path, text)
        log.append(f"end {text}")

    tool = write.WriteTool(write.WriteOperations(write_file=slow_first_write))
    ctx = ToolContext(cwd=tmp_path)
    first = asyncio.ensure_future(execute(tool, {"path": "f.txt", "content": "first"}, ctx))
    assert await asyncio.to_thread(first_started.wait, 5)
    first.cancel()
    second = asyncio.ensure_future(execute(tool, {"path": "f.txt", "content": "second"}, ctx))
    await asyncio.sleep(0.1)
    assert log == ["start first"]  # the second write waits for the first thread …
    assert not first.done()  # … and so does the cancelled call
    release_first.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert _text(await second) == "Successfully wrote to f.txt"
    assert log == ["start first", "end first", "start second", "end second"]
    assert target.read_text() == "second"  # the later write wins


async def test_lock_key_does_not_change_when_the_file_appears(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    path = tmp_path / "link" / "new.txt"  # missing at first, reached through a symlink
    order: list[str] = []

    async def creator() -> None:
        async with file_mutation.file_mutation_lock(str(path)):
            order.append("first in")
            path.write_text("created")
            await asyncio.sleep(0.05)
            order.append("first out")

    async def latecomer() -> None:
        await asyncio.sleep(0.01)  # arrives once the file exists
        async with file_mutation.file_mutation_lock(str(path)):
            order.append("second in")

    await asyncio.gather(creator(), latecomer())
    assert order == ["first in", "first out", "second in"]


async def test_dangling_symlink_and_its_target_are_one_file(tmp_path: Path) -> None:
    (tmp_path / "alias.txt").symlink_to("target.txt")  # target.txt does not exist yet
    order: list[str] = []

    async def hold(name: str, path: Path) -> None:
        async with file_mutation.file_mutation_lock(str(path)):
            order.append(f"{name} in")
            await asyncio.sleep(0.02)
            order.append(f"{name} out")

    await asyncio.gather(hold("a", tmp_path / "alias.txt"), hold("b", tmp_path / "target.txt"))
    assert order == ["a in", "a out", "b in", "b out"]


# --------------------------------------------------------------------------------------------
# what a rename would break: written in place


async def test_named_pipe_is_written_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        result = await asyncio.wait_for(_write(tmp_path, "pipe", "through the pipe\n"), 5)
        assert _text(result) == "Successfully wrote to pipe"
        assert os.read(reader, 100) == b"through the pipe\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


async def test_named_pipe_without_reader_fails_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = await asyncio.wait_for(_write(tmp_path, "pipe", "x"), 5)
    assert _text(result) == f"ENXIO: no such device or address, open '{fifo}'"
    assert stat.S_ISFIFO(fifo.stat().st_mode)


async def test_device_node_is_written_not_replaced(tmp_path: Path) -> None:
    null = tmp_path / "null"
    # the test suite runs as root (CI and these machines), which may create device nodes
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # like /dev/null
    result = await _write(tmp_path, "null", "discarded")
    assert _text(result) == "Successfully wrote to null"
    assert stat.S_ISCHR(null.stat().st_mode)
    assert null.stat().st_rdev == os.makedev(1, 3)


async def test_hard_linked_file_stays_linked(tmp_path: Path) -> None:
    original = tmp_path / "a.txt"
    original.write_text("old\n")
    other_name = tmp_path / "b.txt"
    os.link(original, other_name)
    await _write(tmp_path, "a.txt", "new\n")
    assert other_name.read_text() == "new\n"
    assert original.stat().st_ino == other_name.stat().st_ino
    assert original.stat().st_nlink == 2


@pytest.mark.parametrize("code", [errno.EBUSY, errno.EXDEV])
async def test_file_that_cannot_be_renamed_over_is_written_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    target = tmp_path / "mounted.txt"  # a bind-mounted file refuses renames with EBUSY
    target.write_text("old")

    def refuse(src: Any, dst: Any) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "replace", refuse)
    result = await _write(tmp_path, "mounted.txt", "new")
    assert _text(result) == "Successfully wrote to mounted.txt"
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mounted.txt"]


# --------------------------------------------------------------------------------------------
# schema


def test_schema_has_pis_shape_in_our_words() -> None:
    requests = json.loads((CONFORMANCE / "sp-default" / "expected-requests.json").read_text())
    pi = next(
        t["function"]["parameters"]
        for t in requests[0]["tools"]
        if t["function"]["name"] == "write"
    )
    ours = write.TOOL.parameters
    assert list(ours) == list(pi)
    assert ours["required"] == pi["required"]
    assert list(ours["properties"]) == list(pi["properties"])
    for name, prop in ours["properties"].items():
        assert prop["type"] == pi["properties"][name]["type"]
        assert prop["description"] != pi["properties"][name]["description"]
    assert (write.TOOL.name, write.TOOL.label) == ("write", "write")
