//! `skillwire eval` and `skillwire bench`: what they read (labelled messages, trigger
//! evals, embeddings, bench messages, stats) and how they time and print.

use crate::args::BenchOpArg;
use crate::InputError;
use skillwire::{EvalReport, LabelledMessage, SkillStats, TurnContext};
use skillwire_host::Backend;
use std::path::{Path, PathBuf};

/// The labelled messages in each skill's `evals/*.json` (see [`skillwire::read_trigger_evals`]).
/// The catalogue's skills (shadowed ones too) are located by their SKILL.md paths, so
/// no folder is searched again; skills from an origin (an MCP server) have no folder here.
pub(crate) fn trigger_evals(catalog: &skillwire::Catalog) -> Result<Vec<LabelledMessage>, InputError> {
    let mut all = Vec::new();
    for entry in catalog.skills().iter().chain(catalog.shadowed()).filter(|e| e.origin.is_none()) {
        let Some(dir) = Path::new(&entry.skill.location).parent().map(|d| d.join("evals")) else { continue };
        let Ok(listing) = std::fs::read_dir(&dir) else { continue };
        let mut evals: Vec<PathBuf> = listing
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        evals.sort();
        for eval in evals {
            let what = |e: &dyn std::fmt::Display| InputError(format!("{}: {e}", eval.display()));
            let text = std::fs::read_to_string(&eval).map_err(|e| what(&e))?;
            all.extend(skillwire::read_trigger_evals(&entry.skill.name, &text).map_err(|e| what(&e))?);
        }
    }
    Ok(all)
}

/// Largest --embeddings file read, in bytes.
const MAX_EMBEDDINGS_FILE_BYTES: u64 = 512 << 20;

/// An --embeddings file: text → vector, from `{"vectors": {…}}` or the map alone.
pub(crate) fn read_embeddings(path: &Path) -> Result<std::collections::HashMap<String, Vec<f32>>, InputError> {
    let what = |e: &dyn std::fmt::Display| InputError(format!("--embeddings {}: {e}", path.display()));
    let size = std::fs::metadata(path).map_err(|e| what(&e))?.len();
    if size > MAX_EMBEDDINGS_FILE_BYTES {
        return Err(what(&format!("{size} bytes; the limit is {MAX_EMBEDDINGS_FILE_BYTES}")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| what(&e))?;
    let mut value: serde_json::Value = serde_json::from_str(&text).map_err(|e| what(&e))?;
    if let Some(inner) = value.get_mut("vectors") {
        value = inner.take();
    }
    serde_json::from_value(value).map_err(|e| what(&e))
}

/// An evaluation for people: the figures, the skills with the most misses and false
/// fires, the competing pairs, and with `misses` every message routing got wrong.
pub(crate) fn eval_text(r: &EvalReport, misses: bool) -> String {
    let share = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.3}"));
    let mut lines = vec![
        format!("{} messages: {} expect a skill, {} expect none", r.messages, r.positives, r.negatives),
        format!("hit rate         {}", share(r.hit)),
        format!("top-1            {}", share(r.top1)),
        format!("precision        {}", share(r.precision)),
        format!("false injection  {}", share(r.false_injection)),
        format!("not violated     {}", r.not_violated),
    ];
    let recall: Vec<String> = r.recall_at.iter().map(|x| format!("@{} {}", x.k, share(x.recall))).collect();
    lines.push(format!("ranking recall   {}", recall.join("  ")));
    let mut worst: Vec<&skillwire::SkillFigures> =
        r.skills.iter().filter(|s| s.recalled < s.expected || s.false_fires > 0).collect();
    worst.sort_by(|a, b| {
        let cost = |s: &skillwire::SkillFigures| s.expected - s.recalled + s.false_fires;
        cost(b).cmp(&cost(a)).then_with(|| a.skill.cmp(&b.skill))
    });
    if !worst.is_empty() {
        lines.push(String::new());
        lines.push(format!("{:<32} {:>8} {:>8} {:>11}  taken by", "skill", "expected", "recalled", "false fires"));
        for s in worst.iter().take(20) {
            let taken: Vec<String> = s.taken_by.iter().map(|c| format!("{} ({})", c.skill, c.count)).collect();
            lines.push(format!(
                "{:<32} {:>8} {:>8} {:>11}  {}",
                s.skill,
                s.expected,
                s.recalled,
                s.false_fires,
                taken.join(", ")
            ));
        }
        if worst.len() > 20 {
            lines.push(format!("… and {} more (--json lists every skill)", worst.len() - 20));
        }
    }
    if !r.pairs.is_empty() {
        lines.push(String::new());
        lines.push("competing pairs (injected instead of or beside the expected skill):".to_owned());
        for p in r.pairs.iter().take(10) {
            lines.push(format!("  {} took {} message(s) of {}", p.taker, p.count, p.expected));
        }
    }
    if misses && !r.misses.is_empty() {
        lines.push(String::new());
        lines.push("misses:".to_owned());
        for m in &r.misses {
            let expect = m.expect.as_ref().map_or_else(|| "-".to_owned(), |e| e.join(","));
            let not = if m.not.is_empty() { String::new() } else { format!(" not {}", m.not.join(",")) };
            lines.push(format!("  want [{expect}]{not}, got [{}]: {}", m.injected.join(","), m.q));
        }
    }
    lines.join("\n")
}

/// Per-turn figures of a bench run.
pub(crate) struct BenchFigures {
    pub(crate) p50_us: f64,
    pub(crate) p99_us: f64,
    pub(crate) mean_us: f64,
    pub(crate) turns_per_second: f64,
}

/// Runs every message once (warm-up), then `turns` timed turns over the messages in turn.
pub(crate) fn bench(
    engine: &mut dyn Backend,
    messages: &[String],
    turns: usize,
    op: BenchOpArg,
) -> Result<BenchFigures, InputError> {
    if messages.is_empty() || turns == 0 {
        return Err(InputError("bench needs at least one message and one turn".to_owned()));
    }
    let turn = |engine: &mut dyn Backend, message: &str| -> Result<(), InputError> {
        match op {
            BenchOpArg::Inject => engine.inject(message, &TurnContext::default()).map(drop)?,
            BenchOpArg::Match => engine.matches(message, &TurnContext::default()).map(drop)?,
        }
        Ok(())
    };
    for message in messages {
        turn(engine, message)?;
    }
    let mut times = Vec::with_capacity(turns);
    for message in messages.iter().cycle().take(turns) {
        let started = std::time::Instant::now();
        turn(engine, message)?;
        times.push(started.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times.get(((times.len() - 1) as f64 * p).round() as usize).copied().unwrap_or(0.0);
    let total: f64 = times.iter().sum();
    Ok(BenchFigures {
        p50_us: at(0.5),
        p99_us: at(0.99),
        mean_us: total / times.len() as f64,
        turns_per_second: if total > 0.0 { times.len() as f64 / (total / 1e6) } else { 0.0 },
    })
}

pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The messages of a bench file: one per non-empty line, the "q" field of a JSON
/// object or the line itself.
pub(crate) fn read_messages(path: &Path) -> Result<Vec<String>, InputError> {
    let text = std::fs::read_to_string(path).map_err(|e| InputError(format!("--messages {}: {e}", path.display())))?;
    Ok(text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(object)) => match object.get("q") {
                Some(serde_json::Value::String(q)) => q.clone(),
                _ => line.to_owned(),
            },
            _ => line.to_owned(),
        })
        .collect())
}

/// Largest --stats file read, in bytes.
const MAX_STATS_FILE_BYTES: u64 = 32 << 20;

/// A --stats file: the host's records of its skills.
pub(crate) fn read_stats(path: &Path) -> Result<Vec<SkillStats>, InputError> {
    let what = |e: &dyn std::fmt::Display| InputError(format!("--stats {}: {e}", path.display()));
    let size = std::fs::metadata(path).map_err(|e| what(&e))?.len();
    if size > MAX_STATS_FILE_BYTES {
        return Err(what(&format!("{size} bytes; the limit is {MAX_STATS_FILE_BYTES}")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| what(&e))?;
    serde_json::from_str(&text).map_err(|e| what(&e))
}
