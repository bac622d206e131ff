//! Every input limit, fed input exactly at it and just past it: at the limit the input
//! is accepted; one past it, the outcome is the typed one the documentation promises
//! (a skipped skill with a diagnostic, a truncation with a warning, or an error).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code

use skillwire::{load, Catalog, CatalogInput, CatalogOptions, Error, Limits, RenderOptions, Skip, TurnContext};

/// A SKILL.md with `extra` frontmatter lines and `body`.
fn skill_md(name: &str, extra: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: Fill PDF forms.\n{extra}---\n{body}")
}

/// The codes of `text`'s load diagnostics, and whether it loaded.
fn loads(text: &str, limits: &Limits) -> (bool, Vec<String>) {
    let loaded = load("s/pdf/SKILL.md", text, limits);
    (loaded.skill.is_some(), loaded.diagnostics.into_iter().map(|d| d.code).collect())
}

#[test]
fn skill_md_bytes() {
    let text = skill_md("pdf", "", "Use pypdf.\n");
    let at = Limits { max_skill_md_bytes: text.len(), ..Limits::default() };
    assert_eq!(loads(&text, &at), (true, vec![]));
    let past = Limits { max_skill_md_bytes: text.len() - 1, ..Limits::default() };
    assert_eq!(loads(&text, &past), (false, vec!["too_large".to_owned()]));

    // A body read for a turn is held to the same limit.
    let catalog = Catalog::build(
        vec![CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: "s/pdf/SKILL.md".into(),
            text: Ok(text.clone()),
        }],
        &CatalogOptions { limits: at.clone(), ..CatalogOptions::default() },
    );
    let longer = format!("{text} ");
    let turn =
        catalog.inject("@pdf", &TurnContext::default(), &RenderOptions::default(), |_| Ok(longer.clone())).unwrap();
    assert_eq!(turn.decisions[0].skipped, Some(Skip::BodyUnavailable));
    assert_eq!(
        turn.decisions[0].detail.as_deref(),
        Some(&*format!("SKILL.md is {} bytes; the limit is {}", longer.len(), text.len()))
    );
    let turn =
        catalog.inject("@pdf", &TurnContext::default(), &RenderOptions::default(), |_| Ok(text.clone())).unwrap();
    assert_eq!(turn.decisions[0].skipped, None);
}

#[test]
fn frontmatter_bytes() {
    let text = skill_md("pdf", "", "");
    let yaml_len = "name: pdf\ndescription: Fill PDF forms.\n".len();
    let at = Limits { max_frontmatter_bytes: yaml_len, ..Limits::default() };
    assert!(loads(&text, &at).0);
    let past = Limits { max_frontmatter_bytes: yaml_len - 1, ..Limits::default() };
    assert_eq!(loads(&text, &past), (false, vec!["frontmatter_too_large".to_owned()]));
}

#[test]
fn yaml_depth() {
    let nested =
        |depth: usize| skill_md("pdf", &format!("metadata:\n  x: {}1{}\n", "[".repeat(depth), "]".repeat(depth)), "");
    let limits = Limits { max_yaml_depth: 4, ..Limits::default() };
    assert!(loads(&nested(4), &limits).0);
    assert_eq!(loads(&nested(5), &limits), (false, vec!["yaml_limit".to_owned()]));
}

#[test]
fn yaml_aliases() {
    let aliased = |count: usize| {
        let refs: Vec<&str> = std::iter::repeat_n("*a", count).collect();
        skill_md("pdf", &format!("metadata:\n  base: &a x\n  refs: [{}]\n", refs.join(", ")), "")
    };
    let limits = Limits { max_yaml_aliases: 3, ..Limits::default() };
    assert!(loads(&aliased(3), &limits).0);
    assert_eq!(loads(&aliased(4), &limits), (false, vec!["yaml_limit".to_owned()]));
    // In block mappings too, where the lenient loader must not quote `*x` away.
    let block = skill_md("pdf", "metadata:\n  a: &x one\n  b: *x\n  c: *x\n", "");
    let one = Limits { max_yaml_aliases: 1, ..Limits::default() };
    assert_eq!(loads(&block, &one), (false, vec!["yaml_limit".to_owned()]));
}

#[test]
fn message_bytes() {
    let catalog = Catalog::build(
        vec![CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: "s/pdf/SKILL.md".into(),
            text: Ok(skill_md("pdf", "", "Body.\n")),
        }],
        &CatalogOptions { limits: Limits { max_message_bytes: 8, ..Limits::default() }, ..CatalogOptions::default() },
    );
    assert!(catalog.turn("@pdf 678", &TurnContext::default()).is_ok());
    assert_eq!(catalog.turn("@pdf 6789", &TurnContext::default()), Err(Error::MessageTooLarge { bytes: 9, limit: 8 }));
    assert_eq!(
        catalog.inject("@pdf 6789", &TurnContext::default(), &RenderOptions::default(), |_| Ok(String::new())),
        Err(Error::MessageTooLarge { bytes: 9, limit: 8 })
    );
}

#[test]
fn number_of_skills() {
    let inputs = |n: usize| -> Vec<CatalogInput> {
        (0..n)
            .map(|i| CatalogInput {
                source: 0,
                id: None,
                origin: None,
                location: format!("s/s{i}/SKILL.md"),
                text: Ok(skill_md(&format!("s{i}"), "", "")),
            })
            .collect()
    };
    let options = CatalogOptions { limits: Limits { max_skills: 3, ..Limits::default() }, ..CatalogOptions::default() };
    assert_eq!(Catalog::build(inputs(3), &options).report().loaded, 3);
    let past = Catalog::build(inputs(4), &options);
    assert_eq!(past.report().loaded, 3);
    assert_eq!(past.report().skipped.len(), 1);
    assert_eq!(past.report().skipped[0].location, "s/s3/SKILL.md");
    assert_eq!(past.report().skipped[0].reason, "the catalogue already holds 3 skills (the limit)");
}

#[test]
fn name_tag_and_requirement_bytes() {
    let limits = Limits { max_name_bytes: 5, ..Limits::default() };
    assert!(loads(&skill_md("abcde", "", ""), &limits).0);
    let (ok, codes) = loads(&skill_md("abcdef", "", ""), &limits);
    assert!(!ok && codes.contains(&"name_too_long".to_owned()), "{codes:?}");

    let tagged =
        load("s/pdf/SKILL.md", &skill_md("pdf", "tags: [abcde, abcdef]\nrequires: [mcp12, mcp123]\n", ""), &limits);
    let skill = tagged.skill.unwrap();
    assert_eq!(skill.tags, ["abcde"]);
    assert_eq!(skill.requires, ["mcp12"]);
    let codes: Vec<&str> = tagged.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["value_too_long", "value_too_long"]);
}

#[test]
fn description_bytes() {
    let limits = Limits { max_description_bytes: 10, ..Limits::default() };
    let text = |d: &str| format!("---\nname: pdf\ndescription: {d}\n---\n");
    let at = load("s/pdf/SKILL.md", &text("éééééx"), &limits);
    assert_eq!(at.skill.unwrap().description, "ééééé");
    assert_eq!(at.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), ["description_truncated"]);
    let exact = load("s/pdf/SKILL.md", &text("0123456789"), &limits);
    assert_eq!(exact.skill.unwrap().description, "0123456789");
    assert!(exact.diagnostics.is_empty());
    let past = load("s/pdf/SKILL.md", &text("0123456789A"), &limits);
    assert_eq!(past.skill.unwrap().description, "0123456789");
    assert_eq!(past.diagnostics.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), ["description_truncated"]);
}

/// An engine over one skill `pdf` with `files` in its folder.
fn engine_with_files(limits: Limits, files: &[(&str, usize)]) -> skillwire::Engine<skillwire::MemorySource> {
    let mut source = skillwire::MemorySource::new();
    source.insert("s/pdf/SKILL.md", skill_md("pdf", "", "Body.\n"));
    for &(path, bytes) in files {
        source.insert_file("s/pdf/SKILL.md", path, vec![b'a'; bytes]);
    }
    let options = skillwire::Options { catalog: CatalogOptions { limits, ..Default::default() }, ..Default::default() };
    skillwire::Engine::new(vec![source], options)
}

#[test]
fn file_bytes() {
    let engine =
        engine_with_files(Limits { max_file_bytes: 10, ..Limits::default() }, &[("at.txt", 10), ("past.txt", 11)]);
    assert_eq!(engine.read_file("pdf", "at.txt").unwrap().size, 10);
    let past = engine.read_file("pdf", "past.txt").unwrap_err();
    assert_eq!(past, skillwire::FileError::TooLarge { path: "past.txt".to_owned(), bytes: 11, limit: 10 });
}

#[test]
fn skill_files() {
    // SKILL.md is listed too: three files in all.
    let limits = Limits { max_skill_files: 3, ..Limits::default() };
    let at = engine_with_files(limits.clone(), &[("a.txt", 1), ("b.txt", 1)]).files("pdf").unwrap();
    assert_eq!((at.files.len(), at.left_out), (3, 0));
    let past = engine_with_files(limits, &[("a.txt", 1), ("b.txt", 1), ("c.txt", 1)]).files("pdf").unwrap();
    assert_eq!((past.files.len(), past.left_out), (3, 1));
}

#[test]
fn file_path_bytes() {
    let at = "a".repeat(10);
    let past = "a".repeat(11);
    let engine = engine_with_files(Limits { max_file_path_bytes: 10, ..Limits::default() }, &[(&at, 1), (&past, 1)]);
    assert_eq!(engine.read_file("pdf", &at).unwrap().path, at);
    assert_eq!(
        engine.read_file("pdf", &past).unwrap_err(),
        skillwire::FileError::InvalidPath { path: past.clone(), problem: skillwire::PathProblem::TooLong }
    );
    // A listed path past the limit is left out.
    assert_eq!(engine.files("pdf").unwrap().left_out, 1);
}
