//! What the fuzz targets do with an input, shared with `core/tests/fuzz_replay.rs`,
//! which runs every saved input under `tests/fuzz/<target>/` as a normal test. Each
//! function checks properties a user relies on; a panic is a finding.

use arbitrary::{Arbitrary, Unstructured};
use skillwire::{
    block_name, lint, load, parse_blocks, render_catalog, Catalog, CatalogFormat, CatalogInput, CatalogOptions,
    InjectFormat, Limits, Options, SelectOptions, SkillStats, ToolOptions, TurnContext,
};

/// A skill as a fuzzer writes it: fields in a well-formed SKILL.md (so the input
/// reaches matching and rendering), or raw text.
#[derive(Arbitrary, Debug)]
pub struct FuzzSkill {
    name: String,
    description: String,
    tags: Vec<String>,
    body: String,
    manual_only: bool,
    raw: Option<String>,
}

impl FuzzSkill {
    fn text(&self) -> String {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        // JSON strings are YAML double-quoted scalars.
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let tags: Vec<String> = self.tags.iter().map(|t| quote(t)).collect();
        format!(
            "---\nname: {}\ndescription: {}\ntags: [{}]\n{}---\n{}",
            quote(&self.name),
            quote(&self.description),
            tags.join(", "),
            if self.manual_only { "disable-model-invocation: true\n" } else { "" },
            self.body
        )
    }
}

/// Any bytes as a SKILL.md: lint and the lenient loader never panic, and what the
/// strict linter accepts, the lenient loader loads.
pub fn parse_and_lint(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let report = lint("fuzz/SKILL.md", &text, &Limits::default());
    let loaded = load("fuzz/SKILL.md", &text, &Limits::default());
    if report.valid {
        assert!(loaded.skill.is_some(), "lint accepts what load refuses: {:?}", loaded.diagnostics);
    }
    // Every safety finding points into the text, and there are never more than the cap.
    let name = loaded.skill.as_ref().map(|s| s.name.as_str());
    let findings = skillwire::scan(&text, name, &skillwire::ScanPolicy::uniform(skillwire::Action::Warn))
        .expect("the scan's trigger table is made from a fixed list");
    assert!(findings.len() <= skillwire::MAX_FINDINGS);
    let lines: Vec<&str> = text.split('\n').collect();
    for f in &findings {
        let line = lines.get(f.line - 1).unwrap_or_else(|| panic!("{f:?} is past the last line"));
        assert!(f.column >= 1 && f.column <= line.chars().count() + 1, "{f:?} is past the end of its line");
    }
}

/// Catalogues from arbitrary skills and options: every entry is accounted for, and the
/// catalogue text keeps to its budget unless no entry fits at all.
pub fn build_catalogue(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok((options, skills, budget)) = <(CatalogOptions, Vec<(u8, FuzzSkill)>, Option<u16>)>::arbitrary(&mut u) else {
        return;
    };
    let inputs: Vec<CatalogInput> = skills
        .iter()
        .enumerate()
        .map(|(i, (source, s))| CatalogInput {
            source: usize::from(source % 4),
            id: None,
            origin: None,
            location: format!("s{}/{i}/SKILL.md", source % 4),
            text: Ok(s.text()),
        })
        .collect();
    let catalog = Catalog::build(inputs, &options);
    let report = catalog.report();
    assert_eq!(report.loaded + report.skipped.len() + report.shadowed.len(), skills.len());
    for format in [CatalogFormat::AgentSkills, CatalogFormat::SkillsRef, CatalogFormat::Markdown, CatalogFormat::Json] {
        let text = render_catalog(&catalog, format, budget.map(usize::from));
        let listed = catalog.skills().iter().filter(|s| !s.gated() && !s.blocked()).count();
        if let Some(budget) = budget {
            assert!(
                text.text.len() <= usize::from(budget) || text.omitted.len() == listed,
                "{format:?}: {} bytes over a budget of {budget}",
                text.text.len()
            );
        }
    }
}

/// A turn with arbitrary options, skills, bodies, message and context: the injection
/// keeps to the budget, parses back into exactly the injected blocks in order, and the
/// user message is the injection, a blank line and the message.
pub fn turn(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok((options, skills, message, context, failing_reads)) =
        <(Options, Vec<FuzzSkill>, String, TurnContext, Vec<bool>)>::arbitrary(&mut u)
    else {
        return;
    };
    let select = SelectOptions::arbitrary(&mut u).unwrap_or_default();
    let stats = Vec::<SkillStats>::arbitrary(&mut u).unwrap_or_default();
    let texts: Vec<String> = skills.iter().map(FuzzSkill::text).collect();
    let inputs = texts
        .iter()
        .enumerate()
        .map(|(i, text)| CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: format!("{i}/SKILL.md"),
            text: Ok(text.clone()),
        })
        .collect();
    let catalog = Catalog::build(inputs, &options.catalog);
    let _ = catalog.turn(&message, &context).map(|t| t.matches());
    selection_and_tools(&catalog, &message, &context, &stats, &select);
    let read = |location: &str| -> Result<String, String> {
        let i: usize = location.split('/').next().and_then(|n| n.parse().ok()).unwrap_or(usize::MAX);
        match (texts.get(i), failing_reads.get(i)) {
            (_, Some(true)) => Err("the source failed".to_owned()),
            (Some(text), _) => Ok(text.clone()),
            (None, _) => Err("no such skill".to_owned()),
        }
    };
    let Ok(turn) = catalog.inject(&message, &context, &options.render, |entry| read(&entry.skill.location)) else {
        return;
    };
    let render = &options.render;
    assert!(turn.text.len() <= render.budget, "{} bytes over a budget of {}", turn.text.len(), render.budget);
    assert_eq!(turn.summary.injected_bytes, turn.text.len());
    if turn.text.is_empty() {
        assert_eq!(turn.user_message, message);
    } else {
        assert_eq!(turn.user_message, format!("{}\n\n{message}", turn.text));
    }
    // The name a block carries: the skill's own in `xml` (an escaped attribute), else
    // the delimiter-safe form.
    let carried = |name: &str| if render.format == InjectFormat::Xml { name.to_owned() } else { block_name(name) };
    let injected: Vec<(String, bool)> =
        turn.decisions.iter().filter(|d| d.injected_bytes > 0).map(|d| (carried(&d.skill), d.truncated)).collect();
    if !turn.text.is_empty() {
        let blocks =
            parse_blocks(&turn.text, render.format).unwrap_or_else(|| panic!("does not parse: {:?}", turn.text));
        let parsed: Vec<(String, bool)> = blocks.into_iter().map(|b| (b.name, b.truncated)).collect();
        assert_eq!(parsed, injected);
    }
}

/// LLM selection and tools on a fuzzed catalogue: the message is also read as a model's
/// reply. What the core returns names only skills a model may use, once each, within
/// the caps; tool names are unique and valid for the APIs.
fn selection_and_tools(
    catalog: &Catalog,
    message: &str,
    context: &TurnContext,
    stats: &[SkillStats],
    select: &SelectOptions,
) {
    let selectable = |name: &str| catalog.get(name).is_some_and(|e| catalog.automatic(e));
    if let Ok(prompt) = catalog.select_prompt(message, context, stats, select) {
        assert!(prompt.candidates.iter().all(|c| selectable(c)), "{:?}", prompt.candidates);
        assert!(!prompt.shortlisted || prompt.candidates.len() <= select.shortlist_size);
        let quoted = serde_json::to_string(message).unwrap_or_default();
        assert!(prompt.prompt.contains(&quoted));
    }
    if let Ok(selection) = catalog.select_parse(message, select.max_skills) {
        assert!(selection.skills.len() <= select.max_skills);
        assert!(selection.skills.iter().all(|s| selectable(s)), "{:?}", selection.skills);
        let mut unique = selection.skills.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), selection.skills.len(), "{:?}", selection.skills);
        let context = TurnContext { selected: Some(selection.skills.clone()), ..context.clone() };
        let _ = catalog.inject(message, &context, &Default::default(), |_| Err("not read".to_owned()));
    }
    let tools = catalog.tools(&ToolOptions::default());
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for name in &names {
        assert!(name.len() <= 64 && name.starts_with("skills__"), "{name}");
        assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'), "{name}");
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), tools.len());
}

/// Any bytes as the path of a skill's file: the check never panics; what it accepts is
/// relative, normalised (checking it again gives it back), free of `..`, `\`, `:` and
/// control characters; an engine reads a file only by the path it accepted, and a source
/// is never asked for another.
pub fn file_paths(data: &[u8]) {
    let path = String::from_utf8_lossy(data);
    let limit = Limits::default().max_file_path_bytes;
    if let Ok(normal) = skillwire::normalise_file_path(&path, limit) {
        assert!(!normal.is_empty() && !normal.starts_with('/'), "{normal:?}");
        assert!(normal.split('/').all(|s| !s.is_empty() && !s.ends_with(['.', ' '])), "{normal:?}");
        assert!(!normal.contains(['\\', ':']) && !normal.chars().any(char::is_control), "{normal:?}");
        assert_eq!(skillwire::normalise_file_path(&normal, limit), Ok(normal.clone()));
    }
    let mut source = skillwire::MemorySource::new();
    source.insert("s/a/SKILL.md", "---\nname: a\ndescription: A skill.\n---\nBody.\n");
    source.insert_file("s/a/SKILL.md", "references/x.md", "x");
    let engine = skillwire::Engine::new(vec![source], Options::default());
    match engine.read_file("a", &path) {
        Ok(content) => {
            let normal = skillwire::normalise_file_path(&path, limit).expect("a read file had an accepted path");
            assert_eq!(content.path, normal);
            assert!(normal == "references/x.md" || normal == "SKILL.md", "{normal:?}");
        }
        Err(skillwire::FileError::InvalidPath { .. }) => {
            assert!(skillwire::normalise_file_path(&path, limit).is_err());
        }
        Err(_) => {}
    }
}
