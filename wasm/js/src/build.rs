//! What only the whole module has (feature `build`, the npm package's default module):
//! building catalogues from the JS sources, linting, LLM selection, tools and skills' files.
//! The turn path shared with `skillwire/turns` is in the crate root.

use super::{core_error, error, from_js, to_js, Catalog};
use serde::{Deserialize, Serialize};
use skillwire::{
    EntryUpdate, FileBody, FileError, FileRequest, LintOptions, ListedFile, Need, Options, Provider, RenderOptions,
    SelectOptions, SkillEntry, SkillStats, SourceError, ToolOptions, TurnContext,
};
use wasm_bindgen::prelude::*;

/// A refused file request as a JS `Error` with its `code` and the error's fields, named as
/// in Rust: `skill`; `path`; `problem` (the path problem, or the source's reason); `bytes`
/// and `limit` for a file over the limit; the scan's `findings` for a blocked file.
fn file_error(e: FileError) -> JsValue {
    let js = error(e.code(), &e.to_string());
    let set = |key: &str, value: JsValue| {
        let _ = js_sys::Reflect::set(&js, &JsValue::from_str(key), &value);
    };
    match &e {
        FileError::UnknownSkill { skill } | FileError::BlockedSkill { skill } => set("skill", skill.into()),
        FileError::InvalidPath { path, problem } => {
            set("path", path.into());
            set("problem", problem.as_str().into());
        }
        FileError::TooLarge { path, bytes, limit } => {
            set("path", path.into());
            // Numbers, not BigInt: sizes are far below 2^53.
            set("bytes", JsValue::from_f64(*bytes as f64));
            set("limit", JsValue::from_f64(*limit as f64));
        }
        FileError::Unavailable { path, problem } => {
            set("path", path.into());
            set("problem", problem.into());
        }
        FileError::Blocked { path, findings } => {
            set("path", path.into());
            if let Ok(findings) = to_js(findings) {
                set("findings", findings);
            }
        }
    }
    js
}

fn request_from_js(request: JsValue) -> Result<FileRequest, JsValue> {
    serde_wasm_bindgen::from_value(request).map_err(|e| error("invalid_argument", &format!("request: {e}")))
}

/// One listed entry: its location, and its text when the source gave it, or why the
/// text it gave is refused (a string surely over the limit, refused before it is copied);
/// its origin, stamp and id when it has them.
#[derive(Deserialize, Default)]
struct EntryInput {
    location: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    origin: Option<String>,
    #[serde(default)]
    stamp: Option<String>,
    #[serde(default)]
    id: Option<String>,
}

/// A catalogue being built from the JS sources (the core's `CatalogBuild`): the JS side
/// asks `need()` what is needed, does it (sync or async) and answers.
#[wasm_bindgen]
pub struct Build {
    build: Option<skillwire::CatalogBuild>,
    render: RenderOptions,
    /// Entries listed with a refused text: their read is answered with the refusal here,
    /// without asking the source.
    refused: Vec<(usize, String, String)>,
}

#[wasm_bindgen]
impl Build {
    /// A build over `sources` sources with options shaped like the core's `Options`;
    /// with `embed`, the skills are embedded once the catalogue is built.
    #[wasm_bindgen(constructor)]
    pub fn new(sources: u32, options: JsValue, embed: bool) -> Result<Build, JsValue> {
        let options: Options = from_js(options, "options")?;
        let build = skillwire::CatalogBuild::new(sources as usize, options.catalog, embed);
        Ok(Build { build: Some(build), render: options.render, refused: Vec::new() })
    }

    /// What is needed next: `{need: "list", source}`, `{need: "read", source, location}`,
    /// `{need: "embed", texts}` or `{need: "done"}`.
    pub fn need(&mut self) -> Result<JsValue, JsValue> {
        loop {
            let need = self.live()?.need();
            if let Need::Read { source, location } = &need {
                let known = self.refused.iter().position(|(s, l, _)| s == source && l == location);
                if let Some((_, _, error)) = known.map(|i| self.refused.swap_remove(i)) {
                    // Refused for its size: as lasting as the text.
                    self.live()?.read(Err(SourceError::refusal(error)));
                    continue;
                }
            }
            return to_js(&need);
        }
    }

    /// The answer to `list` of source `source`: the entries (`[{location, text?,
    /// error?, origin?, stamp?, id?}]`), or the error.
    pub fn listed(&mut self, source: u32, entries: JsValue, error: Option<String>) -> Result<(), JsValue> {
        let entries = match error {
            Some(e) => Err(e),
            None => {
                let entries: Vec<EntryInput> = from_js(entries, "entries")?;
                let mut listed = Vec::with_capacity(entries.len());
                for e in entries {
                    if let Some(error) = e.error {
                        self.refused.push((source as usize, e.location.clone(), error));
                    }
                    let EntryInput { location, text, origin, stamp, id, .. } = e;
                    listed.push(SkillEntry { location, text, origin, stamp, id });
                }
                Ok(listed)
            }
        };
        self.live()?.listed(entries);
        Ok(())
    }

    /// The answer to `read`: the text, or the error and whether it is a refusal that
    /// lasts until the SKILL.md changes (the core's `SourceError::refused`).
    pub fn read(&mut self, text: Option<String>, error: Option<String>, refused: bool) -> Result<(), JsValue> {
        let text = text.ok_or_else(|| {
            let message = error.unwrap_or_else(|| "read() gave no text".to_owned());
            SourceError { message, refused }
        });
        self.live()?.read(text);
        Ok(())
    }

    /// The answer to `read` as the SKILL.md's bytes (a `Uint8Array` the source gave): its
    /// text, or the core's refusal of bytes that are not UTF-8.
    #[wasm_bindgen(js_name = readBytes)]
    pub fn read_bytes(&mut self, bytes: Vec<u8>) -> Result<(), JsValue> {
        self.live()?.read(skillwire::text_from_utf8(bytes));
        Ok(())
    }

    /// The answer to `embed`: one vector per text (`number[][]`), or the error.
    pub fn embedded(&mut self, vectors: JsValue, error: Option<String>) -> Result<(), JsValue> {
        let vectors = match error {
            Some(e) => Err(e),
            None => Ok(from_js::<Vec<Vec<f32>>>(vectors, "vectors")?),
        };
        self.live()?.embedded(vectors);
        Ok(())
    }

    /// Reuses what `previous` (a catalogue of the same sources, left as it is) prepared for
    /// entries listed again with the same stamp: they are not read. Before the first need.
    pub fn reuse(&mut self, previous: &Catalog) -> Result<(), JsValue> {
        let build = self.build.take().ok_or_else(|| error("freed", "this build is finished"))?;
        self.build = Some(build.reusing(&previous.catalog));
        Ok(())
    }

    /// The catalogue; the build is spent.
    pub fn finish(&mut self) -> Result<Catalog, JsValue> {
        let build = self.build.take().ok_or_else(|| error("freed", "this build is finished"))?;
        let (catalog, embedding_error) = build.finish();
        Ok(Catalog { catalog, render: self.render.clone(), embedding_error })
    }

    fn live(&mut self) -> Result<&mut skillwire::CatalogBuild, JsValue> {
        self.build.as_mut().ok_or_else(|| error("freed", "this build is finished"))
    }
}

#[wasm_bindgen]
impl Catalog {
    /// Takes one changed entry of source `source` (`{location, text?, error?, origin?,
    /// stamp?, id?}`, as a listing gives it; `text`: its SKILL.md, read by the caller when
    /// the entry came without it) in place (the core's `Catalog::update_entry`):
    /// `'in-place'` when that changed nothing but the entry, `'reindexed'` when the indexes
    /// were made again around it (the skills read again without embeddings: see
    /// `missingEmbeddingTexts`), `'not-taken'` when it cannot be: the caller refreshes.
    pub fn update(&mut self, source: u32, entry: JsValue, text: Option<String>) -> Result<String, JsValue> {
        let entry: EntryInput = from_js(entry, "entry")?;
        // Refused (over the size limit): not taken; the refresh reports it.
        if entry.error.is_some() {
            return Ok("not-taken".to_owned());
        }
        let EntryInput { location, text: listed, origin, stamp, id, .. } = entry;
        let entry = SkillEntry { location, text: listed.or(text), origin, stamp, id };
        let unread = |_: &str| Err(SourceError::new("no text was given"));
        Ok(done_name(self.catalog.update_entry(source as usize, entry, unread)))
    }

    /// Takes the entry of source `source` at `location` out in place (the core's
    /// `Catalog::remove_entry`): `'reindexed'` when it was, the indexes made again around the
    /// skills left (which keep their vectors), `'not-taken'` when it cannot be: the caller
    /// refreshes.
    pub fn remove(&mut self, source: u32, location: &str) -> String {
        done_name(self.catalog.remove_entry(source as usize, location))
    }

    /// After an update `'reindexed'`: what to embed for the skills without a vector while
    /// the others kept the model's (`[{skill, text}]`; every skill's when none has one).
    #[wasm_bindgen(js_name = missingEmbeddingTexts)]
    pub fn missing_embedding_texts(&self) -> Result<JsValue, JsValue> {
        to_js(&self.catalog.missing_embedding_texts())
    }

    /// The model's vectors for texts `missingEmbeddingTexts()` gave, as `[[text, number[]]]`
    /// (a text no skill without a vector has now is left out); returns how many skills
    /// have one.
    #[wasm_bindgen(js_name = takeMissingEmbeddings)]
    pub fn take_missing_embeddings(&mut self, vectors: JsValue) -> Result<usize, JsValue> {
        let vectors: Vec<(String, Vec<f32>)> = from_js(vectors, "vectors")?;
        self.catalog.take_missing_embeddings(vectors).map_err(core_error)
    }

    /// The selection prompt (`SelectPrompt`) for `message`; `stats` is
    /// `[SkillStats]`, `options` the core's `SelectOptions` (fields optional).
    #[wasm_bindgen(js_name = selectPrompt)]
    pub fn select_prompt(
        &self,
        message: &str,
        turn: JsValue,
        stats: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let context: TurnContext = from_js(turn, "turn")?;
        let stats: Vec<SkillStats> = from_js(stats, "stats")?;
        let options: SelectOptions = from_js(options, "options")?;
        to_js(&self.catalog.select_prompt(message, &context, &stats, &options).map_err(core_error)?)
    }

    /// The model's reply to a selection prompt, read (`Selection`).
    #[wasm_bindgen(js_name = selectParse)]
    pub fn select_parse(&self, reply: &str, max_skills: u32) -> Result<JsValue, JsValue> {
        to_js(&self.catalog.select_parse(reply, max_skills as usize).map_err(core_error)?)
    }

    /// The skills a model may invoke, as tools (`[SkillTool]`), less `exclude` (names).
    pub fn tools(&self, exclude: JsValue) -> Result<JsValue, JsValue> {
        let exclude: Vec<String> = from_js(exclude, "exclude")?;
        to_js(&self.catalog.tools(&ToolOptions { exclude }))
    }

    /// The tools in `provider`'s shape (`openai`, `anthropic`).
    #[wasm_bindgen(js_name = toolDefinitions)]
    pub fn tool_definitions(&self, provider: JsValue, exclude: JsValue) -> Result<JsValue, JsValue> {
        let provider: Provider = serde_wasm_bindgen::from_value(provider)
            .map_err(|e| error("invalid_argument", &format!("provider: {e}")))?;
        let exclude: Vec<String> = from_js(exclude, "exclude")?;
        to_js(&self.catalog.tool_definitions(provider, &ToolOptions { exclude }))
    }
}

#[wasm_bindgen]
impl Catalog {
    /// Where to list skill `skill`'s files: `{skill, source, location, path, max_bytes}`
    /// (hand it back to `fileList` as it is).
    #[wasm_bindgen(js_name = filesRequest)]
    pub fn files_request(&self, skill: &str) -> Result<JsValue, JsValue> {
        to_js(&self.catalog.files_request(skill).map_err(file_error)?)
    }

    /// Where to read file `path` of skill `skill`, the path checked and normalised.
    #[wasm_bindgen(js_name = fileRequest)]
    pub fn file_request(&self, skill: &str, path: &str) -> Result<JsValue, JsValue> {
        to_js(&self.catalog.file_request(skill, path).map_err(file_error)?)
    }

    /// The files the source listed for `request` (`[{path, size}]`), or `error` why not;
    /// neither: the source has no files. `{skill, files, left_out}`.
    #[wasm_bindgen(js_name = fileList)]
    pub fn file_list(&self, request: JsValue, listed: JsValue, error: Option<String>) -> Result<JsValue, JsValue> {
        let request = request_from_js(request)?;
        let listed: Result<Vec<ListedFile>, String> = match error {
            Some(e) => Err(e),
            None if listed.is_undefined() || listed.is_null() => Err(skillwire::NO_FILES.to_owned()),
            None => Ok(from_js(listed, "listed")?),
        };
        to_js(&self.catalog.file_list(&request, listed).map_err(file_error)?)
    }

    /// A model's call of the read-file tool (`arguments`: the JSON it wrote): `{request}` to
    /// read through the source and hand to `readFileAnswer`, or `{answer: {content,
    /// is_error}}` when the arguments, the skill or the path are refused.
    #[wasm_bindgen(js_name = readFileCall)]
    pub fn read_file_call(&self, arguments: &str) -> Result<JsValue, JsValue> {
        let max = self.catalog.limits().max_message_bytes;
        let step = match skillwire::read_file_arguments(arguments, max) {
            Err(answer) => CallStep::Answer { answer },
            Ok(call) => match self.catalog.file_request(&call.skill, &call.path) {
                Ok(request) => CallStep::Read { request },
                Err(e) => CallStep::Answer { answer: skillwire::read_file_answer(&Err(e)) },
            },
        };
        to_js(&step)
    }

    /// The answer to a read-file call from what the source read for its `request` (as
    /// `fileContent` takes it): `{content, is_error}`.
    #[wasm_bindgen(js_name = readFileAnswer)]
    pub fn read_file_answer(
        &self,
        request: JsValue,
        bytes: Option<Vec<u8>>,
        error: Option<String>,
    ) -> Result<JsValue, JsValue> {
        to_js(&skillwire::read_file_answer(&read_content(&self.catalog, request, bytes, error)?))
    }

    /// The file the source read for `request` (its bytes), or `error` why not; neither:
    /// the source has no files. The core's `FileContent`, a binary body's `value` a
    /// `Uint8Array`.
    #[wasm_bindgen(js_name = fileContent)]
    pub fn file_content(
        &self,
        request: JsValue,
        bytes: Option<Vec<u8>>,
        error: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let content = read_content(&self.catalog, request, bytes, error)?.map_err(file_error)?;
        let value = to_js(&content)?;
        if let FileBody::Binary(bytes) = &content.body {
            let body = js_sys::Reflect::get(&value, &JsValue::from_str("body"))?;
            js_sys::Reflect::set(&body, &JsValue::from_str("value"), &js_sys::Uint8Array::from(bytes.as_slice()))?;
        }
        Ok(value)
    }
}

/// What a source's `readFile` gave: its bytes, or why not; neither: it has no files.
/// What the source read for `request` (its bytes, or `error` why not), through the core's
/// checks: what `fileContent` and `readFileAnswer` both start from.
fn read_content(
    catalog: &skillwire::Catalog,
    request: JsValue,
    bytes: Option<Vec<u8>>,
    error: Option<String>,
) -> Result<Result<skillwire::FileContent, FileError>, JsValue> {
    Ok(catalog.file_content(&request_from_js(request)?, read_outcome(bytes, error)))
}

fn read_outcome(bytes: Option<Vec<u8>>, error: Option<String>) -> Result<Vec<u8>, String> {
    match (bytes, error) {
        (_, Some(e)) => Err(e),
        (Some(bytes), None) => Ok(bytes),
        (None, None) => Err(skillwire::NO_FILES.to_owned()),
    }
}

/// The first step of answering a read-file call.
#[derive(Serialize)]
#[serde(untagged)]
enum CallStep {
    /// Read this through the source.
    Read { request: FileRequest },
    /// Nothing to read: the answer.
    Answer { answer: skillwire::ToolAnswer },
}

/// The read-file tool in `provider`'s shape (`openai`, `anthropic`).
#[wasm_bindgen(js_name = readFileTool)]
pub fn read_file_tool(provider: JsValue) -> Result<JsValue, JsValue> {
    let provider: Provider =
        serde_wasm_bindgen::from_value(provider).map_err(|e| error("invalid_argument", &format!("provider: {e}")))?;
    to_js(&skillwire::read_file_tool(provider))
}

/// The SKILL.md text of a skill a server lists by its frontmatter (`fields`, a JSON object).
#[wasm_bindgen(js_name = listedSkillText)]
pub fn listed_skill_text(fields: &str) -> Result<String, JsValue> {
    Ok(skillwire::listed_skill_text(&json_object(fields, "fields")?))
}

/// Checks a SKILL.md `text` fetched from a server against the frontmatter `listed` for it
/// (a JSON object); the error (`invalid_value`) says what differs.
#[wasm_bindgen(js_name = checkListedFrontmatter)]
pub fn check_listed_frontmatter(text: &str, listed: &str, limits: JsValue) -> Result<(), JsValue> {
    let limits: skillwire::Limits = from_js(limits, "limits")?;
    let listed = json_object(listed, "listed")?;
    skillwire::check_listed_frontmatter(text, &listed, &limits).map_err(|why| error("invalid_value", &why))
}

/// A JSON object given as text (crossing as text costs less code than as a JS value).
fn json_object(json: &str, what: &str) -> Result<serde_json::Map<String, serde_json::Value>, JsValue> {
    serde_json::from_str(json).map_err(|e| error("invalid_argument", &format!("{what}: {e}")))
}

/// Lints one SKILL.md text (`LintReport`); `options` is `{limits?, extensions?, scan?, files?}`.
#[wasm_bindgen]
pub fn lint(location: &str, text: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let options: LintOptions = from_js(options, "options")?;
    to_js(&skillwire::lint_with(location, text, &options))
}

/// What `update` and `remove` say the core's `EntryUpdate` did: `'in-place'`, `'reindexed'`
/// or `'not-taken'`.
fn done_name(done: EntryUpdate) -> String {
    let name = match done {
        EntryUpdate::InPlace => "in-place",
        EntryUpdate::Reindexed => "reindexed",
        _ => "not-taken",
    };
    name.to_owned()
}
