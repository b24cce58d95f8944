"""``tfguard server`` end to end over stdio: a real LSP client (pytest-lsp) drives the server process.

One server for the whole module; each test opens its own files.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from tests.server.conftest import SERVER_COMMAND, TRAIN, TRAIN_LOOP_LINE, client_capabilities
from tests.server.lsp_helpers import Buffers, apply_edits, only_edits, published
from tfguard.server import hover as hover_module
from tfguard.static.formats.sarif import rule_page_uri

pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp (Python 3.10+) is the client of these tests")
types = pytest.importorskip("lsprotocol.types")
ClientServerConfig, LanguageClient = pytest_lsp.ClientServerConfig, pytest_lsp.LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), scope="module")
async def client(lsp_client: LanguageClient):
    """The client, initialised with push diagnostics."""
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=client_capabilities()))
    lsp_client.server_result = result  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def buffers(client: LanguageClient) -> Buffers:
    """The module's open buffers."""
    return Buffers(client)


async def actions_at(client: LanguageClient, path: Path, line: int, diagnostics, only=None):
    """Ask for the code actions on a (0-based) line."""
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
        range=types.Range(types.Position(line, 0), types.Position(line, 0)),
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only)))


async def test_initialize_advertises_the_features(client: LanguageClient):
    result = client.server_result  # type: ignore[attr-defined]
    assert result.server_info.name == "tfguard"
    capabilities = result.capabilities
    assert capabilities.hover_provider
    assert capabilities.diagnostic_provider is not None
    kinds = capabilities.code_action_provider.code_action_kinds
    assert types.CodeActionKind.QuickFix in kinds and "source.fixAll.tfguard" in kinds


async def test_tfg102_on_the_loop_line_with_its_rule_page(client: LanguageClient, buffers: Buffers,
                                                          project: Path):
    diagnostics = await buffers.open(project / "train.py")
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("TFG102", TRAIN_LOOP_LINE - 1)]
    found = diagnostics[0]
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.source == "tfguard"
    assert found.code_description.href == rule_page_uri("TFG102")
    line = TRAIN.splitlines()[TRAIN_LOOP_LINE - 1]
    assert line[found.range.start.character:found.range.end.character] == "tf.reduce_mean(y) * 2.0"
    assert "every iteration" in found.message


async def test_the_quick_fix_hoists_the_op_and_the_diagnostic_clears(client: LanguageClient, buffers: Buffers,
                                                                     project: Path):
    path = project / "train.py"
    uri = path.as_uri()
    diagnostics = await buffers.open(path)
    actions = await actions_at(client, path, TRAIN_LOOP_LINE - 1, diagnostics)
    fixes = [a for a in actions if a.title.startswith("TFG102: Move")]
    assert len(fixes) == 1 and fixes[0].kind == types.CodeActionKind.QuickFix and fixes[0].is_preferred
    fixed = apply_edits(TRAIN, only_edits(fixes[0], uri))
    lines = fixed.splitlines()
    assert lines.index("    scaled = tf.reduce_mean(y) * 2.0") < lines.index("    for step in range(1000):")
    assert "        scaled = tf.reduce_mean(y) * 2.0" not in lines
    assert await buffers.replace(path, fixed) == []
    assert await buffers.replace(path, TRAIN) != []  # and back


async def test_fix_all_safe_is_what_fix_writes(client: LanguageClient, buffers: Buffers, project: Path):
    path = project / "train.py"
    diagnostics = await buffers.open(path)
    actions = await actions_at(client, path, 0, diagnostics, only=[types.CodeActionKind.SourceFixAll])
    assert [a.kind for a in actions] == ["source.fixAll.tfguard"]
    fixed = apply_edits(TRAIN, only_edits(actions[0], path.as_uri()))
    assert "    scaled = tf.reduce_mean(y) * 2.0\n    for step in range(1000):" in fixed


async def test_the_noqa_action_silences_the_line(client: LanguageClient, buffers: Buffers, project: Path):
    path = project / "train.py"
    diagnostics = await buffers.open(path)
    actions = await actions_at(client, path, TRAIN_LOOP_LINE - 1, diagnostics)
    noqa = [a for a in actions if "noqa" in a.title]
    assert [a.title for a in noqa] == [f"TFG102: add `# noqa: TFG102` on line {TRAIN_LOOP_LINE}"]
    silenced = apply_edits(TRAIN, only_edits(noqa[0], path.as_uri()))
    assert silenced.splitlines()[TRAIN_LOOP_LINE - 1].endswith("* 2.0  # noqa: TFG102")
    assert await buffers.replace(path, silenced) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
        position=types.Position(TRAIN_LOOP_LINE - 1, silenced.splitlines()[TRAIN_LOOP_LINE - 1].index("TFG102"))))
    assert "**TFG102** `op-in-session-loop`" in hover.contents.value
    await buffers.replace(path, TRAIN)


async def test_hover_on_the_flagged_line_names_the_rule(client: LanguageClient, buffers: Buffers, project: Path):
    path = project / "train.py"
    await buffers.open(path)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(TRAIN_LOOP_LINE - 1,
                                                                                                 4)))
    assert "**TFG102** `op-in-session-loop`" in hover.contents.value
    # no docs site: the page's "Why is this bad?" in the hover, not a link to a raw Markdown file (issue 45)
    assert "A TF 1.x graph only grows." in hover.contents.value and "file://" not in hover.contents.value
    assert "`tfguard rule TFG102` prints the whole page." in hover.contents.value
    assert rule_page_uri("TFG102", "https://docs.example.com/") in hover_module.describe_codes(
        ["TFG102"], "https://docs.example.com/")
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(0, 0)))
    assert nothing is None


async def test_a_syntax_error_is_tfg000_and_the_server_lives_on(client: LanguageClient, buffers: Buffers,
                                                               project: Path):
    broken = project / "broken.py"
    broken.write_text("import tensorflow as tf\n\ndef f(:\n    pass\n")
    diagnostics = await buffers.open(broken)
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("TFG000", 2)]
    binary = project / "binary.py"
    binary.write_text("import tensorflow as tf\nx = 1\0\n")
    assert [d.code for d in await buffers.open(binary)] in ([], ["TFG000"])
    huge = project / "huge.py"
    huge.write_text("import tensorflow as tf\n" + "x = 1\n" * 200_000)  # over 1 MiB: not checked
    assert await buffers.open(huge) == []
    assert [d.code for d in await buffers.open(project / "train.py")] == ["TFG102"]  # still serving


async def test_files_the_configuration_excludes_get_no_diagnostics(client: LanguageClient, buffers: Buffers,
                                                                   project: Path):
    assert await buffers.open(project / "generated" / "train_copy.py") == []


async def test_a_call_into_an_unsaved_neighbour_is_followed(client: LanguageClient, buffers: Buffers,
                                                            project: Path):
    (project / "model.py").write_text("def loss_of(y):\n    return y\n")
    main = project / "main.py"
    main.write_text(textwrap.dedent('''\
        import tensorflow as tf
        import model

        y = tf.placeholder(tf.float32, [])
        with tf.Session() as sess:
            for step in range(100):
                sess.run(model.loss_of(y), feed_dict={y: 1.0})
        '''))
    assert await buffers.open(main) == []  # on disk, model.loss_of builds nothing
    await buffers.open(project / "model.py", "import tensorflow as tf\n\n\ndef loss_of(y):\n"
                                             "    return tf.reduce_mean(y * 2.0)\n")
    diagnostics = await buffers.replace(main, main.read_text() + "\n")
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("TFG102", 6)]
    via = diagnostics[0].related_information
    assert [(r.location.uri, r.location.range.start.line, r.message) for r in via] == [
        ((project / "model.py").as_uri(), 4, "via loss_of()")]


async def test_runtime_findings_show_until_the_file_changes(client: LanguageClient, buffers: Buffers,
                                                            project: Path):
    grow = project / "grow.py"
    grow.write_text(textwrap.dedent('''\
        import tensorflow.compat.v1 as tf
        x = tf.placeholder(tf.float32, [])
        with tf.Session() as sess:
            for step in range(300):
                y = tf.add(x, 1.0)  # noqa: TFG102
                sess.run(y, feed_dict={x: 1.0})
        '''))
    os.utime(grow, (1_000_000_000, 1_000_000_000))  # older than the report
    # The shape `tfguard run --json` writes (version 4): each diagnostic names the line it blames (its ``blamed``
    # site, relative to the run); one that blames no line (TFG902, the whole run) is not shown.
    def said(code, severity, headline, path=None, line=None):
        return {"scope": "session", "session": 1, "code": code, "severity": severity, "headline": headline,
                "help": "", "sites": [{"path": path, "line": line, "role": "blamed"}] if path else [],
                "evidence": {}}

    (project / "run.json").write_text(json.dumps({
        "version": 4, "sessions": [], "diagnostics": [
            said("TFG901", "error", "the graph keeps growing as steps go by: grow.py:5 `y = tf.add(x, 1.0)`: "
                 "tf.math.add (Const, AddV2) added after 284 different runs", "grow.py", 5),
            said("TFG902", "warning", "steps got x1.87 slower"),
            said("TFG903", "warning", "input-bound: the device waits on Python for 61% of the time", "grow.py", 6),
            said("TFG904", "warning", "summary ops (ScalarSummary) fetched on 256 of 300 runs", str(grow), 6)]}))
    diagnostics = await buffers.open(grow)
    assert [(d.code, d.source, d.range.start.line) for d in diagnostics] == [
        ("TFG901", "tfguard run", 4), ("TFG903", "tfguard run", 5), ("TFG904", "tfguard run", 5)]
    assert "tf.math.add (Const, AddV2) added after 284 different runs" in diagnostics[0].message
    assert diagnostics[0].severity == types.DiagnosticSeverity.Error
    assert diagnostics[1].message.startswith("input-bound: the device waits on Python for 61%")
    assert diagnostics[2].message == "summary ops (ScalarSummary) fetched on 256 of 300 runs"
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=grow.as_uri()), position=types.Position(4, 8)))
    assert "**TFG901** `graph-growth`" in hover.contents.value
    assert await buffers.replace(grow, grow.read_text() + "# edited\n") == []

async def test_a_configuration_change_is_read_again(client: LanguageClient, buffers: Buffers, project: Path):
    copy = project / "generated" / "train_copy.py"
    assert await buffers.open(copy) == []
    config = project / "pyproject.toml"
    original = config.read_text()
    config.write_text(original.replace('extend-exclude = ["generated"]\n', ""))
    try:
        client.diagnostics.pop(copy.as_uri(), None)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]))
        assert [d.code for d in await published(client, copy.as_uri())] == ["TFG102"]
    finally:
        config.write_text(original)


RANDOM_IN_LOOP = textwrap.dedent('''\
    import tensorflow as tf

    with tf.Session() as sess:
        for step in range(100):
            noise = tf.random_uniform([4])
            sess.run(noise)
    ''')


async def test_an_unsafe_fix_only_where_the_settings_allow_it(client: LanguageClient, buffers: Buffers,
                                                              project: Path):
    plain = project / "random_draws.py"
    plain.write_text(RANDOM_IN_LOOP)
    diagnostics = await buffers.open(plain)
    titles = [a.title for a in await actions_at(client, plain, 4, diagnostics)]
    assert titles == ["TFG102: add `# noqa: TFG102` on line 5"]  # no fix: it is unsafe
    (project / "unsafe").mkdir()
    (project / "unsafe" / "tfguard.toml").write_text("unsafe-fixes = true\n")
    allowed = project / "unsafe" / "random_draws.py"
    allowed.write_text(RANDOM_IN_LOOP)
    diagnostics = await buffers.open(allowed)
    actions = await actions_at(client, allowed, 4, diagnostics)
    fixes = [a for a in actions if "noqa" not in a.title]
    assert len(fixes) == 1 and fixes[0].title.endswith("(unsafe fix)") and not fixes[0].is_preferred
    assert fixes[0].title.startswith("TFG102: Move `noise = tf.random_uniform()` before the loop")
    fix_all = await actions_at(client, allowed, 0, diagnostics, only=[types.CodeActionKind.SourceFixAll])
    assert not fix_all  # fix all applies the safe fixes only


async def test_on_save_a_neighbour_changed_on_disk_is_read_again(client: LanguageClient, buffers: Buffers,
                                                                 project: Path):
    (project / "losses.py").write_text("def total(y):\n    return y\n")
    script = project / "script.py"
    script.write_text(textwrap.dedent('''\
        import tensorflow as tf
        from losses import total

        y = tf.placeholder(tf.float32, [])
        with tf.Session() as sess:
            for step in range(100):
                sess.run(total(y), feed_dict={y: 1.0})
        '''))
    assert await buffers.open(script) == []
    (project / "losses.py").write_text("import tensorflow as tf\n\n\ndef total(y):\n    return tf.reduce_sum(y)\n")
    client.diagnostics.pop(script.as_uri(), None)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=script.as_uri())))
    assert [(d.code, d.range.start.line) for d in await published(client, script.as_uri())] == [("TFG102", 6)]


async def test_a_broken_configuration_is_said_once_and_its_files_get_nothing(client: LanguageClient,
                                                                           buffers: Buffers, project: Path):
    (project / "misconfigured").mkdir()
    (project / "misconfigured" / "tfguard.toml").write_text('select = "TFG1"\n')
    script = project / "misconfigured" / "train.py"
    script.write_text(TRAIN)
    assert await buffers.open(script) == []
    said = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert said == [f"tfguard: {script.parent / 'tfguard.toml'}: 'select' must be a list of strings"]


async def test_odd_buffers_never_end_the_server(client: LanguageClient, buffers: Buffers, project: Path):
    odd = {
        "empty.py": "",
        "carriage_returns.py": "import tensorflow as tf\r\rx = 1\r",
        "deep.py": "import tensorflow as tf\nx = " + "(" * 400 + "1" + ")" * 400 + "\n",
        "cookie.py": "# -*- coding: latin-1 -*-\nimport tensorflow as tf\nname = 'caf\u00e9'\n",
        "bad_cookie.py": "# -*- coding: no-such-codec -*-\nimport tensorflow as tf\n",
        "tabs_crlf.py": TRAIN.replace("    ", "\t").replace("\n", "\r\n"),
    }
    for name, text in odd.items():
        path = project / "odd" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"")
        found = await buffers.open(path, text or " ")
        assert all(d.code in ("TFG000", "TFG102") for d in found), (name, found)
    tabbed = await buffers.open(project / "odd" / "tabs_crlf.py", odd["tabs_crlf.py"])
    assert [(d.code, d.range.start.line) for d in tabbed] == [("TFG102", TRAIN_LOOP_LINE - 1)]
    assert [d.code for d in await buffers.open(project / "train.py")] == ["TFG102"]  # still serving


async def test_columns_are_utf16_code_units(client: LanguageClient, buffers: Buffers, project: Path):
    wide = project / "wide.py"
    line = TRAIN.splitlines()[TRAIN_LOOP_LINE - 1]
    text = TRAIN.replace(line, '        tag = "\U0001F600"; scaled = tf.reduce_mean(y) * 2.0')
    diagnostics = await buffers.open(wide, text)
    assert [d.code for d in diagnostics] == ["TFG102"]
    start = text.splitlines()[TRAIN_LOOP_LINE - 1].index("tf.reduce_mean")
    assert diagnostics[0].range.start.character == start + 1  # the emoji is two UTF-16 code units
