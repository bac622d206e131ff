//! What the server says about its skills: the catalogue as the engine lists it, and each
//! skill's manifest for the MCP skills extension (SEP-2640, `io.modelcontextprotocol/skills`):
//! `skill://NAME/PATH` URIs, the SKILL.md's frontmatter as JSON, and every file the engine
//! hands out with its size and SHA-256.

use crate::wasm::WasmError;
use crate::Backend;
use rmcp::model::{SkillFrontmatter, SkillResource, SkillResources};
use skillwire::{CatalogFormat, FileBody, FileError, Limits};
use std::collections::BTreeMap;

/// The scheme of the URIs the server gives skills and their files.
pub(crate) const SCHEME: &str = "skill://";

/// A skill the server serves: to the model (the catalogue lists it), to the user (a prompt),
/// or both.
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct Listed {
    pub(crate) name: String,
    pub(crate) description: String,
    /// The catalogue lists it to the model (`find_skills`, `load_skill`).
    #[serde(skip)]
    pub(crate) model: bool,
    /// A user may invoke it (an MCP prompt).
    #[serde(skip)]
    pub(crate) user: bool,
}

/// The catalogue at one moment: what the tools, prompts and resources offer, read once per
/// (re)build so that requests look skills up by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    /// Every skill served, the model's in catalogue order first, each once.
    pub(crate) served: Vec<Listed>,
    /// Index in `served` by name, in the order of the names (`skills/list` pages through it:
    /// a page's cursor, the last name given, keeps its place when skills come and go).
    by_name: BTreeMap<String, usize>,
}

impl Snapshot {
    /// Reads the catalogue from `engine`.
    pub(crate) fn read(engine: &mut dyn Backend) -> Result<Snapshot, String> {
        let failed = |e: WasmError| e.to_string();
        let catalog = engine.catalog_text(CatalogFormat::Json, None).map_err(failed)?;
        let served: Vec<Listed> =
            serde_json::from_str(&catalog.text).map_err(|e| format!("the catalogue's JSON: {e}"))?;
        let mut snapshot = Snapshot { served, by_name: BTreeMap::new() };
        let report = engine.report().map_err(failed)?;
        let mention_only: std::collections::HashSet<&str> = report.mention_only.iter().map(String::as_str).collect();
        for (i, skill) in snapshot.served.iter_mut().enumerate() {
            // A skill that fires only when @mentioned (`disable-model-invocation`) is the
            // user's to invoke (a prompt), not the model's to find or load.
            skill.model = !mention_only.contains(skill.name.as_str());
            snapshot.by_name.insert(skill.name.clone(), i);
        }
        let limit = report.loaded;
        for completion in engine.complete("", limit.max(1)).map_err(failed)? {
            match snapshot.by_name.get(&completion.name) {
                // The full description is the catalogue's (completions shorten it).
                Some(&i) => snapshot.served.get_mut(i).into_iter().for_each(|skill| skill.user = true),
                None => {
                    snapshot.by_name.insert(completion.name.clone(), snapshot.served.len());
                    let (name, description) = (completion.name, completion.description);
                    snapshot.served.push(Listed { name, description, model: false, user: true });
                }
            }
        }
        Ok(snapshot)
    }

    /// The skills served, in the order of their names, from the first whose name sorts
    /// after `after` (from the first, without it).
    pub(crate) fn by_name_after(&self, after: Option<&str>) -> impl Iterator<Item = &Listed> {
        use std::ops::Bound::{Excluded, Unbounded};
        let from = after.map_or(Unbounded, Excluded);
        self.by_name.range::<str, _>((from, Unbounded)).filter_map(|(_, &i)| self.served.get(i))
    }

    /// The skill named `name`, when the server serves it.
    pub(crate) fn get(&self, name: &str) -> Option<&Listed> {
        self.by_name.get(name).and_then(|&i| self.served.get(i))
    }
}

/// The URI of file `path` of skill `name`: `skill://NAME/PATH`, each percent-encoded where a
/// URI needs it (a name may be `NAME@ORIGIN`, and `@` there would start a URI's user part;
/// a name or path may hold letters beyond ASCII).
pub(crate) fn file_uri(name: &str, path: &str) -> String {
    let mut uri = String::with_capacity(SCHEME.len() + name.len() + 1 + path.len());
    uri.push_str(SCHEME);
    percent_encode(name, b"", &mut uri);
    uri.push('/');
    percent_encode(path, b"/", &mut uri);
    uri
}

/// `text` appended to `uri` with every byte but RFC 3986's unreserved ones and `also`
/// written as `%XX`.
fn percent_encode(text: &str, also: &[u8], uri: &mut String) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) || also.contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
}

/// The skill name and file path a `skill://NAME/PATH` URI names (both decoded, so a name
/// written as it is and one percent-encoded are the same skill), or `None` when it is not
/// such a URI. The path is checked by the core when it is read.
pub(crate) fn parse_uri(uri: &str) -> Option<(String, String)> {
    let rest = uri.strip_prefix(SCHEME)?;
    let (name, path) = rest.split_once('/')?;
    Some((percent_decode(name)?, percent_decode(path)?))
}

/// `%XX` sequences decoded; `None` for a malformed one or bytes that are not UTF-8.
pub(crate) fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte == b'%' {
            let hex = bytes.get(at + 1..at + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            at += 3;
        } else {
            out.push(byte);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Most files a skill's manifest lists: the limit the skills extension sets hosts.
pub(crate) const MAX_MANIFEST_FILES: usize = 512;
/// Most bytes a skill's files may add up to in a manifest (the extension's 16 MiB).
pub(crate) const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// A skill's entry for `skills/list` and `skills/get` (every file the server serves, read
/// and hashed), or why it has none: a skill whose folder holds more than the extension's
/// limits, whose SKILL.md has no `name` and `description` strings (the loader falls back
/// to the folder's name; the extension needs the field as written), or whose name breaks
/// the extension's rules, is served through the tools, prompts and resources only.
pub(crate) fn manifest(engine: &mut dyn Backend, name: &str, limits: &Limits) -> Result<rmcp::model::Skill, String> {
    let files = engine.files(name).map_err(|e| e.to_string())?;
    let total: u64 = files.files.iter().map(|f| f.size).sum();
    if files.left_out > 0 || files.files.len() > MAX_MANIFEST_FILES || total > MAX_MANIFEST_BYTES {
        return Err(format!(
            "{name}: {} files of {total} bytes, more than a manifest lists ({MAX_MANIFEST_FILES} files, \
             {MAX_MANIFEST_BYTES} bytes)",
            files.files.len() + files.left_out
        ));
    }
    let mut resources = Vec::new();
    let mut frontmatter = None;
    for file in &files.files {
        let content = match engine.read_file(name, &file.path) {
            Ok(content) => content,
            // A file the policy refuses is not served, so not listed.
            Err(WasmError::File(FileError::Blocked { .. } | FileError::TooLarge { .. })) => continue,
            Err(e) => return Err(format!("{name}: {}: {e}", file.path)),
        };
        if file.path == "SKILL.md" {
            if let FileBody::Text(text) = &content.body {
                frontmatter = Some(skillwire::frontmatter_json(text, limits).map_err(|d| d.message)?);
            }
        }
        resources.push(SkillResource::new(file_uri(name, &file.path), content.digest, content.size));
    }
    let fields = frontmatter.ok_or_else(|| format!("{name}: its SKILL.md is not served"))?;
    let text = |key: &str| fields.get(key).and_then(serde_json::Value::as_str).map(str::to_owned);
    let (Some(written_name), Some(description)) = (text("name"), text("description")) else {
        return Err(format!("{name}: its frontmatter has no name or description string"));
    };
    let mut front = SkillFrontmatter::new(written_name, description);
    for (key, value) in fields {
        if key != "name" && key != "description" {
            front = front.with_field(key, value);
        }
    }
    let skill = rmcp::model::Skill::new(file_uri(name, "SKILL.md"), front, SkillResources::Files(resources));
    skill.validate().map_err(|e| format!("{name}: {e}"))?;
    Ok(skill)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_a_skill_and_a_path_and_read_back() {
        assert_eq!(file_uri("pdf", "references/forms.md"), "skill://pdf/references/forms.md");
        assert_eq!(file_uri("pdf", "a b/é.md"), "skill://pdf/a%20b/%C3%A9.md");
        assert_eq!(parse_uri("skill://pdf/a%20b/%C3%A9.md"), Some(("pdf".to_owned(), "a b/é.md".to_owned())));
        assert_eq!(parse_uri("skill://pdf/%2e%2e/secret"), Some(("pdf".to_owned(), "../secret".to_owned())));
        assert_eq!(parse_uri("skill://pdf/%zz"), None);
        assert_eq!(parse_uri("skill://pdf/%+1"), None);
        assert_eq!(parse_uri("skill://pdf/a%2"), None);
        assert_eq!(parse_uri("skill://pdf/%e9"), None);
        assert_eq!(parse_uri("file:///etc/passwd"), None);
        assert_eq!(parse_uri("skill://pdf"), None);
    }

    /// A name beyond ASCII, or qualified by its origin, is percent-encoded in its URI, and
    /// read back from that and from the name as written (a client may encode an IRI).
    #[test]
    fn names_are_encoded_where_a_uri_needs_it() {
        assert_eq!(file_uri("pdf@team-2", "SKILL.md"), "skill://pdf%40team-2/SKILL.md");
        assert_eq!(file_uri("café", "SKILL.md"), "skill://caf%C3%A9/SKILL.md");
        let cafe = Some(("café".to_owned(), "SKILL.md".to_owned()));
        assert_eq!(parse_uri("skill://caf%C3%A9/SKILL.md"), cafe);
        assert_eq!(parse_uri("skill://café/SKILL.md"), cafe);
        assert_eq!(parse_uri("skill://pdf%40team-2/SKILL.md"), Some(("pdf@team-2".to_owned(), "SKILL.md".to_owned())));
        assert_eq!(parse_uri("skill://pdf@team-2/SKILL.md"), Some(("pdf@team-2".to_owned(), "SKILL.md".to_owned())));
        assert_eq!(parse_uri("skill://caf%C3/SKILL.md"), None);
    }
}
