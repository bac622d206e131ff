//! Catalogue snapshots: a restored catalogue answers every query as the one it was taken
//! from, and a snapshot that is stale, foreign or damaged is refused, never trusted (nor
//! a panic). Prepared parts (the entries one instance prepares for another's build) too:
//! a catalogue built from them is the one built in one place.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::disallowed_methods)] // test code reads the shared corpus

use skillwire::{
    Catalog, CatalogFormat, CatalogInput, CatalogOptions, Engine, MemorySource, Options, RankOptions, ScanBodies,
    SnapshotError, TurnContext,
};

mod common;
use common::{shared, skill_files};

/// The corpus, then skills that leave a mark on every part of a catalogue: a shadowed
/// duplicate, a gated skill, a flagged one, one that does not load, one from an origin
/// whose name collides.
fn inputs() -> Vec<CatalogInput> {
    let mut files = Vec::new();
    skill_files(&shared().join("corpus"), &mut files);
    files.sort();
    let mut inputs: Vec<CatalogInput> = files
        .iter()
        .map(|f| CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: f.to_string_lossy().into_owned(),
            text: Ok(std::fs::read_to_string(f).unwrap()),
        })
        .collect();
    let extra = [
        ("x/pdf/SKILL.md", None, "---\nname: pdf\ndescription: A second pdf skill.\n---\nShadowed.\n"),
        ("x/jira/SKILL.md", None, "---\nname: jira-triage\ndescription: Triage Jira tickets.\nrequires: [jira]\n---\n"),
        (
            "x/hidden/SKILL.md",
            None,
            "---\nname: hidden-note\ndescription: Notes with a hidden\u{200b}character.\n---\n# When to use\nTaking meeting notes.\n",
        ),
        ("x/broken/SKILL.md", None, "---\nname: [unclosed\n---\n"),
        ("m/pdf/SKILL.md", Some("acme"), "---\nname: pdf\ndescription: Acme's pdf skill.\n---\nAcme.\n"),
    ];
    for (location, origin, text) in extra {
        inputs.push(CatalogInput {
            source: 1,
            id: None,
            origin: origin.map(str::to_owned),
            location: location.to_owned(),
            text: Ok(text.to_owned()),
        });
    }
    inputs
}

fn messages() -> Vec<String> {
    let dev = std::fs::read_to_string(shared().join("queries/dev.jsonl")).unwrap();
    let mut messages: Vec<String> = dev
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["q"].as_str().unwrap().to_owned())
        .collect();
    // (The last ranks the skill listed as `pdf@acme` by the words of its name as listed.)
    messages.extend(["@pdf@acme fill this form", "take notes in the meeting", "an acme document"].map(str::to_owned));
    messages
}

/// Everything a host can ask a catalogue, as text, so that two catalogues compare whole.
fn answers(catalog: &Catalog) -> Vec<String> {
    let mut out = vec![
        format!("{:?}", catalog.skills()),
        format!("{:?}", catalog.shadowed()),
        format!("{:?}", catalog.report()),
        format!("{:?}", catalog.embedding_texts()),
        skillwire::render_catalog(catalog, CatalogFormat::AgentSkills, None).text,
        format!("{:?}", catalog.complete("p", 20)),
        format!("{:?}", catalog.tools(&Default::default())),
    ];
    for message in messages() {
        let turn = catalog.turn(&message, &TurnContext::default()).unwrap();
        out.push(format!("{message}: {:?}", turn.matches()));
        out.push(format!("{:?}", catalog.relevant(&message, &TurnContext::default(), 8).unwrap()));
        let text = catalog.catalog_for(&message, &TurnContext::default(), 3, CatalogFormat::AgentSkills, None).unwrap();
        out.push(text.text);
    }
    out
}

fn options() -> CatalogOptions {
    // Headings ranked too, so the body's parts ranking reads must survive the snapshot.
    CatalogOptions { rank: RankOptions { headings: true, ..RankOptions::default() }, ..CatalogOptions::default() }
}

#[test]
fn a_restored_catalogue_answers_as_the_one_it_was_taken_from() {
    for options in [options(), CatalogOptions { scan_bodies: ScanBodies::WhenRead, ..CatalogOptions::default() }] {
        let built = Catalog::build(inputs(), &options);
        assert!(!built.shadowed().is_empty() && !built.report().gated.is_empty() && !built.report().flagged.is_empty());
        assert!(!built.report().skipped.is_empty());
        let bytes = built.snapshot("key-1").unwrap();
        let restored = Catalog::from_snapshot(&bytes, "key-1", &options).unwrap();
        let expected = answers(&built);
        assert!(answers(&restored) == expected, "a restored catalogue answers otherwise");
        // Taken again and restored, it still does: nothing is lost on the way.
        let again = restored.snapshot("key-1").unwrap();
        assert!(answers(&Catalog::from_snapshot(&again, "key-1", &options).unwrap()) == expected);
    }
}

#[test]
fn a_snapshot_is_refused_under_another_key_options_or_version() {
    let options = options();
    let bytes = Catalog::build(inputs(), &options).snapshot("key-1").unwrap();
    assert_eq!(Catalog::from_snapshot(&bytes, "key-2", &options).unwrap_err(), SnapshotError::OtherKey);
    let other = CatalogOptions { available: vec!["jira".to_owned()], ..options.clone() };
    assert_eq!(Catalog::from_snapshot(&bytes, "key-1", &other).unwrap_err(), SnapshotError::OtherOptions);
    // The version is written as text in the header: another one (another release, or a
    // build of other sources) is refused before the rest is read.
    let version = format!("{} (snapshot format 5, source ", env!("CARGO_PKG_VERSION"));
    let at = bytes.windows(version.len()).position(|w| w == version.as_bytes()).unwrap();
    for offset in [0, version.len() + 3] {
        let mut other = bytes.clone();
        other[at + offset] = if other[at + offset] == b'0' { b'1' } else { b'0' };
        assert!(matches!(Catalog::from_snapshot(&other, "key-1", &options), Err(SnapshotError::OtherVersion { .. })));
    }
    // The header alone says so too, without the catalogue being decoded.
    assert_eq!(Catalog::check_snapshot(&bytes, "key-1", &options), Ok(()));
    assert_eq!(Catalog::check_snapshot(&bytes, "key-2", &options), Err(SnapshotError::OtherKey));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(Catalog::from_snapshot(&longer, "key-1", &options), Err(SnapshotError::Unreadable(_))));
    assert!(matches!(Catalog::from_snapshot(b"not a snapshot", "key-1", &options), Err(SnapshotError::Unreadable(_))));
}

#[test]
fn a_damaged_snapshot_is_refused_never_a_panic() {
    let options = CatalogOptions::default();
    let inputs: Vec<CatalogInput> = inputs().into_iter().rev().take(4).collect();
    let bytes = Catalog::build(inputs, &options).snapshot("k").unwrap();
    // Every cut is refused.
    for len in 0..bytes.len() {
        assert!(Catalog::from_snapshot(&bytes[..len], "k", &options).is_err(), "cut at {len}");
    }
    // Every byte changed, anywhere: refused (the header's fields, or the body's checksum).
    for at in 0..bytes.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            assert!(Catalog::from_snapshot(&damaged, "k", &options).is_err(), "byte {at} ^ {flip:#x} was taken");
        }
    }
}

#[test]
fn an_engine_restores_without_reading_its_sources_and_builds_when_it_cannot() {
    let mut skills = MemorySource::new();
    skills.insert("s/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n");
    let engine = Engine::new(vec![skills.clone()], Options::default());
    let bytes = engine.snapshot("v1").unwrap();
    // The snapshot is used: the source it is given now holds another skill, which the
    // restored catalogue does not list (the key is the host's promise that nothing changed).
    let mut changed = MemorySource::new();
    changed.insert("s/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pypdf.\n");
    changed.insert("s/xlsx/SKILL.md", "---\nname: xlsx\ndescription: Spreadsheets.\n---\nUse openpyxl.\n");
    let (restored, used) = Engine::restore_or_build(vec![changed.clone()], Options::default(), &bytes, "v1");
    assert_eq!(used, Ok(()));
    assert_eq!(restored.catalog().skills().len(), 1);
    // Embeddings are not kept; set again, they rank as on a built catalogue.
    let mut restored = restored;
    assert_eq!(restored.set_embeddings(vec![("pdf".to_owned(), vec![1.0, 0.0])]), Ok(1));
    let turn = restored.inject("fill the pdf form", &TurnContext::default()).unwrap();
    assert!(turn.user_message.contains("Use pypdf."), "{}", turn.user_message);
    // Under another key it builds from the sources, and says why.
    let (built, used) = Engine::restore_or_build(vec![changed], Options::default(), &bytes, "v2");
    assert_eq!(used, Err(SnapshotError::OtherKey));
    assert_eq!(built.catalog().skills().len(), 2);
}

#[test]
fn a_catalogue_that_could_not_read_an_entry_is_never_restored_as_is_but_refreshed() {
    use std::cell::Cell;
    // A read that failed may succeed next time: the snapshot says so, and is refreshed.
    let mut inputs: Vec<CatalogInput> = inputs().into_iter().rev().take(2).collect();
    inputs.push(CatalogInput {
        source: 0,
        id: None,
        origin: None,
        location: "s/gone/SKILL.md".to_owned(),
        text: Err(skillwire::SourceError::new("Input/output error")),
    });
    let catalog = Catalog::build(inputs, &CatalogOptions::default());
    let bytes = catalog.snapshot("k").unwrap();
    assert_eq!(
        Catalog::from_snapshot(&bytes, "k", &CatalogOptions::default()).unwrap_err(),
        SnapshotError::Unread { entries: 1 }
    );
    // An engine whose source failed to read one entry, then answers: the restore reads that
    // entry again, and only it.
    struct Flaky(Cell<bool>, Cell<usize>);
    impl skillwire::SkillSource for Flaky {
        fn list(&self) -> Result<Vec<skillwire::SkillEntry>, skillwire::SourceError> {
            let entry = |l: &str| skillwire::SkillEntry::new(l).with_stamp("1");
            Ok(vec![entry("s/pdf/SKILL.md"), entry("s/sql/SKILL.md")])
        }
        fn read(&self, location: &str) -> Result<String, skillwire::SourceError> {
            self.1.set(self.1.get() + 1);
            if location.contains("sql") && self.0.replace(false) {
                return Err(skillwire::SourceError::new("busy".to_owned()));
            }
            let name = location.split('/').nth(1).unwrap_or_default();
            Ok(format!("---\nname: {name}\ndescription: The {name} skill.\n---\nUse it.\n"))
        }
    }
    let engine = Engine::new(vec![Flaky(Cell::new(true), Cell::new(0))], Options::default());
    assert_eq!(engine.catalog().report().loaded, 1);
    let bytes = engine.snapshot("k").unwrap();
    let (restored, used) =
        Engine::restore_or_build(vec![Flaky(Cell::new(false), Cell::new(0))], Options::default(), &bytes, "k");
    assert_eq!(used, Err(SnapshotError::Unread { entries: 1 }));
    assert_eq!(restored.catalog().report().loaded, 2, "the entry that failed is read again");
    assert!(restored.catalog().report().skipped.is_empty());
    // A skill that does not load (its text is there, and wrong) is restored as skipped.
    let broken = CatalogInput {
        source: 0,
        id: None,
        origin: None,
        location: "s/broken/SKILL.md".to_owned(),
        text: Ok("---\nname: [unclosed\n---\n".to_owned()),
    };
    let catalog = Catalog::build(vec![broken], &CatalogOptions::default());
    let restored = Catalog::from_snapshot(&catalog.snapshot("k").unwrap(), "k", &CatalogOptions::default()).unwrap();
    assert_eq!(restored.report().skipped, catalog.report().skipped);
}

#[test]
fn options_that_never_compare_equal_still_restore() {
    // NaN is not equal to itself: options are compared field by field, a NaN matching
    // a NaN in the same field (here in several fields at once).
    let nan = f64::NAN;
    let rank = RankOptions { min_ratio: nan, min_score: nan, semantic_weight: nan, ..RankOptions::default() };
    let options = CatalogOptions { rank, ..CatalogOptions::default() };
    let inputs: Vec<CatalogInput> = inputs().into_iter().rev().take(2).collect();
    let bytes = Catalog::build(inputs, &options).snapshot("k").unwrap();
    assert!(Catalog::from_snapshot(&bytes, "k", &options).is_ok());
    assert_eq!(
        Catalog::from_snapshot(&bytes, "k", &CatalogOptions::default()).unwrap_err(),
        SnapshotError::OtherOptions
    );
    // One of the NaNs a number: other options.
    let one_less = CatalogOptions { rank: RankOptions { semantic_weight: 30.0, ..options.rank.clone() }, ..options };
    assert_eq!(Catalog::from_snapshot(&bytes, "k", &one_less).unwrap_err(), SnapshotError::OtherOptions);
}

#[test]
fn a_refused_entry_is_kept_while_its_stamp_holds_and_its_catalogue_restores_as_is() {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    /// A skill, and an entry its source refuses for what it is (too large); both stamped,
    /// reads counted.
    struct Refusing(Rc<RefCell<String>>, Rc<Cell<usize>>);
    impl skillwire::SkillSource for Refusing {
        fn list(&self) -> Result<Vec<skillwire::SkillEntry>, skillwire::SourceError> {
            let huge = skillwire::SkillEntry::new("s/huge/SKILL.md").with_stamp(self.0.borrow().clone());
            Ok(vec![skillwire::SkillEntry::new("s/pdf/SKILL.md").with_stamp("1"), huge])
        }
        fn read(&self, location: &str) -> Result<String, skillwire::SourceError> {
            self.1.set(self.1.get() + 1);
            match location.contains("huge") {
                true => Err(skillwire::SourceError::refusal("SKILL.md is 9000000 bytes; the limit is 1048576")),
                false => Ok("---\nname: pdf\ndescription: Merge PDF files.\n---\nUse qpdf.\n".to_owned()),
            }
        }
    }
    let (stamp, reads) = (Rc::new(RefCell::new("1".to_owned())), Rc::new(Cell::new(0)));
    let mut engine = Engine::new(vec![Refusing(Rc::clone(&stamp), Rc::clone(&reads))], Options::default());
    let skipped = engine.catalog().report().skipped.clone();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].reason, "SKILL.md is 9000000 bytes; the limit is 1048576");
    assert_eq!(skipped[0].diagnostics[0].code, "unreadable");
    // It lasts while the file does not change: the snapshot is restored as it is.
    let bytes = engine.snapshot("k").unwrap();
    let restored = Catalog::from_snapshot(&bytes, "k", &CatalogOptions::default()).unwrap();
    assert_eq!(restored.report().skipped, skipped);
    // A refresh reads neither entry again while their stamps hold...
    assert_eq!(reads.get(), 2);
    engine.refresh();
    assert_eq!((reads.get(), engine.catalog().report().skipped.clone()), (2, skipped));
    // ...and the refused one again once its stamp changed.
    *stamp.borrow_mut() = "2".to_owned();
    engine.refresh();
    assert_eq!(reads.get(), 3);
}

#[test]
fn a_snapshot_under_another_key_is_refreshed_reading_only_the_entries_whose_stamp_changed() {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    /// Entries stamped with their text's length; reads counted.
    struct Stamped(RefCell<Vec<(String, String)>>, Rc<Cell<usize>>);
    impl skillwire::SkillSource for Stamped {
        fn list(&self) -> Result<Vec<skillwire::SkillEntry>, skillwire::SourceError> {
            let entries = self.0.borrow();
            Ok(entries.iter().map(|(l, t)| skillwire::SkillEntry::new(l).with_stamp(t.len().to_string())).collect())
        }
        fn read(&self, location: &str) -> Result<String, skillwire::SourceError> {
            self.1.set(self.1.get() + 1);
            let entries = self.0.borrow();
            let text = entries.iter().find(|(l, _)| l == location).map(|(_, t)| t.clone());
            text.ok_or_else(|| skillwire::SourceError::new("gone".to_owned()))
        }
    }
    let texts: Vec<(String, String)> = inputs().into_iter().take(60).map(|i| (i.location, i.text.unwrap())).collect();
    let source = Stamped(RefCell::new(texts.clone()), Rc::default());
    let bytes = Engine::new(vec![source], Options::default()).snapshot("v1").unwrap();
    // One skill edited (its stamp changes), one removed.
    let mut now = texts.clone();
    now[3].1.push_str("\nOne more line.\n");
    now.remove(10);
    let reads = Rc::new(Cell::new(0));
    let source = Stamped(RefCell::new(now.clone()), Rc::clone(&reads));
    let (refreshed, used) = Engine::restore_or_build(vec![source], Options::default(), &bytes, "v2");
    assert_eq!(used, Err(SnapshotError::OtherKey));
    assert_eq!(reads.get(), 1, "only the edited entry is read");
    let built = Engine::new(vec![Stamped(RefCell::new(now.clone()), Rc::default())], Options::default());
    assert!(answers(refreshed.catalog()) == answers(built.catalog()), "the refreshed catalogue is the built one");

    // From that catalogue's snapshot: a body edited (no field changes: the snapshot's
    // ranking index is taken as it is), then a description edited (it is made again).
    let mut bytes = refreshed.snapshot("v2").unwrap();
    let description = now[7].1.find("description:").unwrap() + "description:".len();
    type Edit = Box<dyn Fn(&mut String)>;
    let edits: [(&str, Edit); 2] = [
        ("a body", Box::new(|text: &mut String| text.push_str("\nAnd one more.\n"))),
        ("a description", Box::new(move |text: &mut String| text.insert_str(description, " Zebra wrangling."))),
    ];
    for (key, (what, edit)) in ["v3", "v4"].into_iter().zip(edits) {
        edit(&mut now[7].1);
        let source = Stamped(RefCell::new(now.clone()), Rc::default());
        let (refreshed, used) = Engine::restore_or_build(vec![source], Options::default(), &bytes, key);
        assert!(used.is_err(), "{what}: a snapshot under another key is refreshed");
        let built = Engine::new(vec![Stamped(RefCell::new(now.clone()), Rc::default())], Options::default());
        assert!(answers(refreshed.catalog()) == answers(built.catalog()), "{what}: refreshed differs from built");
        // The edited description's words rank its skill (an index kept wrongly would not).
        let zebra = |engine: &Engine<Stamped>| {
            engine.catalog().relevant("help with zebra wrangling", &TurnContext::default(), 3).unwrap()
        };
        assert_eq!(format!("{:?}", zebra(&refreshed)), format!("{:?}", zebra(&built)), "{what}");
        bytes = refreshed.snapshot(key).unwrap();
    }
}

/// A host's entries: `(source, entry, text)` rows.
type Table = std::rc::Rc<Vec<(usize, skillwire::SkillEntry, String)>>;

/// Entries listed from a shared [`Table`], each source listing the rows of its index
/// within `rows`; reads counted.
struct Rows {
    table: Table,
    index: usize,
    rows: std::ops::Range<usize>,
    reads: std::rc::Rc<std::cell::Cell<usize>>,
}

impl skillwire::SkillSource for Rows {
    fn list(&self) -> Result<Vec<skillwire::SkillEntry>, skillwire::SourceError> {
        let rows = self.table.get(self.rows.clone()).unwrap_or_default();
        Ok(rows.iter().filter(|(source, ..)| *source == self.index).map(|(_, entry, _)| entry.clone()).collect())
    }
    fn read(&self, location: &str) -> Result<String, skillwire::SourceError> {
        self.reads.set(self.reads.get() + 1);
        let row = self.table.iter().find(|(source, entry, _)| *source == self.index && entry.location == location);
        row.map(|(_, _, text)| text.clone()).ok_or_else(|| skillwire::SourceError::new("gone"))
    }
}

/// `inputs()` as two sources' rows, stamped with their text's length, except every
/// seventh (a host's entry it cannot stamp).
fn rows() -> Table {
    let rows = inputs().into_iter().enumerate().map(|(n, input)| {
        let text = input.text.unwrap();
        let mut entry = skillwire::SkillEntry::new(input.location);
        entry.origin = input.origin;
        if n % 7 != 3 {
            entry = entry.with_stamp(text.len().to_string());
        }
        (input.source, entry, text)
    });
    std::rc::Rc::new(rows.collect())
}

/// The table's two sources, listing `rows` of it.
fn sources_of(table: &Table, rows: std::ops::Range<usize>, reads: &std::rc::Rc<std::cell::Cell<usize>>) -> Vec<Rows> {
    let source = |index| Rows { table: table.clone(), index, rows: rows.clone(), reads: reads.clone() };
    vec![source(0), source(1)]
}

#[test]
fn a_catalogue_built_from_prepared_parts_is_the_one_built_in_one_place() {
    let at_build = Options { catalog: options(), ..Options::default() };
    let when_read =
        Options { catalog: CatalogOptions { scan_bodies: ScanBodies::WhenRead, ..options() }, ..at_build.clone() };
    // Fewer skills allowed than listed: the build decides what the limit leaves out.
    let mut limited = at_build.clone();
    limited.catalog.limits.max_skills = 100;
    for (n, options) in [at_build, when_read, limited].into_iter().enumerate() {
        let table = rows();
        let reads = std::rc::Rc::default();
        let whole = Engine::new(sources_of(&table, 0..table.len(), &reads), options.clone());
        let expected = answers(whole.catalog());
        // Three parts, the second across the two sources (the extra skills are source 1).
        let cuts = [0, 90, table.len() - 2, table.len()];
        let parts: Vec<Vec<u8>> = (cuts.windows(2))
            .map(|cut| Catalog::prepare_part(&sources_of(&table, cut[0]..cut[1], &reads), &options.catalog).unwrap())
            .collect();
        // The same parts taken one at a time, in either order, each part's skills read for
        // ranking as it is taken: the same catalogue, reading only the unstamped entries.
        let unstamped = table.iter().filter(|(_, entry, _)| entry.stamp.is_none()).count();
        for reversed in [false, true] {
            let mut build = skillwire::PartsBuild::new(&options.catalog);
            let mut in_turn = parts.clone();
            if reversed {
                in_turn.reverse();
            }
            for part in in_turn {
                build.take(part).unwrap();
            }
            let reads = std::rc::Rc::default();
            let (one_by_one, taken) =
                Engine::from_parts_build(sources_of(&table, 0..table.len(), &reads), options.clone(), build);
            assert_eq!(taken, Ok(()));
            assert!(answers(one_by_one.catalog()) == expected, "parts taken one at a time (reversed: {reversed})");
            assert!(n == 2 || reads.get() == unstamped, "{} read", reads.get());
        }
        let reads = std::rc::Rc::default();
        let (built, taken) = Engine::from_parts(sources_of(&table, 0..table.len(), &reads), options.clone(), parts);
        assert_eq!(taken, Ok(()));
        assert!(answers(built.catalog()) == expected, "a build from parts answers otherwise");
        if n == 2 {
            assert!(built.catalog().report().skipped.iter().any(|s| s.reason.contains("the limit")));
            // The parts were taken: the entries they prepared within the limit are not read.
            assert!(reads.get() < 100, "{}", reads.get());
            continue;
        }
        // Only the entries without a stamp were read.
        assert_eq!(reads.get(), unstamped);
        // A refresh of it reads nothing it prepared again (its stamps are the build's).
        let mut refreshed = built;
        refreshed.refresh();
        assert_eq!(reads.get(), 2 * unstamped);
        assert!(answers(refreshed.catalog()) == expected);
    }
}

/// Engines built from `parts` both ways — handed over at once ([`Engine::from_parts`]) and
/// taken one at a time ([`skillwire::PartsBuild`]) — each with the first reason a part was
/// not taken, and how many entries the build read.
fn built_from_parts(
    table: &Table,
    options: &Options,
    parts: &[Vec<u8>],
) -> Vec<(Engine<Rows>, Result<(), SnapshotError>, usize)> {
    let reads = std::rc::Rc::default();
    let (at_once, taken) =
        Engine::from_parts(sources_of(table, 0..table.len(), &reads), options.clone(), parts.to_vec());
    let mut built = vec![(at_once, taken, reads.get())];
    let mut build = skillwire::PartsBuild::new(&options.catalog);
    let refused: Vec<SnapshotError> = parts.iter().filter_map(|part| build.take(part.clone()).err()).collect();
    let reads = std::rc::Rc::default();
    let (one_by_one, taken) =
        Engine::from_parts_build(sources_of(table, 0..table.len(), &reads), options.clone(), build);
    built.push((one_by_one, refused.into_iter().next().map_or(taken, Err), reads.get()));
    built
}

#[test]
fn a_part_that_does_not_fit_is_not_taken_and_its_entries_are_read() {
    let options = Options { catalog: options(), ..Options::default() };
    let table = rows();
    let reads = std::rc::Rc::default();
    let expected = answers(Engine::new(sources_of(&table, 0..table.len(), &reads), options.clone()).catalog());
    let part = Catalog::prepare_part(&sources_of(&table, 0..table.len(), &reads), &options.catalog).unwrap();
    let other = CatalogOptions { available: vec!["jira".to_owned()], ..options.catalog.clone() };
    let foreign = Catalog::prepare_part(&sources_of(&table, 0..table.len(), &reads), &other).unwrap();
    let mut cut = part.clone();
    cut.truncate(part.len() / 2);
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let mut older = part.clone();
    let at = older.windows(version.len()).position(|w| w == version).unwrap();
    older[at] = if older[at] == b'0' { b'1' } else { b'0' };
    type Expected = fn(&SnapshotError) -> bool;
    let cases: [(&[u8], Expected); 4] = [
        (&foreign, |e| *e == SnapshotError::OtherOptions),
        (&cut, |e| matches!(e, SnapshotError::Unreadable(_))),
        (b"skillwire prepared entries\n\xff\xff", |e| matches!(e, SnapshotError::Unreadable(_))),
        (&older, |e| matches!(e, SnapshotError::OtherVersion { .. })),
    ];
    for (bytes, expected_error) in cases {
        for (built, taken, reads) in built_from_parts(&table, &options, &[bytes.to_vec()]) {
            assert!(taken.as_ref().is_err_and(expected_error), "{taken:?}");
            assert_eq!(reads, table.len(), "every entry is read");
            assert!(answers(built.catalog()) == expected);
        }
    }
    // Parts taken one at a time for other options than the build's: none is taken.
    let mut build = skillwire::PartsBuild::new(&other);
    build.take(foreign.clone()).unwrap();
    let reads = std::rc::Rc::default();
    let (built, taken) = Engine::from_parts_build(sources_of(&table, 0..table.len(), &reads), options.clone(), build);
    assert_eq!(taken, Err(SnapshotError::OtherOptions));
    assert_eq!(reads.get(), table.len(), "every entry is read");
    assert!(answers(built.catalog()) == expected);
    // An entry two parts prepared is taken from neither (here three: one part thrice).
    let thrice = [part.clone(), part.clone(), part.clone()];
    for (built, taken, reads) in built_from_parts(&table, &options, &thrice) {
        assert_eq!(taken, Ok(()));
        assert_eq!(reads, table.len(), "every entry is read");
        assert!(answers(built.catalog()) == expected);
    }
    // An entry whose stamp changed since it was prepared is read: its new text counts
    // (for ranking too: the words its part's skill was read with are not its words).
    let mut edited: Vec<_> = table.iter().cloned().collect();
    let (_, entry, text) = &mut edited[5];
    *text = text.replace("description:", "description: Zebra wrangling.");
    *entry = entry.clone().with_stamp("edited");
    let edited = std::rc::Rc::new(edited);
    let whole = Engine::new(sources_of(&edited, 0..edited.len(), &std::rc::Rc::default()), options.clone());
    let unstamped = table.iter().filter(|(_, entry, _)| entry.stamp.is_none()).count();
    for (built, taken, reads) in built_from_parts(&edited, &options, std::slice::from_ref(&part)) {
        assert_eq!(taken, Ok(()));
        assert_eq!(reads, unstamped + 1);
        assert!(answers(built.catalog()) == answers(whole.catalog()));
        assert!(answers(built.catalog()) != expected);
        // The edited description's words rank its skill (a reading of the old text would not).
        let zebra = |engine: &Engine<Rows>| {
            engine.catalog().relevant("help with zebra wrangling", &TurnContext::default(), 3).unwrap()
        };
        assert_eq!(format!("{:?}", zebra(&built)), format!("{:?}", zebra(&whole)));
    }
}
