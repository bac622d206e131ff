//! Builds skillwire's WebAssembly component and hands it to the host crate.
//!
//! Every build of `skillwire-host` runs this (cargo reruns it whenever the core, the
//! component glue or the WIT world change), so the embedded component is never stale:
//! 1. make sure the `wasm32-unknown-unknown` target is installed (`rustup target add`);
//! 2. build `wasm/component` for it as a `cdylib` with the `component` profile and
//!    WebAssembly SIMD, without its functions' names unless `SKILLWIRE_GUEST_NAMES=1`,
//!    in a target folder of its own (sharing the outer build's would wait on its lock
//!    forever);
//! 3. wrap the core module into a component with `wit-component`: it then imports
//!    only what the WIT world declares (a `wasm32-wasip2` build would drag in WASI);
//! 4. write it to `$OUT_DIR/skillwire.component.wasm` for `include_bytes!`;
//! 5. hand the host a digest of the component and of its own sources
//!    (`SKILLWIRE_HOST_DIGEST`), which its catalogue cache's keys carry: two builds of one
//!    version that read files or cross into the guest differently keep their own snapshots.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    if let Err(message) = build() {
        // A build script reports failure by exiting non-zero with a message.
        eprintln!("error: building the skillwire component failed: {message}");
        std::process::exit(1);
    }
}

fn build() -> Result<(), String> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let root = manifest.parent().ok_or("no workspace root")?.to_path_buf();
    // The workspace manifest holds the `component` profile the glue is built with.
    for watched in [
        "core/src",
        "core/Cargo.toml",
        "wasm/component/src",
        "wasm/component/Cargo.toml",
        "wit",
        "Cargo.lock",
        "Cargo.toml",
        "host/src",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }

    if Command::new("rustup").arg("--version").output().is_ok() {
        let status =
            Command::new("rustup").args(["target", "add", TARGET]).status().map_err(|e| format!("rustup: {e}"))?;
        if !status.success() {
            return Err(format!("`rustup target add {TARGET}` failed"));
        }
    }

    let target_dir = root.join("target").join("component-build");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut build = Command::new(cargo);
    build
        .current_dir(&root)
        .args(["rustc", "--package", "skillwire-component", "--target", TARGET, "--profile", "component"])
        .args(["--crate-type", "cdylib"])
        .env("CARGO_TARGET_DIR", &target_dir);
    // The outer build's settings are for the host, not for the guest.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
        "CARGO_PRIMARY_PACKAGE",
    ] {
        build.env_remove(var);
    }
    // SIMD, which every component host runs (wasmtime, wasmtime-py, jco's Node and current
    // browsers): `memchr` and the compiler's vectorised loops use it, and the first load of
    // 10,000 skills takes a seventh less (docs/performance.md). The npm modules, which
    // older Safari must run, are built without it in a target folder of their own.
    //
    // Without the functions' names (126 KB, 35 KB gzipped: 7% of the component), as the npm
    // modules ship: a guest's trap then names functions by number. `SKILLWIRE_GUEST_NAMES`
    // set to anything but empty or `0` keeps them, for profiling the guest (`perf` then
    // names its functions).
    let mut flags = vec!["-Ctarget-feature=+simd128"];
    println!("cargo:rerun-if-env-changed=SKILLWIRE_GUEST_NAMES");
    if env::var_os("SKILLWIRE_GUEST_NAMES").is_none_or(|v| v.is_empty() || v == "0") {
        flags.push("-Cstrip=symbols");
    }
    build.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\u{1f}"));
    let status = build.status().map_err(|e| format!("cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build of wasm/component failed (see above)".to_owned());
    }

    let module_path = target_dir.join(TARGET).join("component").join("skillwire_component.wasm");
    let module = std::fs::read(&module_path).map_err(|e| format!("{}: {e}", module_path.display()))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .map_err(|e| format!("reading the core module: {e:#}"))?
        .validate(true)
        .encode()
        .map_err(|e| format!("encoding the component: {e:#}"))?;
    let out = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?).join("skillwire.component.wasm");
    write_if_changed(&out, &component)?;

    let mut hasher = DefaultHasher::new();
    component.hash(&mut hasher);
    let mut sources = Vec::new();
    rust_files(&manifest.join("src"), &mut sources)?;
    sources.sort();
    for file in &sources {
        file.strip_prefix(&manifest).unwrap_or(file).hash(&mut hasher);
        std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?.hash(&mut hasher);
    }
    println!("cargo:rustc-env=SKILLWIRE_HOST_DIGEST={:016x}", hasher.finish());
    Ok(())
}

/// Every `.rs` file under `dir` (a folder that cannot be read fails the build: a digest
/// that missed a file would let two different builds share snapshots).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}
