//! `skillwire files` and `skillwire read`: a skill's own files, listed (with digests on
//! request) and read, through either engine; and `skillwire component`, the component's
//! own files (the `.wasm`, its WIT package and digest) written out for other hosts.

use crate::{file_refused, to_json, InputError};
use skillwire::{FileBody, FileError, FileKind};
use skillwire_host::wasm::WasmError;
use skillwire_host::Backend;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Lists skill `name`'s files: path, size, kind, media type, and each file's SHA-256 with
/// `digests`. Returns the exit code and what to print.
pub(crate) fn files(
    engine: &mut dyn Backend,
    name: &str,
    digests: bool,
    json: bool,
) -> Result<(ExitCode, String), InputError> {
    let out;
    let files = engine.files(name).map_err(file_refused)?;
    let mut digest_of = Vec::new();
    for file in files.files.iter().filter(|_| digests) {
        digest_of.push(match engine.read_file(&files.skill, &file.path) {
            Ok(content) => content.digest,
            Err(e) => format!("({e})"),
        });
    }
    if json {
        let mut value = serde_json::to_value(&files).map_err(|e| InputError(e.to_string()))?;
        if let Some(listed) = value.get_mut("files").and_then(serde_json::Value::as_array_mut) {
            for (file, digest) in listed.iter_mut().zip(&digest_of) {
                file["digest"] = serde_json::Value::from(digest.as_str());
            }
        }
        out = to_json(&value)?;
    } else {
        let lines: Vec<String> = (files.files.iter().enumerate())
            .map(|(i, f)| {
                let digest = digest_of.get(i).map(|d| format!("\t{d}")).unwrap_or_default();
                format!("{}\t{}\t{}\t{}{digest}", f.path, f.size, f.kind.as_str(), f.media_type)
            })
            .collect();
        out = lines.join("\n");
        if files.left_out > 0 {
            eprintln!("skillwire: {} more files left out (over the limit, or outside the folder)", files.left_out);
        }
    }
    Ok((ExitCode::SUCCESS, out))
}

/// Prints file `path` of skill `name` as it is (or as JSON); a file the scan blocks exits 1
/// with its findings.
pub(crate) fn read(
    engine: &mut dyn Backend,
    name: &str,
    path: &str,
    json: bool,
) -> Result<(ExitCode, String), InputError> {
    let mut out = String::new();
    let content = match engine.read_file(name, path) {
        Ok(content) => content,
        Err(WasmError::File(e @ FileError::Blocked { .. })) => {
            eprintln!("skillwire: {e}");
            if let FileError::Blocked { findings, .. } = &e {
                for f in findings {
                    eprintln!("  {f}");
                }
            }
            return Ok((ExitCode::from(1), String::new()));
        }
        Err(e) => return Err(file_refused(e)),
    };
    if content.kind == FileKind::Script && !json {
        eprintln!("skillwire: {} is a script ({}); skillwire does not run it", content.path, content.media_type);
    }
    for finding in content.findings.iter().filter(|_| !json) {
        eprintln!("  {finding} ({})", content.path);
    }
    if json {
        out = to_json(&content)?;
    } else {
        let bytes = match &content.body {
            FileBody::Text(text) => text.as_bytes(),
            FileBody::Binary(bytes) => bytes.as_slice(),
        };
        // The file as it is: no newline added.
        let _ = std::io::stdout().lock().write_all(bytes);
    }
    Ok((ExitCode::SUCCESS, out))
}

/// The WIT package the component implements, as written (docs kept).
const WIT: &str = include_str!("../../wit/skillwire.wit");

/// `skillwire component --out DIR`: the component, its WIT package and its digest written
/// to `dir`; what was written, as text or JSON.
pub(crate) fn write_component(dir: &Path, json: bool) -> Result<String, InputError> {
    let failed = |what: &Path, e: std::io::Error| InputError(format!("{}: {e}", what.display()));
    let wit_dir = dir.join("wit");
    std::fs::create_dir_all(&wit_dir).map_err(|e| failed(&wit_dir, e))?;
    let (component, wit) = (dir.join("skillwire.wasm"), wit_dir.join("skillwire.wit"));
    std::fs::write(&component, skillwire_host::wasm::COMPONENT).map_err(|e| failed(&component, e))?;
    std::fs::write(&wit, WIT).map_err(|e| failed(&wit, e))?;
    let digest = skillwire::sha256_digest(skillwire_host::wasm::COMPONENT);
    let hex = digest.trim_start_matches("sha256:");
    let sums = dir.join("skillwire.wasm.sha256");
    // The form `sha256sum -c` checks.
    std::fs::write(&sums, format!("{hex}  skillwire.wasm\n")).map_err(|e| failed(&sums, e))?;
    let version = env!("CARGO_PKG_VERSION");
    let world = wit_world();
    let bytes = skillwire_host::wasm::COMPONENT.len();
    if json {
        let written = serde_json::json!({
            "version": version, "component": component, "wit": wit, "bytes": bytes, "sha256": hex, "world": world,
        });
        return to_json(&written);
    }
    Ok(format!(
        "skillwire {version}: {} ({bytes} bytes, sha256 {hex}), {} (world {world})",
        component.display(),
        wit.display()
    ))
}

/// The world the component implements, as `namespace:package/world@version`, read from
/// the WIT package's `package` and `world` lines.
fn wit_world() -> String {
    let item = |keyword: &str| {
        WIT.lines()
            .find_map(|line| line.trim().strip_prefix(keyword))
            .map(|rest| rest.trim_end_matches(['{', ';', ' ']).trim().to_owned())
            .unwrap_or_default()
    };
    let package = item("package ");
    match package.split_once('@') {
        Some((name, version)) => format!("{name}/{}@{version}", item("world ")),
        None => format!("{package}/{}", item("world ")),
    }
}
