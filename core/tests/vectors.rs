//! Runs `tests/vectors/turns.json` through the native core (the shared runner is
//! `tests/rust/turn_vectors.rs`).
//!
//! After an intended change, `SKILLWIRE_BLESS=1 cargo test -p skillwire --test vectors`
//! rewrites the expectations; review the diff before committing it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::disallowed_methods)] // test code

#[path = "../../tests/rust/turn_vectors.rs"]
mod turn_vectors;

use serde_json::{json, Value};
use skillwire::{
    render_catalog, CatalogFormat, Engine, Error, Provider, SelectOptions, SkillStats, ToolOptions, TurnContext,
};
use turn_vectors::{CatalogForRequest, Runtime, VectorSource};

struct Native(Engine<VectorSource>);

impl Runtime for Native {
    fn report(&mut self) -> Value {
        serde_json::to_value(self.0.catalog().report()).unwrap()
    }
    fn catalog(&mut self, format: CatalogFormat, budget: Option<usize>) -> Value {
        serde_json::to_value(render_catalog(self.0.catalog(), format, budget)).unwrap()
    }
    fn catalog_for(&mut self, r: &CatalogForRequest) -> Result<Value, Error> {
        let text = self.0.catalog_for(&r.message, &r.turn, r.featured, r.format, r.budget)?;
        Ok(serde_json::to_value(text).unwrap())
    }
    fn set_embeddings(&mut self, vectors: Vec<(String, Vec<f32>)>) -> Result<usize, Error> {
        self.0.set_embeddings(vectors)
    }
    fn matches(&mut self, message: &str, context: &TurnContext) -> Result<Value, Error> {
        Ok(json!({ "matches": self.0.matches_turn(message, context)? }))
    }
    fn inject(&mut self, message: &str, context: &TurnContext) -> Result<Value, Error> {
        Ok(serde_json::to_value(self.0.inject_turn(message, context)?).unwrap())
    }
    fn complete(&mut self, typed: &str, limit: usize) -> Value {
        serde_json::to_value(self.0.complete(typed, limit)).unwrap()
    }
    fn select_prompt(
        &mut self,
        message: &str,
        context: &TurnContext,
        stats: &[SkillStats],
        options: &SelectOptions,
    ) -> Result<Value, Error> {
        Ok(serde_json::to_value(self.0.select_prompt(message, context, stats, options)?).unwrap())
    }
    fn select_parse(&mut self, reply: &str, max_skills: usize) -> Result<Value, Error> {
        Ok(serde_json::to_value(self.0.select_parse(reply, max_skills)?).unwrap())
    }
    fn inject_selected(&mut self, message: &str, selected: &[String], context: &TurnContext) -> Result<Value, Error> {
        Ok(serde_json::to_value(self.0.inject_selected(message, selected, context)?).unwrap())
    }
    fn tools(&mut self, exclude: &[String]) -> Value {
        serde_json::to_value(self.0.tools(&ToolOptions { exclude: exclude.to_vec() })).unwrap()
    }
    fn tool_definitions(&mut self, provider: Provider, exclude: &[String]) -> Value {
        serde_json::to_value(self.0.tool_definitions(provider, &ToolOptions { exclude: exclude.to_vec() })).unwrap()
    }
}

#[test]
fn turn_vectors() {
    let bless = std::env::var_os("SKILLWIRE_BLESS").is_some();
    turn_vectors::run_all(bless, &mut |sources, options| Box::new(Native(Engine::new(sources, options))));
}
