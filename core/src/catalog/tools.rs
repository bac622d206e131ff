//! Skills as tools: definitions a host hands its model so the model can run a skill as
//! a sub-task (the host runs the call as a turn of its own — the skill's instructions
//! plus the `task` — for at most the skill's `max_turns`).
//!
//! Offered: skills the model may invoke — not `disable-model-invocation`, not gated,
//! not blocked by the safety scan — less those [`ToolOptions::exclude`] names (a skill's
//! own run should not offer the skill again). Each is named `skills__<name>`, with
//! every character outside `[A-Za-z0-9_-]` replaced by `_` and at most
//! [`MAX_TOOL_NAME_BYTES`] bytes, which both the OpenAI and the Anthropic APIs accept.
//! Names that come out the same are told apart deterministically, whatever order the
//! sources list skills in: a skill whose name needed no change keeps it; the others, in
//! name order, get `_2`, `_3`, … when theirs is taken (cut to leave room).
//! Descriptions are the skills', whitespace collapsed, at most
//! [`MAX_TOOL_DESCRIPTION_CHARS`] characters (OpenAI's limit).
//!
//! [`Catalog::tool_definitions`] writes the list in a provider's JSON shape.

use crate::catalog::Catalog;
use crate::order;
use crate::select::rules::mention_key;
use crate::text::shorten_at_word;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Longest tool name, in bytes (OpenAI's limit; Anthropic's is no lower).
pub const MAX_TOOL_NAME_BYTES: usize = 64;
/// Longest tool description, in characters (OpenAI's limit).
pub const MAX_TOOL_DESCRIPTION_CHARS: usize = 1024;
/// What every skill tool's name starts with.
pub const TOOL_PREFIX: &str = "skills__";

/// Which skills become tools.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolOptions {
    /// Skills not to offer (names, ignoring case and `-`/`_`): the skill whose run is
    /// asking, so that it cannot call itself.
    pub exclude: Vec<String>,
}

/// Whose API the definitions are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// OpenAI's Chat Completions `tools`: `{"type": "function", "function": {name,
    /// description, parameters}}`.
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic's Messages `tools`: `{name, description, input_schema}`.
    Anthropic,
}

impl Provider {
    /// The name as written on the command line and in JSON (`openai`, `anthropic`).
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }
}

/// One skill offered as a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillTool {
    /// The tool's name (`skills__…`): what the model calls.
    pub name: String,
    /// The skill it runs.
    pub skill: String,
    /// What the model reads to decide whether to call it.
    pub description: String,
    /// The input the tool takes (a `task` string).
    pub input_schema: InputSchema,
    /// Most turns the host should give the skill's run (the skill's `max_turns`).
    pub max_turns: u8,
}

/// The input every skill tool takes, as JSON Schema: an object with one required
/// string, `task`. Typed so that its keys keep the order written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSchema {
    /// `object`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The one property.
    pub properties: TaskProperty,
    /// `["task"]`.
    pub required: Vec<String>,
    /// `false`: nothing but the task.
    #[serde(rename = "additionalProperties")]
    pub additional_properties: bool,
}

/// The `task` property of [`InputSchema`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskProperty {
    /// The task, in words.
    pub task: StringSchema,
}

/// A string property.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StringSchema {
    /// `string`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What to put in it.
    pub description: String,
}

/// The input every skill tool takes: the task, in words.
pub fn task_schema() -> InputSchema {
    InputSchema {
        kind: "object".to_owned(),
        properties: TaskProperty {
            task: StringSchema {
                kind: "string".to_owned(),
                description: "What the skill should do, with everything it needs to know.".to_owned(),
            },
        },
        required: vec!["task".to_owned()],
        additional_properties: false,
    }
}

/// One tool in a provider's shape ([`Catalog::tool_definitions`]); serialised, it is
/// one element of the API's `tools` array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolDefinition {
    /// OpenAI Chat Completions: `{"type": "function", "function": {…}}`.
    OpenAi {
        /// `function`.
        #[serde(rename = "type")]
        kind: String,
        /// The function.
        function: FunctionDefinition,
    },
    /// Anthropic Messages: `{"name", "description", "input_schema"}`.
    Anthropic {
        /// The tool's name.
        name: String,
        /// Its description.
        description: String,
        /// Its input.
        input_schema: InputSchema,
    },
}

/// The `function` of an OpenAI tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionDefinition {
    /// The tool's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its input.
    pub parameters: InputSchema,
}

/// `name` with what tool names may not hold replaced by `_`.
fn sanitise(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// `base` cut (it is ASCII) so that `suffix` fits within the name limit, then `suffix`.
fn fit(base: &str, suffix: &str) -> String {
    let keep = MAX_TOOL_NAME_BYTES.saturating_sub(suffix.len()).min(base.len());
    format!("{}{suffix}", base.get(..keep).unwrap_or(base))
}

/// `base` with the first suffix `_2`, `_3`, … that makes a name not `taken`, cut to fit;
/// `next` holds, per width of suffix and the start kept before it, the suffix to try first.
fn suffixed(base: &str, taken: &HashSet<String>, next: &mut HashMap<(String, usize), usize>) -> String {
    let mut n = 2usize;
    loop {
        let width = format!("_{n}").len();
        let kept = fit(base, &format!("_{n}")).len() - width;
        let key = (base.get(..kept).unwrap_or(base).to_owned(), width);
        n = n.max(next.get(&key).copied().unwrap_or(n));
        // The suffixes of this width, from there on.
        while format!("_{n}").len() == width {
            let name = fit(base, &format!("_{n}"));
            n += 1;
            if !taken.contains(&name) {
                next.insert(key, n);
                return name;
            }
        }
        next.insert(key, n);
    }
}

impl Catalog {
    /// The skills a model may invoke, as tools, in name order (see the module docs).
    pub fn tools(&self, options: &ToolOptions) -> Vec<SkillTool> {
        let excluded: HashSet<String> = options.exclude.iter().map(|n| mention_key(n)).collect();
        let mut offered: Vec<_> = self
            .skills()
            .iter()
            .filter(|e| self.automatic(e))
            .filter(|e| !excluded.contains(&mention_key(&e.skill.name)))
            .collect();
        order::sort_by(&mut offered, |a, b| a.skill.name.cmp(&b.skill.name));
        // Names that need no change are kept first, so a suffix never lands on them.
        let exact = |name: &str| sanitise(name) == name && TOOL_PREFIX.len() + name.len() <= MAX_TOOL_NAME_BYTES;
        let mut taken: HashSet<String> =
            offered.iter().filter(|e| exact(&e.skill.name)).map(|e| format!("{TOOL_PREFIX}{}", e.skill.name)).collect();
        // The suffix to try first, per width of suffix and what of a name is kept before one
        // that wide: names that keep the same start share those suffixed names, so each
        // goes on from where the one before stopped rather than trying again the suffixes
        // it took (which made a catalogue of long names that share their start quadratic).
        let mut next_suffix: HashMap<(String, usize), usize> = HashMap::new();
        offered
            .into_iter()
            .map(|entry| {
                let base = format!("{TOOL_PREFIX}{}", sanitise(&entry.skill.name));
                let name = if exact(&entry.skill.name) {
                    base
                } else {
                    let name = match fit(&base, "") {
                        free if !taken.contains(&free) => free,
                        _ => suffixed(&base, &taken, &mut next_suffix),
                    };
                    taken.insert(name.clone());
                    name
                };
                let description = match shorten_at_word(&entry.skill.listing_description(), MAX_TOOL_DESCRIPTION_CHARS)
                {
                    d if d.is_empty() => format!("Runs the {} skill.", entry.skill.name),
                    d => d,
                };
                SkillTool {
                    name,
                    skill: entry.skill.name.clone(),
                    description,
                    input_schema: task_schema(),
                    max_turns: entry.skill.max_turns,
                }
            })
            .collect()
    }

    /// [`Catalog::tools`] in `provider`'s shape: serialised, the array to pass as `tools`.
    pub fn tool_definitions(&self, provider: Provider, options: &ToolOptions) -> Vec<ToolDefinition> {
        let tools = self.tools(options).into_iter().map(|t| match provider {
            Provider::OpenAi => ToolDefinition::OpenAi {
                kind: "function".to_owned(),
                function: FunctionDefinition { name: t.name, description: t.description, parameters: t.input_schema },
            },
            Provider::Anthropic => {
                ToolDefinition::Anthropic { name: t.name, description: t.description, input_schema: t.input_schema }
            }
        });
        tools.collect()
    }

    /// The skill a tool call names (`skills__…`), among [`Catalog::tools`] with the same
    /// options.
    pub fn tool_skill(&self, tool_name: &str, options: &ToolOptions) -> Option<SkillTool> {
        self.tools(options).into_iter().find(|t| t.name == tool_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{CatalogInput, CatalogOptions};

    fn catalog(skills: &[(&str, &str)]) -> Catalog {
        let inputs = skills
            .iter()
            .enumerate()
            .map(|(i, (name, extra))| CatalogInput {
                source: 0,
                id: None,
                origin: None,
                location: format!("s/{i}/SKILL.md"),
                text: Ok(format!("---\nname: \"{name}\"\ndescription: The {name} skill.\n{extra}---\nBody.\n")),
            })
            .collect();
        Catalog::build(inputs, &CatalogOptions::default())
    }

    fn names(tools: &[SkillTool]) -> Vec<(&str, &str)> {
        tools.iter().map(|t| (t.name.as_str(), t.skill.as_str())).collect()
    }

    #[test]
    #[cfg(feature = "nfkc")] // a non-ASCII name (`café`) needs normalising
    fn names_are_sanitised_and_collisions_numbered_in_name_order() {
        let long = "a".repeat(70);
        let c = catalog(&[("pdf.tools", ""), ("pdf tools", ""), ("pdf_tools", ""), ("café", ""), (&long, "")]);
        let tools = c.tools(&ToolOptions::default());
        let cut = format!("skills__{}", "a".repeat(56));
        assert_eq!(
            names(&tools),
            [
                (cut.as_str(), long.as_str()),
                ("skills__caf_", "café"),
                ("skills__pdf_tools_2", "pdf tools"),
                ("skills__pdf_tools_3", "pdf.tools"),
                ("skills__pdf_tools", "pdf_tools"),
            ]
        );
        for t in &tools {
            assert!(t.name.len() <= MAX_TOOL_NAME_BYTES);
            assert!(t.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'), "{}", t.name);
        }
        // The order the sources list skills in does not change the names.
        let reversed = catalog(&[(&long, ""), ("café", ""), ("pdf_tools", ""), ("pdf tools", ""), ("pdf.tools", "")]);
        assert_eq!(names(&reversed.tools(&ToolOptions::default())), names(&tools));
    }

    /// Many long names cut to the same start get `_2`, `_3`, … in name order, as a few do
    /// (each going on from the suffix the one before took).
    #[test]
    fn many_names_cut_alike_are_numbered_in_turn() {
        let names_given: Vec<String> = (0..300).map(|i| format!("{}-{i:03}", "x".repeat(60))).collect();
        let c = catalog(&names_given.iter().map(|n| (n.as_str(), "")).collect::<Vec<_>>());
        let tools = c.tools(&ToolOptions::default());
        let cut = |suffix: &str| {
            format!("skills__{}", "x".repeat(56))[..MAX_TOOL_NAME_BYTES - suffix.len()].to_owned() + suffix
        };
        let want: Vec<String> = std::iter::once(cut("")).chain((2..=300).map(|n| cut(&format!("_{n}")))).collect();
        assert_eq!(tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>(), want);
        assert_eq!(tools.iter().map(|t| t.skill.clone()).collect::<Vec<_>>(), names_given);
    }

    /// Names given each suffix as the plain rule does (try `_2`, `_3`, … in turn), whatever
    /// the catalogue: long names that share their start only up to where a suffix cuts
    /// them, names that are another's suffixed name, short ones.
    #[test]
    fn suffixes_are_those_trying_each_in_turn_gives() {
        let q = "q".repeat(52);
        let mut given: Vec<String> = (0..120).flat_map(|t| [format!("{q}{t:04}-a"), format!("{q}{t:04}-b")]).collect();
        given.extend(["pdf tools", "pdf.tools", "pdf_tools", "pdf_tools_2", "pdf-tools_3"].map(String::from));
        let c = catalog(&given.iter().map(|n| (n.as_str(), "")).collect::<Vec<_>>());
        let tools = c.tools(&ToolOptions::default());
        // The rule, plainly: names needing no change first, then the others in name order.
        let mut sorted: Vec<&str> = given.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        let exact = |n: &str| sanitise(n) == n && TOOL_PREFIX.len() + n.len() <= MAX_TOOL_NAME_BYTES;
        let mut taken: HashSet<String> =
            sorted.iter().filter(|n| exact(n)).map(|n| format!("{TOOL_PREFIX}{n}")).collect();
        let want: Vec<String> = (sorted.iter())
            .map(|n| {
                let base = format!("{TOOL_PREFIX}{}", sanitise(n));
                if exact(n) {
                    return base;
                }
                let name = (1..).map(|k| if k == 1 { fit(&base, "") } else { fit(&base, &format!("_{k}")) });
                let name = name.into_iter().find(|name| !taken.contains(name)).unwrap();
                taken.insert(name.clone());
                name
            })
            .collect();
        assert_eq!(tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>(), want);
    }

    #[test]
    fn only_skills_a_model_may_invoke_and_not_the_excluded() {
        let c = catalog(&[
            ("pdf", "max_turns: 4\n"),
            ("manual", "disable-model-invocation: true\n"),
            ("gated", "requires: [github]\n"),
            ("hidden", "user-invocable: false\n"),
            ("sql-review", ""),
        ]);
        let tools = c.tools(&ToolOptions { exclude: vec!["SQL_Review".into()] });
        assert_eq!(names(&tools), [("skills__hidden", "hidden"), ("skills__pdf", "pdf")]);
        assert_eq!(tools[1].max_turns, 4);
        assert_eq!(tools[1].description, "The pdf skill.");
        assert_eq!(c.tool_skill("skills__pdf", &ToolOptions::default()).map(|t| t.skill), Some("pdf".into()));
        assert_eq!(c.tool_skill("skills__manual", &ToolOptions::default()), None);
    }

    #[test]
    fn provider_shapes() {
        let c = catalog(&[("pdf", "")]);
        let schema = r#"{"type":"object","properties":{"task":{"type":"string","description":"What the skill should do, with everything it needs to know."}},"required":["task"],"additionalProperties":false}"#;
        let openai = serde_json::to_string(&c.tool_definitions(Provider::OpenAi, &ToolOptions::default())).unwrap();
        assert_eq!(
            openai,
            format!(
                r#"[{{"type":"function","function":{{"name":"skills__pdf","description":"The pdf skill.","parameters":{schema}}}}}]"#
            )
        );
        let anthropic = c.tool_definitions(Provider::Anthropic, &ToolOptions::default());
        assert_eq!(
            serde_json::to_string(&anthropic).unwrap(),
            format!(r#"[{{"name":"skills__pdf","description":"The pdf skill.","input_schema":{schema}}}]"#)
        );
        // What a binding reads back is what was written.
        let back: Vec<ToolDefinition> = serde_json::from_str(&openai).unwrap();
        assert_eq!(back, c.tool_definitions(Provider::OpenAi, &ToolOptions::default()));
        let back: Vec<ToolDefinition> = serde_json::from_str(&serde_json::to_string(&anthropic).unwrap()).unwrap();
        assert_eq!(back, anthropic);
    }
}
