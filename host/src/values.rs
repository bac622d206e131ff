//! The command line's spellings of the core's enums: one declaration per enum makes the
//! clap value enum and its conversions both ways, so `--help` shows the core's own
//! defaults (`Arg::from(Core::default())`) and no match is written twice.

use clap::ValueEnum;
use skillwire::{CatalogFormat, InjectFormat, NotUserInvocable, Precedence, Provider, ScanBodies};

/// A clap value enum mirroring a core enum variant for variant.
macro_rules! values {
    ($($(#[$meta:meta])* $arg:ident = $core:ident { $($(#[$vmeta:meta])* $variant:ident),* $(,)? })*) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
        pub enum $arg {
            $($(#[$vmeta])* $variant),*
        }

        impl From<$arg> for $core {
            fn from(value: $arg) -> $core {
                match value { $($arg::$variant => $core::$variant),* }
            }
        }

        impl From<$core> for $arg {
            fn from(value: $core) -> $arg {
                match value { $($core::$variant => $arg::$variant),* }
            }
        }
    )*};
}

values! {
    /// `--format` of `inject`.
    InjectFormatArg = InjectFormat { Bracket, Xml, Markdown }
    /// `--format` of `catalog`.
    CatalogFormatArg = CatalogFormat {
        /// The standard's XML (`agentskills` is accepted too).
        #[value(alias = "agentskills")]
        AgentSkills,
        SkillsRef,
        Markdown,
        Json,
    }
    /// `--provider` of `tools`.
    ProviderArg = Provider {
        #[value(name = "openai")]
        OpenAi,
        Anthropic,
    }
    /// `--not-user-invocable`.
    NotUserInvocableArg = NotUserInvocable { Hidden, MentionOnly }
    /// `--scan-bodies`.
    ScanBodiesArg = ScanBodies { AtBuild, WhenRead }
    /// `--precedence`.
    PrecedenceArg = Precedence { FirstWins, LastWins }
}
