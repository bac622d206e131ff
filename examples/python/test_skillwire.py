"""The Python host as a user meets it: a folder of skills, the same bytes as the native
command line, and the failure contract of sources (an exception in a source is the source's
`err`; a trap leaves the instance unusable until `rebuild()`).

    SKILLWIRE_COMPONENT=dist/skillwire.wasm python -m unittest discover examples/python
"""

from __future__ import annotations

import os
import shutil
import subprocess
import unittest
from pathlib import Path

import wasmtime

from skillwire_component import FolderSource, Skillwire, SkillwireError

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


if __name__ == "__main__":
    unittest.main()
