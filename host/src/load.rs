//! Loading the skills a command names: the --skills folders and --mcp servers as sources,
//! the options the arguments give, the engine that runs them (native or the component),
//! and the catalogue cache that spares a run over unchanged folders the build
//! ([`CatalogCache`]).

use crate::args::{CatalogCacheArg, EngineArg, SkillArgs};
use crate::{input, limits, scan_policy, InputError};
use skillwire::{CatalogOptions, CatalogReport, Engine, Options, RankOptions, RenderOptions, ScanBodies, SkillSource};
use skillwire_host::catalog_cache::{CatalogCache, SETTLE};
use skillwire_host::mcp::{McpServer, McpSource};
use skillwire_host::wasm::{CallLimits, Runtime, WasmEngine};
use skillwire_host::{Backend, FsSource};
use std::path::PathBuf;
use std::sync::Arc;

/// Folders holding at least this many skills keep their catalogue in the cache under
/// `--catalog-cache auto` (below it a build takes a few milliseconds).
pub(crate) const AUTO_CACHE_SKILLS: usize = 200;

/// skillwire's cache folder: `$SKILLWIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/skillwire`, else
/// `~/.cache/skillwire`.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    // An empty variable counts as unset (else the cache would land in the working folder).
    let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    var("SKILLWIRE_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("skillwire")))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache").join("skillwire")))
}

/// The component runtime, compiled once, or loaded from the cache folder ([`cache_dir`]).
pub(crate) fn runtime() -> Result<Arc<Runtime>, InputError> {
    let dir = cache_dir();
    let runtime = match dir {
        Some(dir) => Runtime::with_cache(&dir),
        None => Runtime::new(),
    };
    runtime.map(Arc::new).map_err(input)
}

/// The core, natively, over `args`' skills (restored from the catalogue cache when it can be).
pub(crate) fn native_engine(
    args: &SkillArgs,
    render: RenderOptions,
    rank: bool,
) -> Result<Engine<Box<dyn SkillSource + Send + Sync>>, InputError> {
    native_engine_loaded(args, render, rank).map(|(engine, _)| engine)
}

/// [`native_engine`], and whether its catalogue was restored.
fn native_engine_loaded(
    args: &SkillArgs,
    render: RenderOptions,
    rank: bool,
) -> Result<(Engine<Box<dyn SkillSource + Send + Sync>>, bool), InputError> {
    let EngineInputs { sources, options, cache, folders } = engine_inputs(args, render, rank, EngineArg::Native)?;
    let (engine, restored) = cached(args, cache, &folders, |snapshot| {
        Ok(match snapshot {
            // Under another key the snapshot is refreshed: only the changed files are read.
            Some(Snapshot { bytes, key, .. }) => {
                let (engine, restored) = Engine::restore_or_build(sources, options, bytes, key);
                (engine, restored.err().map(|why| why.to_string()))
            }
            None => (Engine::new(sources, options), None),
        })
    })?;
    if args.verbose {
        report(engine.catalog().report());
    } else if !args.mcp.is_empty() {
        say_unlisted(engine.catalog().report());
    }
    Ok((engine, restored))
}

/// The core over `args`' skills, where `kind` says.
pub(crate) fn backend(
    kind: EngineArg,
    args: &SkillArgs,
    render: RenderOptions,
    rank: bool,
) -> Result<Box<dyn Backend>, InputError> {
    backend_loaded(kind, args, render, rank).map(|(engine, _)| engine)
}

/// [`backend`], and whether its catalogue was restored from the catalogue cache.
pub(crate) fn backend_loaded(
    kind: EngineArg,
    args: &SkillArgs,
    render: RenderOptions,
    rank: bool,
) -> Result<(Box<dyn Backend>, bool), InputError> {
    let (mut engine, restored): (Box<dyn Backend>, bool) = match kind {
        EngineArg::Native => {
            let (engine, restored) = native_engine_loaded(args, render, rank)?;
            return Ok((Box::new(engine), restored));
        }
        EngineArg::Wasm => {
            let EngineInputs { sources, options, cache, folders } = engine_inputs(args, render, rank, EngineArg::Wasm)?;
            let runtime = runtime()?;
            let (engine, restored) = cached(args, cache, &folders, |snapshot| match snapshot {
                // Under another key the guest refreshes the snapshot, as the core does natively.
                Some(Snapshot { bytes, key, .. }) => {
                    let made =
                        WasmEngine::restore_or_build(runtime, sources, options, CallLimits::default(), bytes, key);
                    made.map(|(engine, restored)| (engine, restored.err())).map_err(InputError::from)
                }
                None => {
                    let engine = WasmEngine::new(runtime, sources, options, CallLimits::default());
                    Ok((engine.map_err(InputError::from)?, None))
                }
            })?;
            (Box::new(engine), restored)
        }
    };
    if args.verbose {
        report(&engine.report()?);
    } else if !args.mcp.is_empty() {
        say_unlisted(&engine.report()?);
    }
    Ok((engine, restored))
}

/// Says on standard error, without `-v`, that a source could not list its skills: an MCP
/// server whose listing failed once it had answered (a page that does not read, a cursor
/// that came twice, pages past the time limit), whose skills are then left out. (A folder
/// that cannot be walked is refused before, when it is discovered.)
fn say_unlisted(r: &CatalogReport) {
    for s in r.skipped.iter().filter(|s| s.location.is_empty()) {
        eprintln!("skillwire: {}", s.reason);
    }
}

/// A kept snapshot, handed to an engine.
struct Snapshot<'a> {
    bytes: &'a [u8],
    /// The key of the folders as they are now: under another one, the engine refreshes the
    /// snapshot's catalogue (reading only the changed files).
    key: &'a str,
}

/// The engine `make` gives, handed the snapshot `cache` holds if the core would take it
/// ([`CatalogCache::load_any_key`]): `make` restores it, or refreshes or builds and says
/// why it did not restore. A catalogue not restored as it was is kept in the cache for the
/// next run; a failure to keep it is said on standard error (the next runs would build
/// every time). Says whether the engine's catalogue was restored; the `folders` of a
/// restored one walk at their next listing (a `--watch` refresh sees what was added since).
fn cached<E: Backend>(
    args: &SkillArgs,
    cache: Option<CatalogCache>,
    folders: &[FsSource],
    make: impl FnOnce(Option<Snapshot<'_>>) -> Result<(E, Option<String>), InputError>,
) -> Result<(E, bool), InputError> {
    let Some(cache) = cache else { return make(None).map(|(engine, _)| (engine, false)) };
    let (mut engine, how) = match cache.load_any_key() {
        Ok((bytes, stale)) => match (make(Some(Snapshot { bytes: &bytes, key: cache.key() }))?, stale) {
            ((engine, None), _) => {
                if args.verbose {
                    eprintln!("skillwire: catalogue restored from {}", cache.path().display());
                }
                folders.iter().for_each(FsSource::walk_at_next_listing);
                return Ok((engine, true));
            }
            // The skills changed since, or a read failed that may pass now: the engine
            // refreshed the kept catalogue (unless restoring it failed otherwise).
            ((engine, Some(why)), Some(stale)) if why == stale.to_string() => {
                (engine, format!("refreshed ({why}; only the SKILL.md files that changed or failed were read)"))
            }
            ((engine, Some(why)), _) => (engine, format!("built ({why})")),
        },
        Err(why) => (make(None)?.0, format!("built ({why})")),
    };
    let kept = match cache.settled() {
        true => engine.snapshot(cache.key()).map_err(|e| e.to_string()).and_then(|bytes| {
            let stored = cache.store(&bytes).map_err(|e| format!("{}: {e}", cache.path().display()));
            stored.map(|_| format!("kept in {}", cache.path().display()))
        }),
        false => Ok(format!(
            "not kept: a SKILL.md changed less than {} s ago (or has a time in the future)",
            SETTLE.as_secs()
        )),
    };
    match kept {
        Ok(kept) if args.verbose => eprintln!("skillwire: catalogue {how}; {kept}"),
        Ok(_) => {}
        Err(e) => eprintln!("skillwire: catalogue {how}; could not keep it: {e}"),
    }
    Ok((engine, false))
}

/// The catalogue cache for `folders`, if `args` keep one: `--catalog-cache on`, or `auto`
/// with at least [`AUTO_CACHE_SKILLS`] SKILL.md files and no MCP server (whose skills no
/// file's metadata describes), and a cache folder.
fn catalog_cache(
    args: &SkillArgs,
    folders: &[FsSource],
    options: &CatalogOptions,
) -> Result<Option<CatalogCache>, InputError> {
    let skills: usize = folders.iter().map(|f| f.files().len()).sum();
    let dir = cache_dir();
    match args.catalog_cache {
        CatalogCacheArg::Off => return Ok(None),
        CatalogCacheArg::Auto if skills < AUTO_CACHE_SKILLS || !args.mcp.is_empty() => return Ok(None),
        CatalogCacheArg::Auto => {}
        CatalogCacheArg::On if dir.is_none() => {
            return Err(InputError(
                "--catalog-cache on: no cache folder (set SKILLWIRE_CACHE_DIR, XDG_CACHE_HOME or HOME)".to_owned(),
            ))
        }
        CatalogCacheArg::On => {}
    }
    let folders: Vec<&FsSource> = folders.iter().collect();
    Ok(dir.map(|dir| CatalogCache::new(&dir, &folders, options)))
}

/// What an engine is made from.
struct EngineInputs {
    /// The folders, then the MCP servers.
    sources: Vec<Box<dyn SkillSource + Send + Sync>>,
    /// The folders (the engine's sources are clones of them).
    folders: Vec<FsSource>,
    options: Options,
    /// The catalogue cache for the folders, if the arguments keep one.
    cache: Option<CatalogCache>,
}

/// The sources, options and catalogue cache `args` describe, for an engine of `kind` (the
/// component's options are the ones that reach it, for the cache to compare).
fn engine_inputs(
    args: &SkillArgs,
    render: RenderOptions,
    rank: bool,
    kind: EngineArg,
) -> Result<EngineInputs, InputError> {
    if args.catalog_cache == CatalogCacheArg::On && !args.mcp.is_empty() {
        let refused = "--catalog-cache on keeps the catalogue of --skills folders only, not of --mcp servers";
        return Err(InputError(refused.to_owned()));
    }
    let limits = limits(&args.limit)?;
    let mut folders = Vec::new();
    for path in &args.paths {
        let source = FsSource::discover(path).map_err(|e| InputError(format!("--skills {}: {e}", path.display())))?;
        if args.verbose {
            for (link, to) in source.links_outside() {
                let (link, to, root) = (link.display(), to.display(), source.root());
                let root = root.display();
                eprintln!("skipped {link}: a link to {to}, outside {root} (pass that path to --skills to use it)");
            }
        }
        // A path that holds no skill is most often a wrong path: said, not an error.
        if source.files().is_empty() && !args.quiet_when_empty {
            eprintln!("skillwire: no SKILL.md found at {} (a skill is a folder holding a SKILL.md)", path.display());
        }
        folders.push(source.with_max_bytes(limits.max_skill_md_bytes));
    }
    let mut sources: Vec<Box<dyn SkillSource + Send + Sync>> = Vec::new();
    sources.extend(folders.iter().map(|f| Box::new(f.clone()) as Box<dyn SkillSource + Send + Sync>));
    // Two servers with one name are two origins: a later one is labelled NAME-N, N its place
    // among the --mcp flags.
    let mut labels: Vec<String> = Vec::new();
    for (n, server) in args.mcp.iter().enumerate() {
        let mut source =
            McpSource::connect(&McpServer::parse(server)).map_err(|e| InputError(format!("--mcp {server}: {e}")))?;
        if labels.iter().any(|label| skillwire::same_origin(label, source.origin())) {
            // Room for the suffix within the label's limit; the `--mcp` position makes it unique.
            let base: String = source.origin().chars().take(skillwire::MAX_ORIGIN_BYTES - 6).collect();
            source = source.with_origin(&format!("{base}-{}", n + 1));
        }
        labels.push(source.origin().to_owned());
        sources.push(Box::new(source.with_limits(limits.clone())));
    }
    let available = args.available.iter().map(|a| a.trim().to_owned()).filter(|a| !a.is_empty()).collect();
    let rank = RankOptions {
        enabled: rank,
        max_ranked: args.rank_max,
        min_score: args.rank_min_score,
        min_ratio: args.rank_min_ratio,
        min_coverage: args.rank_min_coverage,
        semantic_weight: args.rank_semantic_weight,
        min_similarity: args.rank_min_similarity,
        headings: args.rank_headings,
    };
    let catalog = CatalogOptions {
        precedence: args.precedence.into(),
        available,
        limits,
        rank,
        scan: scan_policy(&args.scan)?,
        not_user_invocable: args.not_user_invocable.into(),
        scan_bodies: args.scan_bodies.map_or_else(ScanBodies::default, Into::into),
        allow: args.allow.clone(),
        deny: args.deny.clone(),
    };
    let mut options = Options { catalog, render };
    if kind == EngineArg::Wasm {
        options = WasmEngine::crossed(options);
    }
    let cache = catalog_cache(args, &folders, &options.catalog)?;
    Ok(EngineInputs { sources, options, cache, folders })
}

pub(crate) fn report(r: &CatalogReport) {
    eprintln!("skillwire: {} skills loaded", r.loaded);
    for s in &r.skipped {
        eprintln!("skipped {}: {}", s.location, s.reason);
    }
    for s in &r.shadowed {
        eprintln!("shadowed {} ({}) by {}", s.name, s.location, s.by);
    }
    for g in &r.gated {
        eprintln!("gated {} ({}): {}", g.name, g.location, g.reason());
    }
    for w in &r.warnings {
        eprintln!("{} ({})", w.diagnostic, w.location);
    }
    if !r.mention_only.is_empty() {
        let (count, names) = (r.mention_only.len(), r.mention_only.join(", "));
        let skills = if count == 1 { "skill fires" } else { "skills fire" };
        eprintln!("skillwire: {count} {skills} only when @mentioned: {names}");
    }
    for f in &r.flagged {
        let state = if f.blocked { "blocked" } else { "flagged" };
        eprintln!("{state} {} ({})", f.name, f.location);
        for finding in &f.findings {
            eprintln!("  {finding}");
        }
    }
}
