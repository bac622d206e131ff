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

    def test_a_refresh_over_a_folder_finds_added_and_removed_skills_and_reads_what_changed(self):
        def write(folder: Path, name: str, description: str):
            (folder / name).mkdir(exist_ok=True)
            (folder / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")

        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            write(folder, "csv", "Clean CSV exports.")
            write(folder, "pdf", "Fill PDF forms.")
            source = FolderSource(folder, settle_seconds=0)
            reads = []
            read = source.read
            source.read = lambda location: reads.append(Path(location).parent.name) or read(location)
            sw = Skillwire(COMPONENT, [source])
            self.assertEqual(sorted(reads), ["csv", "pdf"])
            sw.refresh()
            self.assertEqual(len(reads), 2, "nothing changed, nothing read")
            write(folder, "notes", "Write release notes.")
            write(folder, "csv", "Clean CSV exports and spreadsheets.")
            (folder / "pdf" / "SKILL.md").unlink()
            (folder / "pdf").rmdir()
            sw.refresh()
            self.assertEqual(sorted(reads[2:]), ["csv", "notes"])
            self.assertEqual(sw.report()["loaded"], 2)
            self.assertIn("spreadsheets", sw.catalog()["text"])
            self.assertNotIn("PDF", sw.catalog()["text"])
            # Changed within `settle_seconds`: no stamp, so read at every refresh.
            source.settle_seconds = 3600
            self.assertEqual([e.get("stamp") for e in source.list()], [None, None])
            sw.refresh()
            self.assertEqual(sorted(reads[4:]), ["csv", "notes"])
            # A skill deleted after the search is a failure that may pass, not a refusal.
            (folder / "notes" / "SKILL.md").unlink()
            with self.assertRaises(FileNotFoundError):
                source.read(str(folder.resolve() / "notes" / "SKILL.md"))
        # A root that is gone fails the listing, which the report says (not an empty folder).
        with self.assertRaises(FileNotFoundError):
            source.list()
        sw.refresh()
        self.assertIn("source 0 could not list its skills", sw.report()["skipped"][0]["reason"])

    def test_the_folder_source_refuses_a_skill_md_that_is_not_utf8(self):
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "latin1").mkdir()
            (Path(folder) / "latin1" / "SKILL.md").write_bytes(b"---\nname: latin1\ndescription: Caf\xe9.\n---\n")
            skipped = Skillwire(COMPONENT, [FolderSource(folder)]).report()["skipped"]
        self.assertIn("not valid UTF-8", skipped[0]["reason"])
        self.assertEqual([d["code"] for d in skipped[0]["diagnostics"]], ["unreadable"])


class Skills:
    """Skills in memory, each listed with a stamp that changes with its text; reads counted."""

    def __init__(self, texts: dict):
        self.texts = dict(texts)
        self.stamps = {location: "1" for location in texts}
        self.reads = []

    def edit(self, location: str, text: str) -> dict:
        self.texts[location] = text
        self.stamps[location] = str(int(self.stamps[location]) + 1)
        return {"location": location, "stamp": self.stamps[location]}

    def list(self):
        return [{"location": location, "stamp": self.stamps[location]} for location in sorted(self.texts)]

    def read(self, location):
        self.reads.append(location)
        return self.texts[location]


def skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


class Updates(unittest.TestCase):
    MESSAGES = ["fill the tax form in this pdf", "clean up this csv export", "draft the release notes", "@notes"]

    def assertSameAsBuilt(self, sw: Skillwire, source: Skills):
        """The engine's catalogue, report and turns are those of an engine built over the
        source as it is now."""
        built = Skillwire(COMPONENT, [Skills(source.texts)])
        self.assertEqual(sw.report(), built.report())
        self.assertEqual(sw.catalog(), built.catalog())
        for message in self.MESSAGES:
            self.assertEqual(sw.inject(message), built.inject(message), message)

    def test_an_edit_or_a_deletion_is_taken_without_listing_the_sources(self):
        source = Skills({
            "s/csv/SKILL.md": skill_md("csv", "Clean CSV exports.", "Trim the columns."),
            "s/notes/SKILL.md": skill_md("notes", "Write release notes.", "Group the merged PRs."),
            "s/pdf/SKILL.md": skill_md("pdf", "Fill PDF forms.", "Use the form fields."),
        })
        sw = Skillwire(COMPONENT, [source])
        listings = 0

        def counted():
            nonlocal listings
            listings += 1
            return Skills.list(source)

        source.list = counted
        # A body edit: in place, the one file read.
        edited = source.edit("s/pdf/SKILL.md", skill_md("pdf", "Fill PDF forms.", "Flatten the form after filling it."))
        self.assertTrue(sw.update(0, edited))
        self.assertEqual(source.reads[3:], ["s/pdf/SKILL.md"])  # (turns read bodies too: below)
        self.assertIn("Flatten the form", sw.inject("fill the tax form in this pdf")["text"])
        self.assertSameAsBuilt(sw, source)
        # A description edit, its text at hand: the indexes made again, nothing read.
        text = skill_md("csv", "Clean CSV exports and spreadsheet tabs.", "Trim the columns.")
        source.edit("s/csv/SKILL.md", text)
        reads = len(source.reads)
        self.assertFalse(sw.update(0, {"location": "s/csv/SKILL.md", "stamp": source.stamps["s/csv/SKILL.md"], "text": text}))
        self.assertEqual(len(source.reads), reads)
        self.assertIn("spreadsheet tabs", sw.catalog()["text"])
        self.assertSameAsBuilt(sw, source)
        # A deletion: taken out in place.
        del source.texts["s/notes/SKILL.md"]
        self.assertTrue(sw.remove(0, "s/notes/SKILL.md"))
        self.assertEqual(sw.report()["loaded"], 2)
        self.assertSameAsBuilt(sw, source)
        self.assertEqual(listings, 0, "no change above listed the sources")
        # An unknown source is the caller's mistake, not a reason to refresh.
        for call in (lambda: sw.update(1, edited), lambda: sw.remove(-1, "s/pdf/SKILL.md"), lambda: sw.update(True, edited)):
            with self.assertRaises(SkillwireError) as refused:
                call()
            self.assertEqual(refused.exception.code, "invalid_argument")
        with self.assertRaises(TypeError):
            sw.update(0, {"location": "s/pdf/SKILL.md", "stamp": 3})
        self.assertEqual(listings, 0)
        # An entry the engine cannot take in place (a location it never listed): a refresh.
        source.texts["s/new/SKILL.md"] = skill_md("new", "Rename files in bulk.", "Preview first.")
        source.stamps["s/new/SKILL.md"] = "1"
        self.assertFalse(sw.update(0, {"location": "s/new/SKILL.md", "stamp": "1"}))
        self.assertEqual(listings, 1)
        self.assertSameAsBuilt(sw, source)


if __name__ == "__main__":
    unittest.main()
