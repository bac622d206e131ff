#!/usr/bin/env python3
"""Regenerates tests/vectors/conformance.json: the standard's reference validator
(skills-ref, from PyPI) and skillwire, side by side, on the reference's own 40 tests and
the 54 probes of shared/conformance/skills-ref-probes.json.

Not run by CI (the JSON is committed). Run it after changing lint or the skills-ref
renderer, then review the diff:

    python3 -m venv /tmp/skref && /tmp/skref/bin/pip install skills-ref==0.1.1
    cargo build -p skillwire-host
    /tmp/skref/bin/python tests/tools/conformance.py ../shared/conformance/skills-ref-probes.json

Each case: `files` (paths under {ROOT} -> text), `lint` (a path to validate) and/or
`prompt` (skill folders for to-prompt), the reference's answers, skillwire's answers,
and `divergence` (a row of docs/conformance.md) wherever they differ.
"""
import json, os, subprocess, sys, tempfile
from pathlib import Path

from skills_ref.validator import validate
from skills_ref.prompt import to_prompt
from skills_ref.errors import SkillError

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "target" / "debug" / "skillwire"

def fm(x, body="Body\n"):
    return "---\n" + x + "---\n" + body

def case(name, files, lint=None, prompt=None, fs_only=False):
    return {"case": name, "files": files, "lint": lint, "prompt": prompt, "fs_only": fs_only}

def reference_tests():
    c = []
    # test_parser.py
    c.append(case("ref:test_valid_frontmatter", {"my-skill/SKILL.md": "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n\nInstructions here.\n"}, "my-skill", ["my-skill"]))
    c.append(case("ref:test_missing_frontmatter", {"my-skill/SKILL.md": "# No frontmatter here"}, "my-skill"))
    c.append(case("ref:test_unclosed_frontmatter", {"my-skill/SKILL.md": "---\nname: my-skill\ndescription: A test skill\n"}, "my-skill"))
    c.append(case("ref:test_invalid_yaml", {"my-skill/SKILL.md": "---\nname: [invalid\ndescription: broken\n---\nBody here\n"}, "my-skill"))
    c.append(case("ref:test_non_dict_frontmatter", {"my-skill/SKILL.md": "---\n- just\n- a\n- list\n---\nBody\n"}, "my-skill"))
    c.append(case("ref:test_read_valid_skill", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\nlicense: MIT\n")}, "my-skill", ["my-skill"]))
    c.append(case("ref:test_read_with_metadata", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\nmetadata:\n  author: Test Author\n  version: 1.0\n")}, "my-skill", ["my-skill"]))
    c.append(case("ref:test_missing_skill_md", {"my-skill/.keep": ""}, "my-skill", fs_only=True))
    c.append(case("ref:test_missing_name", {"my-skill/SKILL.md": fm("description: A test skill\n")}, "my-skill", ["my-skill"]))
    c.append(case("ref:test_missing_description", {"my-skill/SKILL.md": fm("name: my-skill\n")}, "my-skill", ["my-skill"]))
    c.append(case("ref:test_find_skill_md_prefers_uppercase", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: upper\n"), "my-skill/skill.md": fm("name: my-skill\ndescription: lower\n")}, "my-skill", ["my-skill"], fs_only=True))
    c.append(case("ref:test_find_skill_md_accepts_lowercase", {"my-skill/skill.md": fm("name: my-skill\ndescription: A test skill\n")}, "my-skill", ["my-skill"], fs_only=True))
    c.append(case("ref:test_find_skill_md_returns_none_when_missing", {"my-skill/README.md": "x"}, "my-skill", fs_only=True))
    c.append(case("ref:test_read_properties_with_lowercase_skill_md", {"my-skill/skill.md": fm("name: my-skill\ndescription: A test skill\n")}, "my-skill", ["my-skill"], fs_only=True))
    c.append(case("ref:test_read_with_allowed_tools", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n")}, "my-skill", ["my-skill"]))
    # test_validator.py
    c.append(case("ref:test_valid_skill", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\n")}, "my-skill"))
    c.append(case("ref:test_nonexistent_path", {}, "nonexistent", fs_only=True))
    c.append(case("ref:test_not_a_directory", {"file.txt": "test"}, "file.txt", fs_only=True))
    c.append(case("ref:test_missing_skill_md_validate", {"my-skill/.keep": ""}, "my-skill", fs_only=True))
    c.append(case("ref:test_invalid_name_uppercase", {"MySkill/SKILL.md": fm("name: MySkill\ndescription: A test skill\n")}, "MySkill"))
    c.append(case("ref:test_name_too_long", {"a" * 70 + "/SKILL.md": fm("name: " + "a" * 70 + "\ndescription: A test skill\n")}, "a" * 70))
    c.append(case("ref:test_name_leading_hyphen", {"-my-skill/SKILL.md": fm("name: -my-skill\ndescription: A test skill\n")}, "-my-skill"))
    c.append(case("ref:test_name_consecutive_hyphens", {"my--skill/SKILL.md": fm("name: my--skill\ndescription: A test skill\n")}, "my--skill"))
    c.append(case("ref:test_name_invalid_characters", {"my_skill/SKILL.md": fm("name: my_skill\ndescription: A test skill\n")}, "my_skill"))
    c.append(case("ref:test_name_directory_mismatch", {"wrong-name/SKILL.md": fm("name: correct-name\ndescription: A test skill\n")}, "wrong-name"))
    c.append(case("ref:test_unexpected_fields", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\nunknown_field: should not be here\n")}, "my-skill"))
    c.append(case("ref:test_valid_with_all_fields", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test\n")}, "my-skill"))
    c.append(case("ref:test_allowed_tools_accepted", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n")}, "my-skill"))
    c.append(case("ref:test_i18n_chinese_name", {"技能/SKILL.md": fm("name: 技能\ndescription: A skill with Chinese name\n")}, "技能"))
    c.append(case("ref:test_i18n_russian_name_with_hyphens", {"мой-навык/SKILL.md": fm("name: мой-навык\ndescription: A skill with Russian name\n")}, "мой-навык"))
    c.append(case("ref:test_i18n_russian_lowercase_valid", {"навык/SKILL.md": fm("name: навык\ndescription: A skill with Russian lowercase name\n")}, "навык"))
    c.append(case("ref:test_i18n_russian_uppercase_rejected", {"НАВЫК/SKILL.md": fm("name: НАВЫК\ndescription: A skill with Russian uppercase name\n")}, "НАВЫК"))
    c.append(case("ref:test_description_too_long", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: " + "x" * 1100 + "\n")}, "my-skill"))
    c.append(case("ref:test_valid_compatibility", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+\n")}, "my-skill"))
    c.append(case("ref:test_compatibility_too_long", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\ncompatibility: " + "x" * 550 + "\n")}, "my-skill"))
    c.append(case("ref:test_nfkc_normalization", {"caf\u00e9/SKILL.md": fm("name: cafe\u0301\ndescription: A test skill\n")}, "caf\u00e9"))
    # test_prompt.py
    c.append(case("ref:test_empty_list", {}, None, []))
    c.append(case("ref:test_single_skill", {"my-skill/SKILL.md": fm("name: my-skill\ndescription: A test skill\n")}, None, ["my-skill"]))
    c.append(case("ref:test_multiple_skills", {"skill-a/SKILL.md": fm("name: skill-a\ndescription: First skill\n"), "skill-b/SKILL.md": fm("name: skill-b\ndescription: Second skill\n")}, None, ["skill-a", "skill-b"]))
    c.append(case("ref:test_special_characters_escaped", {"special-skill/SKILL.md": fm("name: special-skill\ndescription: Use <foo> & <bar> tags\n")}, None, ["special-skill"]))
    return c

def probes(path):
    data = json.load(open(path, encoding="utf-8"))
    out = []
    for v in data["vectors"]:
        name = "lowercase-skill-md" == v["case"] and "skill.md" or "SKILL.md"
        d = v["dir_name"]
        out.append(case("probe:" + v["case"], {f"{d}/{name}": v["skill_md"]}, d, [d], fs_only=(name == "skill.md")))
    return out

def write_files(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))

def reference(root, c):
    out = {}
    if c["lint"] is not None:
        out["validate"] = [e.replace(str(root), "{ROOT}") for e in validate(root / c["lint"])]
    if c["prompt"] is not None:
        try:
            out["to_prompt"] = to_prompt([root / d for d in c["prompt"]]).replace(str(root), "{ROOT}")
        except SkillError as e:
            out["to_prompt_error"] = f"{type(e).__name__}: {e}"
    return out

def ours(root, c):
    out = {}
    if c["lint"] is not None:
        r = subprocess.run([CLI, "lint", "--format", "json", root / c["lint"]], capture_output=True, text=True)
        reports = json.loads(r.stdout)
        out["validate"] = [e.replace(str(root), "{ROOT}") for rep in reports for e in rep["errors"]]
    if c["prompt"] is not None:
        args = [CLI, "catalog", "--format", "skills-ref"]
        for d in c["prompt"]:
            args += ["--skills", root / d]
        if not c["prompt"]:
            empty = root / "__empty__"
            empty.mkdir()
            args += ["--skills", empty]
        r = subprocess.run(args, capture_output=True, text=True)
        out["to_prompt"] = r.stdout.removesuffix("\n").replace(str(root), "{ROOT}")
    return out

# Why skillwire answers differently, by case: ids of the rows of docs/conformance.md.
DIVERGENCES = {
    "ref:test_invalid_yaml": ["yaml-detail"],
    "probe:duplicate-keys": ["yaml-detail", "lenient-catalogue"],
    "probe:tab-indent-metadata": ["yaml-detail", "lenient-catalogue"],
    "probe:colon-in-desc": ["yaml-detail", "colon-repair"],
    "probe:metadata-empty-map": ["full-yaml"],
    "probe:flow-seq": ["full-yaml"],
    "probe:anchor-alias": ["full-yaml"],
    "probe:tag": ["full-yaml"],
    "probe:bom": ["bom"],
    "probe:dashes-in-description": ["whole-line-delimiters"],
    "probe:four-dash-open": ["whole-line-delimiters", "lenient-catalogue"],
    "probe:inline-after-open": ["whole-line-delimiters"],
    "probe:close-with-trailing": ["whole-line-delimiters"],
    "ref:test_missing_name": ["lenient-catalogue"],
    "ref:test_missing_description": ["lenient-catalogue"],
    "probe:leading-blank-line": ["lenient-catalogue"],
    "probe:unclosed": ["lenient-catalogue"],
    "probe:empty-frontmatter": ["lenient-catalogue"],
    "probe:only-dashes": ["lenient-catalogue"],
    "probe:name-empty": ["lenient-catalogue"],
    "probe:name-list": ["lenient-catalogue"],
    "probe:desc-empty": ["lenient-catalogue"],
    "probe:all-errors": ["lenient-catalogue"],
    "probe:missing-both": ["lenient-catalogue"],
}

def main():
    target = REPO / "tests" / "vectors" / "conformance.json"
    cases = reference_tests() + probes(sys.argv[1])
    for c in cases:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp).resolve()
            write_files(root, c["files"])
            c["reference"] = reference(root, c)
            c["skillwire"] = ours(root, c)
        ref, ours_ = c["reference"], c["skillwire"]
        same = ref.get("validate") == ours_.get("validate") and ref.get("to_prompt") == ours_.get("to_prompt") \
            and "to_prompt_error" not in ref
        if not same:
            c["divergence"] = DIVERGENCES.get(c["case"], ["TODO"])
    doc = {
        "about": "The standard's reference validator (skills-ref 0.1.1) and skillwire on the reference's tests and edge probes. "
                 "Paths are under {ROOT}. Regenerate with tests/tools/conformance.py; every divergence names a row of docs/conformance.md.",
        "cases": cases,
    }
    target.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    todo = [c["case"] for c in cases if c.get("divergence") == ["TODO"]]
    stale = sorted(set(DIVERGENCES) - {c["case"] for c in cases if "divergence" in c})
    if stale:
        print("classified but agreeing now:", stale)
    print(f"{len(cases)} cases, {sum(1 for c in cases if 'divergence' in c)} divergent; to classify: {todo}")

main()
