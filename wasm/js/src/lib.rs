//! skillwire for JavaScript: wasm-bindgen glue around the core, nothing else. The npm
//! package (`pkg/`) wraps these exports in the JS API; every rule lives in the
//! `skillwire` crate.
//!
//! Built as two modules: with the `build` feature (the default; `build.rs`) the whole
//! package's, which builds catalogues from the JS sources and writes snapshots (`snapshot`);
//! without it, `skillwire/turns`'s: the turn path here alone, on catalogues it restores
//! (`restore`).
//!
//! Values cross as plain objects (serde-wasm-bindgen, JSON-compatible: `None` is
//! `null`, maps are objects), shaped exactly like the core's serde output, so
//! `JSON.stringify` of a result equals the Rust runner's JSON.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[cfg(feature = "build")]
mod build;

use serde::{Deserialize, Serialize};
use skillwire::{CatalogFormat, ListedFile, Matches, RenderOptions, TurnContext};
use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated. The core is built without its Unicode tables
/// (~120 KB less to download): names are normalised to NFKC by the JavaScript engine's
/// `String.prototype.normalize`, once it shows it really normalises (an engine built
/// without Intl, or a stub, returns text unchanged). If it does not, names that are not
/// ASCII are reported as not checkable and fail the look-alike scan: never passed
/// unchecked.
#[wasm_bindgen(start)]
fn start() {
    let works = js_nfkc("\u{FF50}\u{FF44}\u{FF46}") == "pdf" && js_nfkc("e\u{301}") == "\u{E9}";
    if works {
        skillwire::set_nfkc_normaliser(js_nfkc);
    }
}

fn js_nfkc(text: &str) -> String {
    String::from(js_sys::JsString::from(text).normalize("NFKC"))
}

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| error("invalid_value", &e.to_string()))
}

fn from_js<T: for<'de> Deserialize<'de> + Default>(value: JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| error("invalid_argument", &format!("{what}: {e}")))
}

/// A JS `Error` with a `code` property.
fn error(code: &str, message: &str) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = js_sys::Reflect::set(&e, &JsValue::from_str("code"), &JsValue::from_str(code));
    e.into()
}

fn core_error(e: skillwire::Error) -> JsValue {
    error(e.code(), &e.to_string())
}

/// A body fetched for a turn: its source and location, and text or the error of reading it;
/// with `list_files`, the skill's folder listing when the source gave one.
#[derive(Deserialize)]
struct BodyInput {
    source: usize,
    location: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    files: Option<Vec<ListedFile>>,
}

/// Where a skill lives, as `reads` reports it.
#[derive(Serialize)]
struct PlannedRead<'a> {
    source: usize,
    location: &'a str,
}

/// A planned turn (the core's `Turn`), rendered by the catalogue that planned it.
#[wasm_bindgen]
pub struct TurnPlan(skillwire::Turn);

/// A built catalogue and the render options of its turns.
#[wasm_bindgen]
pub struct Catalog {
    catalog: skillwire::Catalog,
    render: RenderOptions,
    embedding_error: Option<String>,
}

#[wasm_bindgen]
impl Catalog {
    /// Why the skills have no embeddings, when the build embedded them and that failed.
    #[wasm_bindgen(js_name = embeddingError)]
    pub fn embedding_error(&self) -> Option<String> {
        self.embedding_error.clone()
    }

    /// What building found (the core's `CatalogReport`).
    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js(self.catalog.report())
    }

    /// The catalogue text (`CatalogText`) in `format` (`agent-skills`, `skills-ref`,
    /// `markdown`, `json`), within `budget` bytes when given.
    pub fn catalog(&self, format: JsValue, budget: Option<u32>) -> Result<JsValue, JsValue> {
        let format: CatalogFormat = from_js(format, "format")?;
        to_js(&skillwire::render_catalog(&self.catalog, format, budget.map(|b| b as usize)))
    }

    /// The catalogue for a turn on `message` (`CatalogText`): the `featured` skills most
    /// relevant to it first, the others by name only.
    #[wasm_bindgen(js_name = catalogFor)]
    pub fn catalog_for(
        &self,
        message: &str,
        turn: JsValue,
        featured: u32,
        format: JsValue,
        budget: Option<u32>,
    ) -> Result<JsValue, JsValue> {
        let context: TurnContext = from_js(turn, "turn")?;
        let format: CatalogFormat = from_js(format, "format")?;
        let text = self
            .catalog
            .catalog_for(message, &context, featured as usize, format, budget.map(|b| b as usize))
            .map_err(core_error)?;
        to_js(&text)
    }

    /// The skills to offer as a user types `@` and `typed` (`[{name, description,
    /// match}]`), at most `limit`.
    pub fn complete(&self, typed: &str, limit: u32) -> Result<JsValue, JsValue> {
        to_js(&self.catalog.complete(typed, limit as usize))
    }

    /// What to embed for each skill: `[{skill, text}]`.
    #[wasm_bindgen(js_name = embeddingTexts)]
    pub fn embedding_texts(&self) -> Result<JsValue, JsValue> {
        to_js(&self.catalog.embedding_texts())
    }

    /// Sets the skills' embeddings from `[[name, number[]]]`; returns how many skills
    /// have one.
    #[wasm_bindgen(js_name = setEmbeddings)]
    pub fn set_embeddings(&mut self, vectors: JsValue) -> Result<usize, JsValue> {
        let vectors: Vec<(String, Vec<f32>)> = from_js(vectors, "vectors")?;
        self.catalog.set_embeddings(vectors).map_err(core_error)
    }

    /// The skills a turn on `message` with context `turn` would inject (`{matches}`),
    /// planned and read in one call (no plan object crosses: the cheaper path for `match`).
    #[wasm_bindgen(js_name = turnMatches)]
    pub fn turn_matches(&self, message: &str, turn: JsValue) -> Result<JsValue, JsValue> {
        let context: TurnContext = from_js(turn, "turn")?;
        let plan = self.catalog.turn(message, &context).map_err(core_error)?;
        to_js(&Matches { matches: plan.matches() })
    }

    /// Plans a turn on `message` with context `turn` (`{recent?, embedding?,
    /// selected?}`): the core runs once; the plan says what matched and what to read,
    /// and [`Catalog::render`] renders it with the bodies fetched.
    pub fn turn(&self, message: &str, turn: JsValue) -> Result<TurnPlan, JsValue> {
        let context: TurnContext = from_js(turn, "turn")?;
        Ok(TurnPlan(self.catalog.turn(message, &context).map_err(core_error)?))
    }

    /// The SKILL.md files rendering `plan` may read: `[{source, location}]`, in order.
    pub fn reads(&self, plan: &TurnPlan) -> Result<JsValue, JsValue> {
        let skills = self.catalog.reads(&plan.0).map_err(core_error)?;
        let reads: Vec<PlannedRead<'_>> =
            skills.iter().map(|s| PlannedRead { source: s.source, location: &s.skill.location }).collect();
        to_js(&reads)
    }

    /// Renders `plan` with the bodies fetched for its reads (`[{source, location, text |
    /// error}]`): the core's `Injection`.
    pub fn render(&self, plan: &TurnPlan, bodies: JsValue) -> Result<JsValue, JsValue> {
        let bodies: Vec<BodyInput> = from_js(bodies, "bodies")?;
        let listed = |entry: &skillwire::CatalogSkill| match bodies.iter().find(|b| fetched_for(b, entry)) {
            Some(BodyInput { files: Some(files), .. }) => Ok(files.clone()),
            _ => Err("not listed".to_owned()),
        };
        let injection = self.catalog.render_with_files(&plan.0, &self.render, fetched(&bodies), listed);
        to_js(&injection.map_err(core_error)?)
    }
}

/// A turn's `read`: the bodies the JS side fetched for its plan, found by source and
/// location (a turn reads a few bodies: a scan is cheaper than a map).
fn fetched(bodies: &[BodyInput]) -> impl FnMut(&skillwire::CatalogSkill) -> Result<String, String> + '_ {
    |entry| match bodies.iter().find(|b| fetched_for(b, entry)) {
        Some(BodyInput { text: Some(text), .. }) => Ok(text.clone()),
        Some(BodyInput { error: Some(e), .. }) => Err(e.clone()),
        _ => Err("the body was not fetched".to_owned()),
    }
}

/// True when `body` was fetched for `entry` (by source and location).
fn fetched_for(body: &BodyInput, entry: &skillwire::CatalogSkill) -> bool {
    body.source == entry.source && body.location == entry.skill.location
}

/// The core's defaults (`Defaults`: engine options, selection options, default counts),
/// in the core's shape; the JS wrapper hands them out in its own.
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsValue> {
    to_js(&skillwire::Defaults::default())
}

/// The limits a catalogue built with `limits` (the core's `Limits`, fields optional)
/// enforces: the JS side refuses texts past them before copying them into memory.
#[wasm_bindgen(js_name = effectiveLimits)]
pub fn effective_limits(limits: JsValue) -> Result<JsValue, JsValue> {
    let limits: skillwire::Limits = from_js(limits, "limits")?;
    to_js(&limits)
}

/// A SKILL.md's bytes (a turn's read that a source answered with a `Uint8Array`) as its
/// text; an `Error` with the core's message when they are not UTF-8.
#[wasm_bindgen(js_name = utf8Text)]
pub fn utf8_text(bytes: Vec<u8>) -> Result<String, JsValue> {
    skillwire::text_from_utf8(bytes).map_err(|e| error("not_utf8", &e.message))
}

/// `name` kept to what an origin label may hold (the core's `origin_label`).
#[wasm_bindgen(js_name = originLabel)]
pub fn origin_label(name: &str) -> String {
    skillwire::origin_label(name)
}

/// The catalogue of a snapshot (`Catalog.snapshot`, written by the whole package's module
/// of the same version) taken under `key` with the same catalogue options (`options`, the core's
/// `Options`: its render options are this catalogue's); the core's `SnapshotError` as an
/// `Error` with its code otherwise.
#[cfg(feature = "restore")]
#[wasm_bindgen]
pub fn restore(bytes: &[u8], key: &str, options: JsValue) -> Result<Catalog, JsValue> {
    let options: skillwire::Options = from_js(options, "options")?;
    let catalog =
        skillwire::Catalog::from_snapshot(bytes, key, &options.catalog).map_err(|e| error(e.code(), &e.to_string()))?;
    Ok(Catalog { catalog, render: options.render, embedding_error: None })
}

#[cfg(feature = "snapshot")]
#[wasm_bindgen]
impl Catalog {
    /// The catalogue as bytes, for `restore` under the same `key` (the core's
    /// `Catalog::snapshot`). Host embeddings are not kept.
    pub fn snapshot(&self, key: &str) -> Result<Vec<u8>, JsValue> {
        self.catalog.snapshot(key).map_err(|e| error(e.code(), &e.to_string()))
    }
}
