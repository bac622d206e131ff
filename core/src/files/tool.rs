//! The tool that lets a model open a file an injected skill points to
//! (`references/forms.md`), in the OpenAI and Anthropic shapes, and the answer to a call
//! of it: the host hands the call's arguments to [`Engine::answer_read_file`] (or parses
//! them with [`read_file_arguments`], reads through its own sources, and words the result
//! with [`read_file_answer`]) and returns the text as the tool's result.

use super::{FileBody, FileContent, FileError, FileKind};
use crate::catalog::tools::Provider;
use serde::{Deserialize, Serialize};

/// The tool's name. Skill tools are all named `skills__…`, so it cannot collide with one.
pub const READ_FILE_TOOL: &str = "read_skill_file";

const DESCRIPTION: &str = "Read a file from the folder of a skill whose instructions you were given: a reference, \
script or asset its instructions name (for example references/forms.md). The path is relative to the skill's \
folder. Scripts are returned as text; this tool never runs them.";

/// The read-file tool in `provider`'s shape: one element of the API's `tools` array, its
/// keys in the order the API's documentation writes them. Its input is `{"skill": string,
/// "path": string}`.
pub fn read_file_tool(provider: Provider) -> ReadFileTool {
    let input = ReadFileInput {
        kind: "object",
        properties: ReadFileProperties {
            skill: Property { kind: "string", description: "The skill's name, as in its instructions." },
            path: Property {
                kind: "string",
                description: "The file's path in the skill's folder, e.g. references/forms.md.",
            },
        },
        required: ["skill", "path"],
        additional_properties: false,
    };
    match provider {
        Provider::OpenAi => ReadFileTool::OpenAi {
            kind: "function",
            function: ReadFileFunction { name: READ_FILE_TOOL, description: DESCRIPTION, parameters: input },
        },
        Provider::Anthropic => {
            ReadFileTool::Anthropic { name: READ_FILE_TOOL, description: DESCRIPTION, input_schema: input }
        }
    }
}

/// The read-file tool in one provider's shape ([`read_file_tool`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ReadFileTool {
    /// OpenAI Chat Completions: `{"type": "function", "function": {…}}`.
    OpenAi {
        /// `function`.
        #[serde(rename = "type")]
        kind: &'static str,
        /// The function.
        function: ReadFileFunction,
    },
    /// Anthropic Messages: `{"name", "description", "input_schema"}`.
    Anthropic {
        /// [`READ_FILE_TOOL`].
        name: &'static str,
        /// What the model reads.
        description: &'static str,
        /// Its input.
        input_schema: ReadFileInput,
    },
}

/// The `function` of the OpenAI shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadFileFunction {
    /// [`READ_FILE_TOOL`].
    pub name: &'static str,
    /// What the model reads.
    pub description: &'static str,
    /// Its input.
    pub parameters: ReadFileInput,
}

/// The tool's input, as JSON Schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadFileInput {
    /// `object`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `skill` and `path`.
    pub properties: ReadFileProperties,
    /// Both.
    pub required: [&'static str; 2],
    /// `false`: nothing else.
    #[serde(rename = "additionalProperties")]
    pub additional_properties: bool,
}

/// The tool's two properties.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadFileProperties {
    /// The skill's name.
    pub skill: Property,
    /// The file's path.
    pub path: Property,
}

/// A string property.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Property {
    /// `string`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// What to put in it.
    pub description: &'static str,
}

/// What to return to the model for one call: the tool result's text, and whether it
/// reports a failure (Anthropic's `is_error`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolAnswer {
    /// The text for the model.
    pub content: String,
    /// True when the file could not be read.
    pub is_error: bool,
}

/// The arguments of a read-file call.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArguments {
    /// The skill's name.
    pub skill: String,
    /// The file's path in its folder.
    pub path: String,
}

/// The call's arguments (the JSON object the model wrote, as text), or the answer that
/// says why they cannot be used. Text longer than `max_bytes` is refused unread.
pub fn read_file_arguments(arguments: &str, max_bytes: usize) -> Result<ReadFileArguments, ToolAnswer> {
    let refuse = |why: String| ToolAnswer { content: format!("{READ_FILE_TOOL}: {why}"), is_error: true };
    if arguments.len() > max_bytes {
        return Err(refuse(format!("the arguments are {} bytes; the limit is {max_bytes}", arguments.len())));
    }
    serde_json::from_str(arguments)
        .map_err(|e| refuse(format!("expected {{\"skill\": string, \"path\": string}}: {e}")))
}

/// The answer to a call, from what reading the file gave: a text file's text (a script's
/// said to be one, not run), a line describing a binary file, or why it could not be read.
pub fn read_file_answer(read: &Result<FileContent, FileError>) -> ToolAnswer {
    match read {
        Ok(file) => {
            let content = match (&file.body, file.kind) {
                (FileBody::Text(text), FileKind::Script) => format!(
                    "{} of skill {} is a script ({}); shown, not run:\n\n{text}",
                    file.path, file.skill, file.media_type
                ),
                (FileBody::Text(text), _) => text.clone(),
                (FileBody::Binary(_), _) => format!(
                    "{} of skill {} is a binary file ({}, {} bytes, {}); it cannot be shown as text.",
                    file.path, file.skill, file.media_type, file.size, file.digest
                ),
            };
            ToolAnswer { content, is_error: false }
        }
        Err(e) => ToolAnswer { content: format!("{READ_FILE_TOOL}: {e} ({})", e.code()), is_error: true },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_in_both_shapes() {
        let openai = serde_json::to_string_pretty(&read_file_tool(Provider::OpenAi)).unwrap();
        assert!(
            openai.starts_with("{\n  \"type\": \"function\",\n  \"function\": {\n    \"name\": \"read_skill_file\""),
            "{openai}"
        );
        let openai: serde_json::Value = serde_json::from_str(&openai).unwrap();
        assert_eq!(openai["function"]["parameters"]["required"], serde_json::json!(["skill", "path"]));
        let anthropic = serde_json::to_value(read_file_tool(Provider::Anthropic)).unwrap();
        assert_eq!(anthropic["input_schema"], openai["function"]["parameters"]);
        assert_eq!(anthropic["description"], openai["function"]["description"]);
    }

    #[test]
    fn arguments_are_two_strings_and_nothing_else() {
        let ok = read_file_arguments(r#"{"skill": "pdf", "path": "references/forms.md"}"#, 1024).unwrap();
        assert_eq!((ok.skill.as_str(), ok.path.as_str()), ("pdf", "references/forms.md"));
        for bad in [
            "",
            "[]",
            r#"{"skill": "pdf"}"#,
            r#"{"skill": 1, "path": "a"}"#,
            r#"{"skill": "a", "path": "b", "run": true}"#,
        ] {
            let answer = read_file_arguments(bad, 1024).unwrap_err();
            assert!(answer.is_error && answer.content.starts_with("read_skill_file: expected"), "{bad}: {answer:?}");
        }
        let long = format!(r#"{{"skill": "pdf", "path": "{}"}}"#, "a".repeat(2000));
        assert!(read_file_arguments(&long, 1024).unwrap_err().content.contains("the limit is 1024"));
    }
}
