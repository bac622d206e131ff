//! The catalogue cache through the `skillwire` command, in both engines: a run over
//! unchanged folders restores the catalogue the last run kept and answers byte for byte
//! as a build would; any change to a skill, to the options or to the snapshot itself
//! makes it build again, from the files as they are now.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A folder of its own under the system's temporary folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skillwire-catalog-cache-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_skill(dir: &Path, name: &str, description: &str) {
    fs::create_dir_all(dir.join(name)).unwrap();
    let text = format!("---\nname: {name}\ndescription: {description}\n---\nThe {name} skill's instructions.\n");
    fs::write(dir.join(name).join("SKILL.md"), text).unwrap();
}

/// `skillwire --engine ENGINE inject -v --catalog-cache on --skills SKILLS [extra] MESSAGE`
/// with its own cache folder (the component's compiled code is shared with the other tests).
fn inject(engine: &str, skills: &Path, cache: &Path, extra: &[&str], message: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skillwire"));
    command.current_dir(repo()).env("SKILLWIRE_CACHE_DIR", cache);
    command.args(["--engine", engine, "inject", "--json", "-v", "--catalog-cache", "on", "--skills"]);
    command.arg(skills).args(extra).arg(message);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    output
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Waits until files written now count as settled for the cache.
fn settle() {
    std::thread::sleep(Duration::from_millis(2_100));
}

#[test]
fn a_run_over_unchanged_folders_restores_the_catalogue_and_any_change_rebuilds_it() {
    let dir = temp_dir("runs");
    let (skills, cache) = (dir.join("skills"), dir.join("cache"));
    write_skill(&skills, "pdf", "Fill in PDF forms and merge PDF files.");
    write_skill(&skills, "xlsx", "Build spreadsheets with formulas and charts.");
    write_skill(&skills, "notes", "Take meeting notes and list the action items.");
    let message = "merge these pdf files, then take notes of the meeting";

    // Written just now: the catalogue is built and not kept (a file could still change
    // within its timestamps' tick).
    let fresh = inject("native", &skills, &cache, &[], message);
    assert!(said(&fresh).contains("not kept: a SKILL.md changed"), "{}", said(&fresh));
    settle();
    let built = inject("native", &skills, &cache, &[], message);
    assert!(said(&built).contains("catalogue built (none kept yet); kept in"), "{}", said(&built));
    assert_eq!(built.stdout, fresh.stdout);
    // Restored in both engines (one snapshot serves both), with the same answer.
    for engine in ["native", "wasm"] {
        let restored = inject(engine, &skills, &cache, &[], message);
        assert!(said(&restored).contains("catalogue restored from"), "{engine}: {}", said(&restored));
        assert_eq!(restored.stdout, built.stdout, "{engine}");
    }

    // Other options keep a catalogue of their own: built, then restored, for those options,
    // while the first one stays.
    for expected in ["catalogue built (none kept yet)", "catalogue restored from"] {
        let gated = inject("native", &skills, &cache, &["--deny", "pdf"], message);
        assert!(said(&gated).contains(expected), "{}", said(&gated));
        assert!(!String::from_utf8_lossy(&gated.stdout).contains("[SKILL:pdf]"));
    }
    assert!(said(&inject("native", &skills, &cache, &[], message)).contains("catalogue restored from"));

    // A skill edited (the description now says what the message asks): built from the
    // file as it is now, in both engines.
    write_skill(&skills, "xlsx", "Merge PDF files into one spreadsheet report.");
    let mut fresh = Command::new(env!("CARGO_BIN_EXE_skillwire"));
    fresh.current_dir(repo()).args(["--engine", "native", "inject", "--json", "--catalog-cache", "off", "--skills"]);
    let fresh = fresh.arg(&skills).arg(message).output().unwrap();
    for engine in ["wasm", "native"] {
        let edited = inject(engine, &skills, &cache, &[], message);
        assert!(said(&edited).contains("key differs"), "{engine}: {}", said(&edited));
        assert_ne!(edited.stdout, built.stdout, "{engine}: the edit is seen");
        assert_eq!(edited.stdout, fresh.stdout, "{engine}: as a build from the files as they are");
    }
    // Natively the kept catalogue was refreshed (the edited file is read, the others not:
    // core/tests/refresh.rs counts the reads).
    settle();
    write_skill(&skills, "notes", "Take meeting notes, list the action items and merge PDF minutes.");
    let refreshed = inject("native", &skills, &cache, &[], message);
    assert!(said(&refreshed).contains("catalogue refreshed (the snapshot's key differs"), "{}", said(&refreshed));
    // A skill added, one removed: the same.
    settle();
    let _ = inject("native", &skills, &cache, &[], message);
    write_skill(&skills, "pptx", "Make slide decks.");
    let added = inject("native", &skills, &cache, &[], message);
    assert!(said(&added).contains("key differs"), "{}", said(&added));
    assert!(said(&added).contains("4 skills loaded"), "{}", said(&added));
    fs::remove_dir_all(skills.join("pptx")).unwrap();
    let removed = inject("native", &skills, &cache, &[], message);
    assert!(said(&removed).contains("3 skills loaded"), "{}", said(&removed));

    // A damaged snapshot is not used: built, and replaced (the files have settled).
    settle();
    let kept = inject("native", &skills, &cache, &[], message);
    for engine in ["wasm", "native"] {
        for snapshot in fs::read_dir(cache.join("catalogs")).unwrap() {
            let snapshot = snapshot.unwrap().path();
            let mut bytes = fs::read(&snapshot).unwrap();
            let half = bytes.len() / 2;
            bytes.truncate(half);
            fs::write(&snapshot, &bytes).unwrap();
        }
        let damaged = inject(engine, &skills, &cache, &[], message);
        assert!(said(&damaged).contains("cannot be read"), "{engine}: {}", said(&damaged));
        assert_eq!(damaged.stdout, kept.stdout, "{engine}");
        let again = inject(engine, &skills, &cache, &[], message);
        assert!(said(&again).contains("catalogue restored from"), "{engine}: {}", said(&again));
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_skill_md_refused_for_what_it_is_is_kept_and_a_failed_read_is_tried_again() {
    use skillwire::{Engine, Options, SkillEntry, SkillSource, SourceError};
    use skillwire_host::{catalog_cache::CatalogCache, FsSource};
    let dir = temp_dir("refused");
    let (skills, cache) = (dir.join("skills"), dir.join("cache"));
    write_skill(&skills, "pdf", "Fill in PDF forms and merge PDF files.");
    write_skill(&skills, "notes", "Take meeting notes and list the action items.");
    // Not UTF-8: refused for what it is, as long as it stays so.
    fs::create_dir_all(skills.join("latin1")).unwrap();
    fs::write(skills.join("latin1/SKILL.md"), b"---\nname: latin1\ndescription: Caf\xe9.\n---\n").unwrap();
    settle();
    let message = "merge these pdf files";
    let built = inject("native", &skills, &cache, &[], message);
    assert!(said(&built).contains("catalogue built (none kept yet); kept in"), "{}", said(&built));
    assert!(said(&built).contains("not valid UTF-8"), "{}", said(&built));
    // Kept as it is: restored in both engines, not refreshed (and rewritten) on every run.
    for engine in ["native", "wasm", "native"] {
        let again = inject(engine, &skills, &cache, &[], message);
        assert!(said(&again).contains("catalogue restored from"), "{engine}: {}", said(&again));
        assert!(said(&again).contains("not valid UTF-8"), "{engine}: {}", said(&again));
        assert_eq!(again.stdout, built.stdout);
    }

    // A catalogue whose build failed to read a SKILL.md for a reason that may pass (kept
    // here as a host that met an I/O error would have kept it) is refreshed, in either
    // engine, reading that file again; then kept as it is.
    struct FailsOnce(FsSource, String);
    impl SkillSource for FailsOnce {
        fn list(&self) -> Result<Vec<SkillEntry>, SourceError> {
            self.0.list()
        }
        fn read(&self, location: &str) -> Result<String, SourceError> {
            match location.ends_with(&self.1) {
                true => Err(SourceError::new(format!("{location}: Input/output error"))),
                false => self.0.read(location),
            }
        }
    }
    let folder = FsSource::discover(&skills).unwrap();
    let kept = CatalogCache::new(&cache, &[&folder], &skillwire::CatalogOptions::default());
    let failing = FailsOnce(folder.clone(), "notes/SKILL.md".to_owned());
    let failed = Engine::new(vec![failing], Options::default());
    assert_eq!(failed.catalog().report().loaded, 1, "pdf alone: notes failed, latin1 refused");
    for engine in ["wasm", "native"] {
        assert!(kept.store(&failed.snapshot(kept.key()).unwrap()).unwrap());
        let refreshed = inject(engine, &skills, &cache, &[], message);
        let expected = "catalogue refreshed (the snapshot's catalogue could not read 1 entry when it was built";
        assert!(said(&refreshed).contains(expected), "{engine}: {}", said(&refreshed));
        assert!(said(&refreshed).contains("2 skills loaded"), "{engine}: {}", said(&refreshed));
        assert_eq!(refreshed.stdout, built.stdout, "{engine}");
        let restored = inject(engine, &skills, &cache, &[], message);
        assert!(said(&restored).contains("catalogue restored from"), "{engine}: {}", said(&restored));
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn small_folders_and_mcp_servers_keep_no_catalogue() {
    let dir = temp_dir("auto");
    let (skills, cache) = (dir.join("skills"), dir.join("cache"));
    write_skill(&skills, "pdf", "Fill in PDF forms.");
    let mut command = Command::new(env!("CARGO_BIN_EXE_skillwire"));
    command.current_dir(repo()).env("SKILLWIRE_CACHE_DIR", &cache);
    let output =
        command.args(["--engine", "native", "match", "-v", "--skills"]).arg(&skills).arg("pdf").output().unwrap();
    assert!(output.status.success());
    assert!(!said(&output).contains("catalogue"), "auto, one skill: {}", said(&output));
    assert!(!cache.join("catalogs").exists());
    // Skills from an MCP server have no files to compare: `on` is refused with --mcp.
    let mut command = Command::new(env!("CARGO_BIN_EXE_skillwire"));
    command.current_dir(repo()).env("SKILLWIRE_CACHE_DIR", &cache);
    let refused = command
        .args(["--engine", "native", "match", "--catalog-cache", "on", "--mcp", "true", "--skills"])
        .arg(&skills)
        .arg("pdf")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(said(&refused).contains("--catalog-cache on keeps the catalogue of --skills folders only"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn options_the_component_cannot_hold_as_given_still_restore_there() {
    // A limit past 32 bits saturates on its way into the component, and NaN equals nothing:
    // the component's snapshot is checked against the options as it received them, and
    // options are compared as written, so the second run restores instead of building again.
    let dir = temp_dir("crossed");
    let (skills, cache) = (dir.join("skills"), dir.join("cache"));
    write_skill(&skills, "pdf", "Fill in PDF forms and merge PDF files.");
    settle();
    let extra = ["--limit", "max_skill_md_bytes=10000000000", "--rank-min-ratio", "NaN"];
    let built = inject("wasm", &skills, &cache, &extra, "merge the pdf files");
    assert!(said(&built).contains("catalogue built (none kept yet); kept in"), "{}", said(&built));
    let restored = inject("wasm", &skills, &cache, &extra, "merge the pdf files");
    assert!(said(&restored).contains("catalogue restored from"), "{}", said(&restored));
    assert_eq!(restored.stdout, built.stdout);
    let _ = fs::remove_dir_all(&dir);
}
