//! Per-turn cost and catalogue build time across catalogue sizes.
//!
//!     cargo bench -p skillwire --bench turn
//!
//! Catalogues of 10, 100, 1,000 and 10,000 skills are made from the real corpus in
//! `../shared/corpus` (or `$SKILLWIRE_SHARED/corpus`: third-party data kept outside the
//! repository; repeated with renamed copies past its size; `scripts/bench-inputs` writes the same
//! catalogues as folders for `skillwire bench`); messages of about
//! 100 B, 1 KB and 4 KB are built from the labelled dev messages. `turn_matches` is the
//! per-turn work that does not depend on reading bodies (rules and ranking).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::disallowed_methods)]

mod common;

use common::{corpus_files, inputs, inputs_with_distinct_descriptions, message, shared, with_first_word};
use skillwire::{Catalog, CatalogInput, CatalogOptions, RankOptions, ScanBodies, TurnContext};
use std::path::PathBuf;

fn main() {
    divan::main();
}

const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_build(bencher: divan::Bencher, size: usize) {
    let inputs = inputs(size);
    bencher.with_inputs(|| inputs.clone()).bench_values(|i| Catalog::build(i, &CatalogOptions::default()));
}

/// The same builds with `scan_bodies: when-read`: frontmatter scanned at build, each body
/// as a turn reads it.
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_build_scan_bodies_when_read(bencher: divan::Bencher, size: usize) {
    let inputs = inputs(size);
    let options = CatalogOptions { scan_bodies: ScanBodies::WhenRead, ..CatalogOptions::default() };
    bencher.with_inputs(|| inputs.clone()).bench_values(|i| Catalog::build(i, &options));
}

/// Builds of catalogues whose copies have descriptions of their own (the rule automaton
/// holds every different description).
#[divan::bench(args = [1_000, 10_000], sample_count = 10)]
fn catalogue_build_distinct_descriptions(bencher: divan::Bencher, size: usize) {
    let inputs = inputs_with_distinct_descriptions(size);
    bencher.with_inputs(|| inputs.clone()).bench_values(|i| Catalog::build(i, &CatalogOptions::default()));
}

/// Restoring a catalogue from its snapshot (`Catalog::from_snapshot`): what a host that
/// keeps the catalogue between processes pays instead of a build.
#[cfg(feature = "snapshot")]
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_restore(bencher: divan::Bencher, size: usize) {
    let options = CatalogOptions::default();
    let snapshot = Catalog::build(inputs(size), &options).snapshot("bench").unwrap();
    bencher.bench(|| Catalog::from_snapshot(&snapshot, "bench", &options).unwrap());
}

/// A stamped source over the bench inputs: entry `changed` gets a new stamp (and text)
/// each time the source is listed, the others keep theirs. The new text has a line added
/// to its body or, with `description`, a word added to its description.
struct Stamped {
    inputs: Vec<CatalogInput>,
    changed: usize,
    listings: std::rc::Rc<std::cell::Cell<usize>>,
    description: bool,
}

impl skillwire::SkillSource for Stamped {
    fn list(&self) -> Result<Vec<skillwire::SkillEntry>, skillwire::SourceError> {
        let listing = self.listings.get() + 1;
        self.listings.set(listing);
        let stamp = |i: usize| if i == self.changed { format!("{i}-{listing}") } else { i.to_string() };
        Ok(self
            .inputs
            .iter()
            .enumerate()
            .map(|(i, input)| skillwire::SkillEntry::new(&input.location).with_stamp(stamp(i)))
            .collect())
    }
    fn read(&self, location: &str) -> Result<String, skillwire::SourceError> {
        let input = self.inputs.iter().find(|i| i.location == location);
        let text =
            input.and_then(|i| i.text.clone().ok()).ok_or_else(|| skillwire::SourceError::new("gone".to_owned()))?;
        let listing = self.listings.get();
        Ok(match self.description {
            true => with_first_word(&text, &format!("edited{listing}")),
            false => format!("{text}\nEdited {listing}.\n"),
        })
    }
}

/// Refreshing an engine after one skill's body changed (`Engine::refresh` over stamped
/// entries): one SKILL.md read, loaded and scanned; the rest reused, the indexes kept.
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_refresh_one_changed(bencher: divan::Bencher, size: usize) {
    let listings = std::rc::Rc::new(std::cell::Cell::new(0));
    let source = Stamped { inputs: inputs(size), changed: size / 2, listings, description: false };
    let mut engine = skillwire::Engine::new(vec![source], skillwire::Options::default());
    bencher.bench_local(|| engine.refresh());
}

/// The same edit given to the engine as one changed entry (`Engine::update`, what a host
/// with a file watcher calls), its text at hand: nothing listed nor read, the skill taken in
/// place.
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_update_one_changed(bencher: divan::Bencher, size: usize) {
    bench_updates(bencher, size, |original, edit| format!("{original}\nEdited {edit}.\n"), true);
}

/// One skill's description edited, given to the engine as one changed entry with its text:
/// taken in place and both indexes made again around it (nothing listed nor read).
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_update_description_changed(bencher: divan::Bencher, size: usize) {
    bench_updates(bencher, size, |original, edit| description_edited(original, &format!("edited{edit}")), false);
}

/// `Engine::update` with the middle skill's text as `edit` makes it from the original and
/// the edit's number, given with its text; `in_place`: what each update returns (true: taken
/// with nothing else changed; false here: the indexes made again). Asserts that no update
/// refreshed (listed the source).
fn bench_updates(bencher: divan::Bencher, size: usize, edit: impl Fn(&str, usize) -> String, in_place: bool) {
    let listings = std::rc::Rc::new(std::cell::Cell::new(0));
    let source = Stamped { inputs: inputs(size), changed: size / 2, listings: listings.clone(), description: false };
    let changed = &source.inputs[size / 2];
    let (location, original) = (changed.location.clone(), changed.text.clone().unwrap_or_default());
    let mut engine = skillwire::Engine::new(vec![source], skillwire::Options::default());
    let mut count = 0;
    bencher.bench_local(|| {
        count += 1;
        let text = edit(&original, count);
        let entry = skillwire::SkillEntry::new(&location).with_stamp(format!("edit-{count}")).with_text(text);
        assert_eq!(engine.update(0, entry), in_place);
    });
    assert_eq!(listings.get(), 1, "an update refreshed");
}

/// One skill taken out, the middle one (`Catalog::remove_entry`: a SKILL.md deleted, the
/// sources not listed): both indexes made again around the skills left.
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_remove_one(bencher: divan::Bencher, size: usize) {
    let listings = std::rc::Rc::new(std::cell::Cell::new(0));
    let source = Stamped { inputs: inputs(size), changed: usize::MAX, listings, description: false };
    let location = source.inputs[size / 2].location.clone();
    let catalog = skillwire::Engine::new(vec![source], skillwire::Options::default()).catalog().clone();
    bencher.with_inputs(|| catalog.clone()).bench_local_values(|mut catalog| {
        assert_eq!(catalog.remove_entry(0, &location), skillwire::EntryUpdate::Reindexed);
        catalog
    });
}

/// A word added to the description of `text` (a SKILL.md whose description is on one line,
/// as the corpus's are), inside its quotes when it has them.
fn description_edited(text: &str, word: &str) -> String {
    let start = text.find("\ndescription:").expect("a description") + 1;
    let end = start + text[start..].find('\n').expect("a line");
    let line = &text[start..end];
    let edited = match line.strip_suffix('"') {
        Some(quoted) => format!("{quoted} {word}\""),
        None => format!("{line} {word}"),
    };
    format!("{}{edited}{}", &text[..start], &text[end..])
}

/// A stamped source over the bench inputs whose entry `toggled` is listed every other
/// time: each refresh adds it or removes it, nothing else changing.
struct Toggling {
    inputs: Vec<CatalogInput>,
    toggled: usize,
    listings: std::cell::Cell<usize>,
}

impl skillwire::SkillSource for Toggling {
    fn list(&self) -> Result<Vec<skillwire::SkillEntry>, skillwire::SourceError> {
        let listing = self.listings.get() + 1;
        self.listings.set(listing);
        let listed = |i: &usize| *i != self.toggled || listing % 2 == 1;
        Ok((0..self.inputs.len())
            .filter(listed)
            .map(|i| skillwire::SkillEntry::new(&self.inputs[i].location).with_stamp(i.to_string()))
            .collect())
    }
    fn read(&self, location: &str) -> Result<String, skillwire::SourceError> {
        let input = self.inputs.iter().find(|i| i.location == location);
        input.and_then(|i| i.text.clone().ok()).ok_or_else(|| skillwire::SourceError::new("gone".to_owned()))
    }
}

/// Refreshing an engine after one skill was added or removed (alternately: the middle
/// skill is listed every other time), the other entries' stamps unchanged.
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_refresh_one_added_or_removed(bencher: divan::Bencher, size: usize) {
    let source = Toggling { inputs: inputs(size), toggled: size / 2, listings: std::cell::Cell::new(0) };
    let mut engine = skillwire::Engine::new(vec![source], skillwire::Options::default());
    bencher.bench_local(|| engine.refresh());
}

/// The same after one skill's description changed, through a refresh.
#[divan::bench(args = SIZES, sample_count = 10)]
fn catalogue_refresh_description_changed(bencher: divan::Bencher, size: usize) {
    let listings = std::rc::Rc::new(std::cell::Cell::new(0));
    let source = Stamped { inputs: inputs(size), changed: size / 2, listings, description: true };
    let mut engine = skillwire::Engine::new(vec![source], skillwire::Options::default());
    bencher.bench_local(|| engine.refresh());
}

#[divan::bench(consts = [100, 1_000, 4_000], args = SIZES)]
fn turn_matches<const BYTES: usize>(bencher: divan::Bencher, size: usize) {
    let catalog = Catalog::build(inputs(size), &CatalogOptions::default());
    let message = message(BYTES);
    bencher.bench(|| catalog.turn(divan::black_box(&message), &TurnContext::default()).unwrap().matches());
}

/// 1 KB turns over catalogues whose copies have descriptions of their own.
#[divan::bench(args = [1_000, 10_000])]
fn turn_matches_distinct_descriptions(bencher: divan::Bencher, size: usize) {
    let catalog = Catalog::build(inputs_with_distinct_descriptions(size), &CatalogOptions::default());
    let descriptions: std::collections::HashSet<&str> =
        catalog.skills().iter().map(|s| s.skill.description.as_str()).collect();
    assert!(descriptions.len() * 100 >= size * 99, "{} different descriptions", descriptions.len());
    let message = message(1_000);
    bencher.bench(|| catalog.turn(divan::black_box(&message), &TurnContext::default()).unwrap().matches());
}

/// The same turns with ranking off: what the substring rules alone cost.
#[divan::bench(consts = [100, 1_000, 4_000], args = SIZES)]
fn turn_matches_rules_only<const BYTES: usize>(bencher: divan::Bencher, size: usize) {
    let options =
        CatalogOptions { rank: RankOptions { enabled: false, ..RankOptions::default() }, ..Default::default() };
    let catalog = Catalog::build(inputs(size), &options);
    let message = message(BYTES);
    bencher.bench(|| catalog.turn(divan::black_box(&message), &TurnContext::default()).unwrap().matches());
}

/// The same 1 KB turns, rules only, after eight description edits taken in place, each
/// with a new first word: what searching the small automaton of the texts edits brought
/// (`select/rules/edits.rs`) adds to a turn, until the automaton is made whole again (from
/// 256 skills: a smaller catalogue makes it whole at each edit).
#[divan::bench(args = SIZES)]
fn turn_matches_rules_only_after_edits(bencher: divan::Bencher, size: usize) {
    let rank = RankOptions { enabled: false, ..RankOptions::default() };
    let catalog = CatalogOptions { rank, ..CatalogOptions::default() };
    let options = skillwire::Options { catalog, ..skillwire::Options::default() };
    let listings = std::rc::Rc::new(std::cell::Cell::new(0));
    let source = Stamped { inputs: inputs(size), changed: usize::MAX, listings: listings.clone(), description: false };
    let texts: Vec<(String, String)> =
        source.inputs.iter().map(|input| (input.location.clone(), input.text.clone().unwrap())).collect();
    let mut engine = skillwire::Engine::new(vec![source], options);
    // Eight skills spread over the catalogue whose descriptions stay under the standard's
    // 1,024 characters with a word more (past it, the edit would add a warning: a refresh).
    let short: Vec<&(String, String)> = (engine.catalog().skills().iter())
        .filter(|s| s.skill.description.len() < 1_000)
        .filter_map(|s| texts.iter().find(|(location, _)| *location == s.skill.location))
        .collect();
    let edited: Vec<&(String, String)> = (0..8.min(short.len())).map(|k| short[k * short.len() / 8]).collect();
    for (k, (location, text)) in edited.iter().enumerate() {
        let text = with_first_word(text, &format!("edited{k}"));
        let entry = skillwire::SkillEntry::new(location).with_stamp(format!("edit-{k}")).with_text(text);
        assert!(!engine.update(0, entry), "a description edit was taken with nothing else changed");
    }
    assert_eq!(listings.get(), 1, "an update refreshed");
    let message = message(1_000);
    let catalog = engine.catalog();
    bencher.bench(|| catalog.turn(divan::black_box(&message), &TurnContext::default()).unwrap().matches());
}

/// The safety scan over the whole corpus (250 SKILL.md files, 5.3 MB): what it adds to
/// building a catalogue, and per byte to each body a turn injects.
#[divan::bench(sample_count = 10)]
fn scan_corpus(bencher: divan::Bencher) {
    let texts: Vec<String> = inputs(250).into_iter().map(|i| i.text.unwrap()).collect();
    let policy = skillwire::ScanPolicy::default();
    bencher
        .counter(divan::counter::BytesCount::new(texts.iter().map(String::len).sum::<usize>()))
        .bench(|| texts.iter().map(|t| skillwire::scan(t, Some("pdf"), &policy).unwrap().len()).sum::<usize>());
}

/// LLM selection: the prompt for a 100-byte message (the whole catalogue offered up to
/// 40 skills, a ranked shortlist of 20 past that), and reading a fenced reply.
#[divan::bench(args = SIZES)]
fn select_prompt(bencher: divan::Bencher, size: usize) {
    let catalog = Catalog::build(inputs(size), &CatalogOptions::default());
    let message = message(100);
    let options = skillwire::SelectOptions::default();
    let context = skillwire::TurnContext::default();
    bencher.bench(|| catalog.select_prompt(divan::black_box(&message), &context, &[], &options).unwrap());
}

#[divan::bench(args = SIZES)]
fn select_parse(bencher: divan::Bencher, size: usize) {
    let catalog = Catalog::build(inputs(size), &CatalogOptions::default());
    let names: Vec<&str> = catalog.skills().iter().take(3).map(|s| s.skill.name.as_str()).collect();
    let reply = format!(
        "Here is my pick:\n```json\n{{\"brief_plan\": \"Do it.\", \"skills\": {}}}\n```\n",
        serde_json::to_string(&names).unwrap()
    );
    bencher.bench(|| catalog.select_parse(divan::black_box(&reply), 3).unwrap());
}

/// Skills as tools: the whole catalogue's definitions for one provider.
#[divan::bench(args = SIZES, sample_count = 20)]
fn tool_definitions(bencher: divan::Bencher, size: usize) {
    let catalog = Catalog::build(inputs(size), &CatalogOptions::default());
    let options = skillwire::ToolOptions::default();
    bencher.bench(|| catalog.tool_definitions(skillwire::Provider::Anthropic, &options));
}

/// A skill's files through an engine (path check, source, scan, SHA-256): every file of
/// every corpus skill folder read once, and the same folders listed. The source is in
/// memory, so this is the core's cost per byte; `skillwire files`/`read` add the disk.
#[divan::bench(sample_count = 10)]
fn skill_files_corpus(bencher: divan::Bencher) {
    let mut files = Vec::new();
    corpus_files(&shared().join("corpus"), &mut files);
    let mut source = skillwire::MemorySource::new();
    let mut reads = Vec::new();
    let mut bytes = 0;
    for (i, skill_md) in files.iter().enumerate() {
        let dir = skill_md.parent().unwrap();
        let location = format!("s/{i}/SKILL.md");
        source.insert(&location, std::fs::read_to_string(skill_md).unwrap());
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let children: Vec<PathBuf> = if path.is_dir() {
                std::fs::read_dir(&path).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_file()).collect()
            } else if name != "SKILL.md" {
                vec![path]
            } else {
                Vec::new()
            };
            for file in children {
                let relative = file.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                let content = std::fs::read(&file).unwrap();
                bytes += content.len();
                source.insert_file(&location, &relative, content);
                reads.push((i, relative));
            }
        }
    }
    let engine = skillwire::Engine::new(vec![source], skillwire::Options::default());
    let names: Vec<String> = engine.catalog().skills().iter().map(|s| s.skill.name.clone()).collect();
    let by_index =
        |i: usize| engine.catalog().get_by_location(&format!("s/{i}/SKILL.md")).map(|s| s.skill.name.clone());
    let reads: Vec<(String, String)> = reads.into_iter().filter_map(|(i, p)| Some((by_index(i)?, p))).collect();
    bencher.counter(divan::counter::BytesCount::new(bytes)).bench_local(|| {
        let listed: usize = names.iter().map(|n| engine.files(n).map_or(0, |f| f.files.len())).sum();
        let read = reads.iter().filter(|(skill, path)| engine.read_file(skill, path).is_ok()).count();
        (listed, read)
    });
}
