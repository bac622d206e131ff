//! Runs the turn vectors (`tests/vectors/turns/*.toml`) through the native core (the shared runner is
//! `tests/rust/turn_vectors.rs`; `host/tests/wasm.rs` runs the same through the
//! component).
//!
//! After an intended change, `SKILLWIRE_BLESS=1 cargo test -p skillwire-host --test vectors`
//! rewrites the expectations; review the diff before committing it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code

#[path = "../../tests/rust/turn_vectors.rs"]
mod turn_vectors;

use skillwire::Engine;

#[test]
fn turn_vectors() {
    let bless = std::env::var_os("SKILLWIRE_BLESS").is_some();
    turn_vectors::run_all(bless, &mut |sources, options| Box::new(Engine::new(sources, options)));
}
