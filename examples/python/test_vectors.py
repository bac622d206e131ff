"""The shared turn vectors (tests/vectors/turns/*.toml) through the component in wasmtime-py:
every case's report, catalogues, matches, injection and other requests must equal what the
native core gives (the expectations), byte for byte once both are in the vectors' compact
JSON. Errors are compared by their code and the numbers they carry (sizes, limits): the WIT
error variants carry data, and the sentence the core writes for them is the Rust and JS
hosts' to make, so the numbers of the data must be those of the core's sentence.

    SKILLWIRE_COMPONENT=dist/skillwire.wasm python -m unittest discover examples/python
"""

from __future__ import annotations

import json
import os
import re
import tomllib
import unittest
from pathlib import Path

from wasmtime import component as wc

from skillwire_component import Skillwire, SkillwireError, record, to_plain, turn_context

REPO = Path(__file__).resolve().parents[2]
COMPONENT = os.environ.get("SKILLWIRE_COMPONENT", str(REPO / "target" / "skillwire-component" / "skillwire.wasm"))


def compact(value):
    """Null, false, empty lists and empty objects left out of every object (the vectors' form)."""
    if isinstance(value, list):
        return [compact(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, v in value.items():
        v = compact(v)
        if v is None or v is False or v == [] or v == {}:
            continue
        out[key] = v
    return out


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class VectorSource:
    """A source over a vector's skills (`read_error`: reading fails; `read_text`: the file
    changed since it was listed; `files`: the folder's other files)."""

    def __init__(self, skills):
        self.skills = skills

    def _skill(self, location):
        for skill in self.skills:
            if skill["location"] == location:
                return skill
        raise KeyError("missing")

    def list(self):
        return [
            {"location": s["location"], "text": s["text"], "origin": s.get("origin"), "id": s.get("id")}
            for s in self.skills
        ]

    def read(self, location):
        skill = self._skill(location)
        if "read_error" in skill:
            raise RuntimeError(skill["read_error"])
        return skill.get("read_text", skill["text"])

    def list_files(self, location):
        skill = self._skill(location)
        files = [{"path": "SKILL.md", "size": len(skill["text"].encode())}]
        files += [{"path": p, "size": len(t.encode())} for p, t in skill.get("files", {}).items()]
        return files

    def read_file(self, location, path, max_bytes):
        skill = self._skill(location)
        text = skill["text"] if path == "SKILL.md" else skill.get("files", {}).get(path)
        if text is None:
            raise KeyError(f"no file {path}")
        return text.encode()[: max_bytes + 1]


def wit_options(options: dict) -> dict:
    """A vector's options (the core's `{catalog, render}`) as the WIT record's flat fields."""
    return {**options.get("catalog", {}), **options.get("render", {})}


def answer(run):
    """A result, or the error the vectors record, as `{error, data}`."""
    try:
        return run()
    except SkillwireError as e:
        return {"error": e.code, "data": e.data}


# The errors that carry sizes: (bytes, limit), and for a file its path first.
SIZED = {"file_too_large", "message_too_large", "reply_too_large"}


def codes_only(value):
    """`value` with every recorded error (`{error, message}` expected, `{error, data}` got)
    reduced to its code, and for the errors that carry sizes the sizes: the data's numbers
    must be the ones the core's sentence says (see the module docs)."""
    if isinstance(value, list):
        return [codes_only(v) for v in value]
    if isinstance(value, dict):
        if "error" in value and len(value) == 2 and ("message" in value or "data" in value):
            code = value["error"]
            if code not in SIZED:
                return {"error": code}
            if "message" in value:
                return {"error": code, "sizes": sorted(int(n) for n in re.findall(r"\b\d+\b", value["message"]))}
            sizes = [n for n in value["data"] if isinstance(n, int)]
            return {"error": code, "sizes": sorted(sizes)}
        return {k: codes_only(v) for k, v in value.items()}
    return value


def select_options(sw: Skillwire, given: dict | None) -> wc.Record:
    options = sw.call_free("defaults").select
    for key, value in (given or {}).items():
        setattr(options, key.replace("_", "-"), value)
    return options


def run_case(sw: Skillwire, case: dict) -> dict:
    out = {"report": sw.report()}
    if "catalog" in case:
        out["catalog"] = [
            {**sw.catalog(r["format"], r.get("budget")), "format": r["format"], "budget": r.get("budget")}
            for r in case["catalog"]
        ]
    if "catalog_for" in case:
        out["catalog_for"] = [
            answer(lambda r=r: sw.catalog_for(r["message"], r.get("turn"), r.get("featured"),
                                              r.get("format", "agent-skills"), r.get("budget")))
            for r in case["catalog_for"]
        ]
    if "complete" in case:
        out["complete"] = [sw.complete(r["typed"], r["limit"]) for r in case["complete"]]
    if "select_prompt" in case:
        def prompt(r):
            counts = {"selected": 0, "applied": 0, "completed": 0, "fell_back": 0}
            stats = [record(**{**counts, **s}) for s in r.get("stats", [])]
            got = sw._method("select-prompt", r["message"], turn_context(r.get("turn")), stats,
                             select_options(sw, r.get("options")))
            return to_plain(Skillwire._checked(got, wc.Record))
        out["select_prompt"] = [answer(lambda r=r: prompt(r)) for r in case["select_prompt"]]
    if "select_parse" in case:
        def parse(r):
            return to_plain(Skillwire._checked(sw._method("select-parse", r["reply"], r["max_skills"]), wc.Record))
        out["select_parse"] = [answer(lambda r=r: parse(r)) for r in case["select_parse"]]
    if "inject_selected" in case:
        out["inject_selected"] = [
            answer(lambda r=r: sw.inject(r["message"], {**r.get("turn", {}), "selected": r["selected"]}))
            for r in case["inject_selected"]
        ]
    if "tools" in case:
        out["tools"] = [
            {
                "tools": sw.tools(r.get("exclude", [])),
                "openai": json.loads(sw.tool_definitions("openai", r.get("exclude", []))),
                "anthropic": json.loads(sw.tool_definitions("anthropic", r.get("exclude", []))),
            }
            for r in case["tools"]
        ]
    if "files" in case:
        out["files"] = [answer(lambda s=s: sw.files(s)) for s in case["files"]]
    if "read_files" in case:
        def read(r):
            got = sw.read_file(r["skill"], r["path"])
            # The vectors record a binary body by its size and digest, not its bytes.
            if got["body"]["type"] == "binary":
                del got["body"]["value"]
            return got
        out["read_files"] = [answer(lambda r=r: read(r)) for r in case["read_files"]]
    if "read_file_calls" in case:
        out["read_file_calls"] = [to_plain(sw._method("answer-read-file", c)) for c in case["read_file_calls"]]
    if "embeddings" in case:
        given = case["embeddings"]
        pairs = list(given.items()) if isinstance(given, dict) else given
        out["embeddings"] = answer(lambda: sw.set_embeddings(pairs))
    if "message" in case:
        out["matches"] = answer(lambda: sw.match(case["message"], case.get("turn")))
        out["injection"] = answer(lambda: sw.inject(case["message"], case.get("turn")))
    return compact(out)


def cases():
    for path in sorted((REPO / "tests" / "vectors" / "turns").glob("*.toml")):
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
        sets = doc.get("skills", {})
        for case in doc.get("case", []):
            sources = [sets[name] for name in case["sources"]] if "sources" in case else [case.get("skills", [])]
            yield path.stem, case, sources


class TurnVectors(unittest.TestCase):
    def test_every_case_gives_what_the_native_core_gives(self):
        failing = []
        for topic, case, sources in cases():
            sw = Skillwire(COMPONENT, [VectorSource(s) for s in sources], wit_options(case.get("options", {})))
            try:
                got = codes_only(run_case(sw, case))
                want = compact(codes_only(case.get("expect", {})))
                if canonical(got) != canonical(want):
                    failing.append(f"{topic}/{case['name']}:\n  got  {canonical(got)}\n  want {canonical(want)}")
            finally:
                sw.close()
        self.assertEqual(failing, [], "\n".join(failing))


if __name__ == "__main__":
    unittest.main()
