//! Refreshing an engine over stamped sources: only the entries whose stamp changed (and new
//! ones) are read again, and the catalogue is the one a full build of the sources as they
//! are now gives — whatever changed: an edit, an addition, a removal, a name taken over or
//! given back, an origin's collision, a skill that stops or starts loading.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::disallowed_methods)] // test code reads the shared corpus

use skillwire::{
    CatalogFormat, CatalogOptions, Engine, Options, RankOptions, SkillEntry, SkillSource, SourceError, TurnContext,
};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

mod common;
use common::{shared, skill_files};

/// Skills by location: text and origin.
type Skills = BTreeMap<String, (String, Option<String>)>;

/// One change to the sources: what it is, how many entries the refresh should read.
type Step<'a> = (&'a str, usize, Box<dyn Fn(&Stamped) + 'a>);

/// A source of skills, listed in location order, stamped with their
/// text's digest (or not stamped at all); every read counted.
#[derive(Clone, Default)]
struct Stamped {
    skills: Rc<RefCell<Skills>>,
    reads: Rc<Cell<usize>>,
    stamped: bool,
}

impl Stamped {
    fn put(&self, location: &str, text: &str, origin: Option<&str>) {
        self.skills.borrow_mut().insert(location.to_owned(), (text.to_owned(), origin.map(str::to_owned)));
    }

    /// The same skills as they are now, in a source of their own (for a full build).
    fn copy(&self) -> Stamped {
        Stamped { skills: Rc::new(RefCell::new(self.skills.borrow().clone())), ..Stamped::default() }
    }
}

impl SkillSource for Stamped {
    fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
        let skills = self.skills.borrow();
        Ok(skills
            .iter()
            .map(|(location, (text, origin))| {
                let mut entry = SkillEntry::new(location.clone());
                entry.origin = origin.clone();
                if self.stamped {
                    entry = entry.with_stamp(skillwire::sha256_digest(text.as_bytes()));
                }
                entry
            })
            .collect())
    }

    fn read(&self, location: &str) -> Result<String, SourceError> {
        self.reads.set(self.reads.get() + 1);
        let skills = self.skills.borrow();
        skills.get(location).map(|(text, _)| text.clone()).ok_or_else(|| SourceError::new(format!("{location}: gone")))
    }
}

fn corpus(stamped: bool) -> Stamped {
    let mut files = Vec::new();
    skill_files(&shared().join("corpus"), &mut files);
    files.sort();
    let source = Stamped { stamped, ..Stamped::default() };
    for file in files {
        source.put(&file.to_string_lossy(), &std::fs::read_to_string(&file).unwrap(), None);
    }
    source
}

fn options() -> Options {
    let rank = RankOptions { headings: true, ..RankOptions::default() };
    Options { catalog: CatalogOptions { rank, ..CatalogOptions::default() }, ..Options::default() }
}

/// Everything a host can ask of an engine's catalogue, as text, to compare two whole.
fn answers<S: SkillSource>(engine: &Engine<S>) -> Vec<String> {
    let catalog = engine.catalog();
    let mut out = vec![
        format!("{:?}", catalog.skills()),
        format!("{:?}", catalog.shadowed()),
        format!("{:?}", catalog.report()),
        skillwire::render_catalog(catalog, CatalogFormat::AgentSkills, None).text,
    ];
    let dev = std::fs::read_to_string(shared().join("queries/dev.jsonl")).unwrap();
    let messages = dev.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["q"].to_string());
    let asked = ["@pdf@acme fill this form", "use the brand new skill", "polish my shiny widgets"];
    for message in messages.chain(asked.map(str::to_owned)) {
        out.push(format!("{:?}", catalog.turn(&message, &TurnContext::default()).unwrap().matches()));
        out.push(format!("{:?}", catalog.relevant(&message, &TurnContext::default(), 8).unwrap()));
    }
    out
}

const NEW: &str = "---\nname: brand-new\ndescription: A brand new skill for new things.\n---\nDo new things.\n";

#[test]
fn a_refresh_reads_only_what_changed_and_gives_the_catalogue_a_build_would() {
    let source = corpus(true);
    let mut engine = Engine::new(vec![source.clone()], options());
    let listed = source.skills.borrow().len();
    assert_eq!(source.reads.get(), listed);

    // Nothing changed: nothing is read, nothing differs.
    let before = answers(&engine);
    engine.refresh();
    assert_eq!(source.reads.get(), listed, "an unchanged entry was read again");
    assert!(answers(&engine) == before);

    let first = source.skills.borrow().keys().next().unwrap().clone();
    let pdf = source.skills.borrow().keys().find(|l| l.contains("/pdf/")).unwrap().clone();
    // Each step changes the sources, refreshes, and compares with a full build of them as
    // they are now; `reads` is how many entries the step should read.
    let steps: Vec<Step> = vec![
        (
            "an edit",
            1,
            Box::new(|s| {
                s.put(&first, "---\nname: edited\ndescription: Edited to merge PDF files.\n---\nNew.\n", None)
            }),
        ),
        ("an addition", 1, Box::new(|s| s.put("zz/new/SKILL.md", NEW, None))),
        // No field changes: the refresh takes the indexes as they were.
        ("a body edited", 1, Box::new(|s| s.put("zz/new/SKILL.md", &format!("{NEW}And old ones.\n"), None))),
        // Its "When to use" section is indexed: the indexes are made again.
        (
            "a body's When to use section added",
            1,
            Box::new(|s| s.put("zz/new/SKILL.md", &format!("{NEW}\n## When to use\n\nFor shiny widgets.\n"), None)),
        ),
        ("a removal", 0, Box::new(|s| drop(s.skills.borrow_mut().remove("zz/new/SKILL.md")))),
        // Placed before the corpus's pdf: it takes the name, the corpus's skill is shadowed.
        (
            "a name taken over",
            1,
            Box::new(|s| s.put("/0/pdf/SKILL.md", "---\nname: pdf\ndescription: Another pdf.\n---\nX.\n", None)),
        ),
        ("a name given back", 0, Box::new(|s| drop(s.skills.borrow_mut().remove("/0/pdf/SKILL.md")))),
        (
            "an origin's collision",
            1,
            Box::new(|s| {
                s.put("m/pdf/SKILL.md", "---\nname: pdf\ndescription: Acme's pdf.\n---\nAcme.\n", Some("acme"))
            }),
        ),
        ("a skill that stops loading", 1, Box::new(|s| s.put(&pdf, "---\nname: [unclosed\n---\n", None))),
        // Broken and left as it is: what did not load is reused too (nothing read).
        ("a broken skill left alone", 0, Box::new(|_| {})),
        (
            "a skill that loads again",
            1,
            Box::new(|s| s.put(&pdf, "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n", None)),
        ),
    ];
    for (step, reads, change) in steps {
        change(&source);
        let read_before = source.reads.get();
        engine.refresh();
        assert_eq!(source.reads.get() - read_before, reads, "{step}: entries read");
        let built = Engine::new(vec![source.copy()], options());
        assert!(answers(&engine) == answers(&built), "{step}: the refreshed catalogue differs from a build");
    }
}

#[test]
fn unstamped_entries_are_read_again() {
    let source = corpus(false);
    let mut engine = Engine::new(vec![source.clone()], options());
    let listed = source.skills.borrow().len();
    engine.refresh();
    assert_eq!(source.reads.get(), 2 * listed, "no stamps: every entry is read again");
}

#[test]
fn a_read_that_failed_is_tried_again() {
    let source = corpus(true);
    let location = source.skills.borrow().keys().next().unwrap().clone();
    let text = source.skills.borrow()[&location].0.clone();
    // Listed, then gone before it is read: skipped, with the source's reason.
    struct Flaky(Stamped, Cell<bool>);
    impl SkillSource for Flaky {
        fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
            self.0.list()
        }
        fn read(&self, location: &str) -> Result<String, SourceError> {
            match self.1.replace(false) {
                true => Err(SourceError::new(format!("{location}: busy"))),
                false => self.0.read(location),
            }
        }
    }
    let mut engine = Engine::new(vec![Flaky(source.clone(), Cell::new(true))], options());
    assert!(engine.catalog().report().skipped.iter().any(|s| s.reason.ends_with("busy")));
    let reads = source.reads.get();
    engine.refresh();
    assert_eq!(source.reads.get() - reads, 1, "the failed read is tried again, and only it");
    assert!(engine.catalog().report().skipped.is_empty());
    let entry = engine.catalog().skills().iter().find(|s| s.skill.location == location).unwrap();
    assert_eq!(entry.skill.name, skillwire::load(&location, &text, &Default::default()).skill.unwrap().name);
}

#[test]
fn an_entry_past_the_limit_is_read_once_there_is_room() {
    let source = corpus(true);
    let listed = source.skills.borrow().len();
    let mut limited = options();
    limited.catalog.limits.max_skills = listed - 1;
    let mut engine = Engine::new(vec![source.clone()], limited.clone());
    let last = source.skills.borrow().keys().last().unwrap().clone();
    assert!(engine.catalog().report().skipped.iter().any(|s| s.location == last), "the last entry is past the limit");
    let first = source.skills.borrow().keys().next().unwrap().clone();
    source.skills.borrow_mut().remove(&first);
    let reads = source.reads.get();
    engine.refresh();
    assert_eq!(source.reads.get() - reads, 1, "only the entry that was past the limit is read");
    let built = Engine::new(vec![source.copy()], limited);
    assert!(answers(&engine) == answers(&built));
}
