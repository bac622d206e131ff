//! Where the Rust tests find the third-party data they read (real skill packs,
//! labelled messages): `$SKILLWIRE_SHARED`, else `../shared` beside the clone. The data
//! stays outside the repository; CI always has it. When it is not there, the tests that
//! need it say so, once, and pass.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The shared data folder, or `None` (said once on the standard error) when it holds
/// no `corpus/` and `queries/`.
pub fn shared() -> Option<PathBuf> {
    static SAID: std::sync::Once = std::sync::Once::new();
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let dir = std::env::var_os("SKILLWIRE_SHARED").map_or(beside, PathBuf::from);
    if dir.join("corpus").is_dir() && dir.join("queries").is_dir() {
        return Some(dir);
    }
    // Straight to the standard error, past the test harness's capture: said even when
    // the tests pass.
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "skipping the tests on real skill packs: no corpus and queries at {} (set SKILLWIRE_SHARED)",
            dir.display()
        );
    });
    None
}
