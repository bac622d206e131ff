//! `skillwire lint`: skills checked against the standard (the reference validator's
//! rules), natively or inside the component, with links to missing files warned about.

use crate::args::{EngineArg, LintFormatArg};
use crate::load::runtime;
use crate::{input, limits, scan_policy, to_json, InputError};
use skillwire::{lint_with, sha256_digest, LintOptions, LintReport};
use skillwire_host::wasm::{CallLimits, Runtime};
use skillwire_host::{read_skill_file, skill_file_in, FsSource};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Lints each of `paths`; exit 1 when one fails the standard or is blocked by the scan.
/// With `digests`, each skill's files follow its verdict with their SHA-256.
pub(crate) fn run(
    kind: EngineArg,
    paths: &[PathBuf],
    format: LintFormatArg,
    extensions: bool,
    scan: &[String],
    limit: &[String],
    digests: bool,
) -> Result<(ExitCode, String), InputError> {
    let options = LintOptions { limits: limits(limit)?, extensions, scan: scan_policy(scan)?, files: None };
    let linter = Linter::new(kind)?;
    let mut linted: Vec<Linted> = Vec::new();
    for path in paths {
        linted.extend(lint_path(path, &options, &linter)?);
    }
    let failed = linted.iter().any(|l| !l.report.valid || l.report.blocked());
    let files = |l: &Linted| match (&l.dir, digests) {
        (Some(dir), true) => file_digests(dir, options.limits.max_file_bytes),
        _ => Vec::new(),
    };
    let out = match format {
        LintFormatArg::Json => {
            let mut reports = Vec::new();
            for l in &linted {
                let mut report = serde_json::to_value(&l.report).map_err(input)?;
                if let (true, Some(fields)) = (digests, report.as_object_mut()) {
                    fields.insert("files".to_owned(), serde_json::to_value(files(l)).map_err(input)?);
                }
                reports.push(report);
            }
            to_json(&reports)?
        }
        LintFormatArg::Human => {
            let mut lines = Vec::new();
            for l in &linted {
                let r = &l.report;
                if r.valid {
                    lines.push(format!("Valid skill: {}", r.path));
                } else {
                    eprintln!("Validation failed for {}:", r.path);
                    for e in &r.errors {
                        eprintln!("  - {e}");
                    }
                }
                for w in &r.warnings {
                    eprintln!("  {} ({})", w, r.path);
                }
                for f in &r.findings {
                    eprintln!("  {} ({})", f, r.path);
                }
                for file in files(l) {
                    let digest = file.digest.or(file.error.map(|e| format!("({e})"))).unwrap_or_default();
                    lines.push(format!("  {digest}  {}  {}", file.size, file.path));
                }
            }
            lines.join("\n")
        }
    };
    // After the failures it is about.
    if failed && !extensions && matches!(format, LintFormatArg::Human) {
        hint_extensions(paths, &options, &linter, &linted)?;
    }
    Ok((if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }, out))
}

/// Says on standard error how many of the skills that failed pass with `--extensions`
/// (the reference validator's check knows only the standard's fields; a skill written for
/// skillwire, like the bundled examples, has `tags`).
fn hint_extensions(
    paths: &[PathBuf],
    options: &LintOptions,
    linter: &Linter,
    linted: &[Linted],
) -> Result<(), InputError> {
    let with_extensions = LintOptions { extensions: true, ..options.clone() };
    let mut again = Vec::new();
    for path in paths {
        again.extend(lint_path(path, &with_extensions, linter)?);
    }
    let passing = linted
        .iter()
        .zip(&again)
        .filter(|(without, with)| !without.report.valid && with.report.valid && !with.report.blocked())
        .count();
    if passing > 0 {
        eprintln!(
            "{passing} of the skills that failed would pass with --extensions, which accepts the fields skillwire reads beyond \
             the standard (`skillwire lint --help` lists them)"
        );
    }
    Ok(())
}

/// One lint report, and the skill's folder (canonical) when it has one on disk.
struct Linted {
    report: LintReport,
    dir: Option<PathBuf>,
}

/// A skill's file with its digest, or why it has none.
#[derive(serde::Serialize)]
struct FileDigest {
    path: String,
    size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The SHA-256 of each file the filesystem source lists in skill folder `dir` (as
/// `skillwire files --digests` computes them), read as that source reads them.
fn file_digests(dir: &Path, max_file_bytes: usize) -> Vec<FileDigest> {
    let listed = skillwire_host::files::list_skill_files(dir).unwrap_or_default();
    listed
        .into_iter()
        .map(|file| {
            let read = skillwire_host::files::read_skill_resource(dir, &file.path, max_file_bytes);
            let (digest, error) = match read {
                Ok(bytes) if bytes.len() > max_file_bytes => {
                    (None, Some(format!("{} bytes or more; the limit is {max_file_bytes}", bytes.len())))
                }
                Ok(bytes) => (Some(sha256_digest(&bytes)), None),
                Err(e) => (None, Some(e)),
            };
            FileDigest { path: file.path, size: file.size, digest, error }
        })
        .collect()
}

/// Lints texts natively or inside the component.
enum Linter {
    Native,
    Wasm(Arc<Runtime>),
}

impl Linter {
    fn new(kind: EngineArg) -> Result<Linter, InputError> {
        Ok(match kind {
            EngineArg::Native => Linter::Native,
            EngineArg::Wasm => Linter::Wasm(runtime()?),
        })
    }

    fn lint(&self, location: &str, text: &str, options: &LintOptions) -> Result<LintReport, InputError> {
        match self {
            Linter::Native => Ok(lint_with(location, text, options)),
            Linter::Wasm(rt) => rt.lint(location, text, options, CallLimits::default()).map_err(input),
        }
    }
}

/// A report of a lint that could not read its input.
fn failed_report() -> LintReport {
    LintReport { path: String::new(), valid: false, errors: Vec::new(), warnings: Vec::new(), findings: Vec::new() }
}

/// Lints one command-line path: a SKILL.md file, a skill folder, or a folder of
/// skills (each linted). Missing paths and folders get the reference's messages.
fn lint_path(path: &Path, options: &LintOptions, linter: &Linter) -> Result<Vec<Linted>, InputError> {
    let display = path.display().to_string();
    let failed = |error: String| Linted {
        report: LintReport { path: display.clone(), valid: false, errors: vec![error], ..failed_report() },
        dir: None,
    };
    if !path.exists() {
        return Ok(vec![failed(format!("Path does not exist: {display}"))]);
    }
    let is_skill_file = path.is_file() && path.file_name().is_some_and(|n| n.eq_ignore_ascii_case("skill.md"));
    let (dir, file) = if is_skill_file {
        (path.parent().unwrap_or(Path::new(".")).to_path_buf(), Some(path.to_path_buf()))
    } else if !path.is_dir() {
        return Ok(vec![failed(format!("Not a directory: {display}"))]);
    } else {
        (path.to_path_buf(), skill_file_in(path))
    };
    let Some(file) = file else {
        // A folder of skills: lint each one found below it.
        let found = FsSource::discover(path).map(|s| s.files().to_vec()).unwrap_or_default();
        if found.is_empty() {
            return Ok(vec![failed("Missing required file: SKILL.md".to_owned())]);
        }
        let mut linted = Vec::new();
        for f in &found {
            linted.extend(lint_path(f, options, linter)?);
        }
        return Ok(linted);
    };
    let shown = if is_skill_file { dir.display().to_string() } else { display.clone() };
    // The folder's files, so that links to files it does not hold are warned about.
    let dir = std::fs::canonicalize(&dir).ok();
    let listed = dir.as_deref().map(skillwire_host::files::list_skill_files);
    let files = listed.and_then(Result::ok).map(|l| l.into_iter().map(|f| f.path).collect());
    let options = LintOptions { files, ..options.clone() };
    let mut report = match read_skill_file(&file, options.limits.max_skill_md_bytes) {
        Ok(text) => linter.lint(&file.to_string_lossy(), &text, &options)?,
        Err(e) => LintReport { errors: vec![e.message], ..failed_report() },
    };
    report.path = shown;
    Ok(vec![Linted { report, dir }])
}
