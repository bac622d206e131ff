//! Diagnostics: what parsing, loading and linting found, with a stable code and a
//! position in the SKILL.md file.

use serde::Serialize;

/// How serious a diagnostic is. Errors skip a skill when loading; warnings don't.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "snapshot", derive(serde::Deserialize))]
pub enum Severity {
    /// The skill cannot be used.
    Error,
    /// The skill loads, but something in it is off or was repaired.
    Warning,
}

/// One finding about a SKILL.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable machine-readable code such as `yaml_syntax` or `name_mismatch`.
    pub code: String,
    /// A sentence for a person.
    pub message: String,
    /// 1-based line in the SKILL.md file, when the finding has a place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column (in characters), when the finding has a place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Diagnostic {
    /// An error without a position.
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: code.to_owned(),
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// A warning without a position.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            code: code.to_owned(),
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// The same diagnostic placed at `line` (and `column` when known).
    pub fn at(mut self, line: usize, column: Option<usize>) -> Self {
        self.line = Some(line);
        self.column = column;
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{kind}[{}] {l}:{c}: {}", self.code, self.message),
            (Some(l), None) => write!(f, "{kind}[{}] {l}: {}", self.code, self.message),
            _ => write!(f, "{kind}[{}]: {}", self.code, self.message),
        }
    }
}
