//! Tests of a turn ranked with the host's embeddings.

use super::*;
use crate::catalog::{CatalogInput, CatalogOptions};
use crate::engine::source::MemorySource;
use crate::engine::{Embedder, Engine, Options};

const SKILLS: [(&str, &str, [f32; 4]); 3] = [
    ("k8s-debug", "Debug Kubernetes pods that crash or restart.", [1.0, 0.1, 0.0, 0.0]),
    ("sql-review", "Review SQL queries for injection risks.", [0.0, 1.0, 0.1, 0.0]),
    ("release-notes", "Write release notes from merged pull requests.", [0.0, 0.1, 1.0, 0.0]),
];

/// A stand-in for a host's model: a few concepts, spotted by keyword.
struct Concepts;

impl Embedder for Concepts {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        Ok(texts
            .iter()
            .map(|t| {
                let t = t.to_lowercase();
                let has = |words: &[&str]| if words.iter().any(|w| t.contains(w)) { 1.0 } else { 0.0 };
                vec![
                    has(&["kubernetes", "container", "cluster"]),
                    has(&["sql", "database"]),
                    has(&["release", "changelog"]),
                    has(&["weekend", "thanks", "hello"]) + 0.01,
                ]
            })
            .collect())
    }
}

struct Broken;

impl Embedder for Broken {
    fn embed(&self, _: &[String]) -> Result<Vec<Vec<f32>>, String> {
        Err("model offline".into())
    }
}

fn catalog() -> Catalog {
    let inputs = SKILLS
        .iter()
        .map(|(name, description, _)| CatalogInput {
            source: 0,
            id: None,
            origin: None,
            location: format!("{name}/SKILL.md"),
            text: Ok(format!("---\nname: {name}\ndescription: {description}\n---\nBody\n")),
        })
        .collect();
    Catalog::build(inputs, &CatalogOptions::default())
}

fn turn(embedding: Vec<f32>) -> TurnContext {
    TurnContext { embedding: Some(embedding), ..TurnContext::default() }
}

#[test]
fn embeddings_find_skills_that_share_no_word_with_the_message() {
    let mut catalog = catalog();
    let message = "my containers keep dying in the cluster";
    let vector = vec![0.9, 0.1, 0.0, 0.05];
    // Without embeddings the words find nothing, and a message vector changes nothing.
    assert!(catalog.turn(message, &TurnContext::default()).unwrap().matches().is_empty());
    assert!(catalog.turn(message, &turn(vector.clone())).unwrap().matches().is_empty());
    let named = SKILLS.iter().map(|(n, _, v)| (n.to_uppercase(), v.to_vec())).collect();
    assert_eq!(catalog.set_embeddings(named).unwrap(), 3);
    let found = catalog.turn(message, &turn(vector)).unwrap().matches();
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].skill.as_str(), found[0].reason, found[0].position), ("k8s-debug", Reason::Rank, 0));
    assert!(found[0].score.unwrap() >= crate::RankOptions::default().min_score);
    // Small talk is far from every skill; words alone still work.
    assert!(catalog.turn("thanks, nice weekend", &turn(vec![0.0, 0.0, 0.0, 1.0])).unwrap().matches().is_empty());
    assert_eq!(
        catalog.turn("review these SQL queries for injection", &TurnContext::default()).unwrap().matches()[0].skill,
        "sql-review"
    );
}

#[test]
fn unusable_vectors_are_typed_errors() {
    let mut catalog = catalog();
    let invalid = |e: Result<usize, Error>| matches!(e, Err(Error::InvalidEmbedding { .. }));
    assert!(invalid(
        catalog.set_embeddings(vec![("k8s-debug".into(), vec![1.0, 0.0]), ("sql-review".into(), vec![1.0])])
    ));
    assert!(invalid(catalog.set_embeddings(vec![("k8s-debug".into(), vec![f32::NAN, 1.0])])));
    assert!(invalid(catalog.set_embeddings(vec![("k8s-debug".into(), vec![0.0, 0.0])])));
    assert!(invalid(
        catalog.set_embeddings(vec![("k8s-debug".into(), vec![1.0; crate::MAX_EMBEDDING_DIMENSIONS + 1])])
    ));
    // Nothing was set by the failed calls; unknown names are ignored.
    assert_eq!(catalog.set_embeddings(vec![("nobody".into(), vec![1.0])]).unwrap(), 0);
    assert_eq!(catalog.set_embeddings(vec![("k8s-debug".into(), vec![1.0, 0.0])]).unwrap(), 1);
    let wrong = catalog.turn("pods", &turn(vec![1.0, 0.0, 0.0]));
    assert!(matches!(&wrong, Err(Error::InvalidEmbedding { of, .. }) if of == "message"), "{wrong:?}");
    assert_eq!(wrong.unwrap_err().code(), "invalid_embedding");
}

fn sources() -> Vec<MemorySource> {
    let mut source = MemorySource::new();
    for (name, description, _) in SKILLS {
        source.insert(
            format!("{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"),
        );
    }
    vec![source]
}

#[test]
fn an_engine_embeds_skills_and_messages_with_the_hosts_model() {
    let engine = Engine::new(sources(), Options::default()).with_embedder(Box::new(Concepts));
    assert_eq!(engine.embedding_error(), None);
    let turn = engine.inject("the cluster is on fire again", &TurnContext::default()).unwrap();
    assert_eq!(turn.decisions.len(), 1);
    assert_eq!((turn.decisions[0].skill.as_str(), turn.decisions[0].reason), ("k8s-debug", Reason::Rank));
    assert!(turn.text.contains("Body of k8s-debug."));
    // A failing model leaves ranking lexical, and says why.
    let engine = Engine::new(sources(), Options::default()).with_embedder(Box::new(Broken));
    assert_eq!(engine.embedding_error(), Some("model offline"));
    assert!(engine.inject("the cluster is on fire again", &TurnContext::default()).unwrap().decisions.is_empty());
    assert_eq!(
        engine.turn("review SQL queries for injection risks", &TurnContext::default()).unwrap().matches()[0].skill,
        "sql-review"
    );
}

/// Counts the texts it is asked to embed.
struct Counting(std::rc::Rc<std::cell::Cell<usize>>);

impl Embedder for Counting {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        self.0.set(self.0.get() + texts.len());
        Concepts.embed(texts)
    }
}

#[test]
fn a_turn_on_the_hosts_choice_embeds_nothing() {
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let engine = Engine::new(sources(), Options::default()).with_embedder(Box::new(Counting(asked.clone())));
    let after_build = asked.get();
    assert_eq!(after_build, SKILLS.len());
    let chosen = TurnContext { selected: Some(vec!["sql-review".into()]), ..TurnContext::default() };
    let turn = engine.inject("the cluster is on fire again", &chosen).unwrap();
    assert_eq!(turn.decisions[0].skill, "sql-review");
    assert_eq!(asked.get(), after_build);
    // A ranked turn asks for the message's vector.
    engine.inject("the cluster is on fire again", &TurnContext::default()).unwrap();
    assert_eq!(asked.get(), after_build + 1);
}
