"""The Python host as a user meets it: a folder of skills, the same bytes as the native
command line, and the failure contract of sources (an exception in a source is the source's
`err`; a trap leaves the instance unusable until `rebuild()`).

    SKILLWIRE_COMPONENT=dist/skillwire.wasm python -m unittest discover examples/python
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import wasmtime

from skillwire_component import FolderSource, Refused, Skillwire, SkillwireError

REPO = Path(__file__).resolve().parents[2]
COMPONENT = os.environ.get("SKILLWIRE_COMPONENT", str(REPO / "target" / "skillwire-component" / "skillwire.wasm"))
# The native command line: $SKILLWIRE_CLI, the debug build, or the one on PATH.
CLI = os.environ.get("SKILLWIRE_CLI") or next(
    (str(p) for p in [REPO / "target" / "debug" / "skillwire"] if p.is_file()), shutil.which("skillwire") or "skillwire"
)
SKILLS = REPO / "examples" / "skills"
MESSAGE = "write release notes for 2.0 from these merged PRs"


class FolderSkills(unittest.TestCase):
    def test_a_turn_gives_the_bytes_the_native_command_line_gives(self):
        sw = Skillwire(COMPONENT, [FolderSource(SKILLS)])
        injection = sw.inject(MESSAGE)
        native = subprocess.run([CLI, "--engine", "native", "inject", "--skills", str(SKILLS), MESSAGE],
                                capture_output=True, text=True, check=True)
        self.assertEqual(injection["user_message"] + "\n", native.stdout)
        self.assertEqual([d["skill"] for d in injection["decisions"]], ["release-notes"])
        self.assertEqual(sw.report()["loaded"], 4)
        files = sw.files("release-notes")
        self.assertEqual([f["path"] for f in files["files"]], ["SKILL.md"])
        self.assertTrue(sw.read_file("release-notes", "SKILL.md")["digest"].startswith("sha256:"))
        with self.assertRaises(SkillwireError) as refused:
            sw.read_file("release-notes", "../csv-cleanup/SKILL.md")
        self.assertEqual(refused.exception.code, "invalid_path")
        with self.assertRaises(SkillwireError) as too_long:
            sw.inject("x" * (getattr(sw.call_free("default-options").limits, "max-message-bytes") + 1))
        self.assertEqual(too_long.exception.code, "message_too_large")
        sw.close()

    def test_options_start_from_the_components_defaults(self):
        sw = Skillwire(COMPONENT, [FolderSource(SKILLS)], {"budget": 200, "format": "xml", "deny": ["csv-*"]})
        injection = sw.inject(MESSAGE)
        self.assertEqual(injection["decisions"][0]["truncated"], True)
        self.assertTrue(injection["text"].startswith('<skill name="release-notes" truncated="true">'), injection["text"])
        self.assertEqual([g["name"] for g in sw.report()["gated"]], ["csv-cleanup"])
        defaults = sw.call_free("defaults")
        self.assertEqual(defaults.options.budget, sw.call_free("default-options").budget)


class FailingSource:
    """Lists one skill; reading it raises `fail`."""

    def __init__(self, fail):
        self.fail = fail

    def list(self):
        return [{"location": "s/pdf/SKILL.md", "text": "---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody\n"}]

    def read(self, location):
        raise self.fail


class HugeFile(FailingSource):
    """Lists a file of 4 GiB and more beside its SKILL.md."""

    def list_files(self, location):
        return [{"path": "SKILL.md", "size": 60}, {"path": "assets/huge.bin", "size": 2**32 + 5}]


class Sizes(unittest.TestCase):
    def test_a_size_past_u32_is_the_largest_not_wrapped(self):
        sw = Skillwire(COMPONENT, [HugeFile(OSError("unread"))])
        sizes = {f["path"]: f["size"] for f in sw.files("pdf")["files"]}
        self.assertEqual(sizes["assets/huge.bin"], 2**32 - 1)


class FailureContract(unittest.TestCase):
    def test_an_exception_in_a_source_is_its_err(self):
        sw = Skillwire(COMPONENT, [FailingSource(OSError("disk on fire"))])
        decision = sw.inject("@pdf")["decisions"][0]
        self.assertEqual((decision["skipped"], decision["detail"]), ("body-unavailable", "disk on fire"))
        # The engine goes on.
        self.assertEqual(sw.report()["loaded"], 1)

    def test_a_trap_leaves_the_instance_unusable_until_rebuilt(self):
        source = FailingSource(OSError("contained"))
        sw = Skillwire(COMPONENT, [source])
        # An answer the binding cannot lower (a number for a location) is not a failure
        # the import contains: the call traps, with the TypeError behind it.
        source.list = lambda: [{"location": 42}]
        with self.assertRaises(TypeError):
            sw._method("refresh")
        with self.assertRaises(wasmtime.WasmtimeError) as poisoned:
            sw.report()
        self.assertIn("cannot enter component instance", str(poisoned.exception))
        del source.list
        sw.rebuild()
        self.assertEqual(sw.inject("@pdf")["decisions"][0]["detail"], "contained")


class Stamped:
    """Three stamped entries: a skill, one refused for its size, one whose read fails;
    reads counted."""

    def __init__(self, stamp):
        self.stamp = stamp
        self.reads = []

    def list(self):
        return [{"location": f"s/{name}/SKILL.md", "stamp": self.stamp} for name in ("pdf", "huge", "flaky")]

    def read(self, location):
        self.reads.append(location)
        if "huge" in location:
            raise Refused("SKILL.md is 9000000 bytes")
        if "flaky" in location:
            raise OSError("connection reset")
        return "---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody\n"


class Stamps(unittest.TestCase):
    def test_a_refresh_reads_what_changed_or_failed_and_keeps_refusals(self):
        source = Stamped("1")
        sw = Skillwire(COMPONENT, [source])
        skipped = sw.report()["skipped"]
        self.assertEqual(
            [(s["location"], s["reason"], [d["code"] for d in s["diagnostics"]]) for s in skipped],
            [("s/huge/SKILL.md", "SKILL.md is 9000000 bytes", ["unreadable"]), ("s/flaky/SKILL.md", "connection reset", [])],
        )
        sw.refresh()
        self.assertEqual(source.reads[3:], ["s/flaky/SKILL.md"], "the refusal is kept; the failure may pass")
        self.assertEqual(sw.report()["skipped"], skipped)
        source.stamp = "2"
        sw.refresh()
        self.assertEqual(source.reads[4:], ["s/pdf/SKILL.md", "s/huge/SKILL.md", "s/flaky/SKILL.md"])

    def test_a_stamp_that_is_not_a_string_fails_the_listing(self):
        report = Skillwire(COMPONENT, [Stamped(5)]).report()
        self.assertEqual(report["loaded"], 0)
        self.assertIn("s/pdf/SKILL.md: stamp is int, not a string", report["skipped"][0]["reason"])

    def test_the_folder_source_refuses_a_skill_md_that_is_not_utf8(self):
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "latin1").mkdir()
            (Path(folder) / "latin1" / "SKILL.md").write_bytes(b"---\nname: latin1\ndescription: Caf\xe9.\n---\n")
            skipped = Skillwire(COMPONENT, [FolderSource(folder)]).report()["skipped"]
        self.assertIn("not valid UTF-8", skipped[0]["reason"])
        self.assertEqual([d["code"] for d in skipped[0]["diagnostics"]], ["unreadable"])


if __name__ == "__main__":
    unittest.main()
