//! Locations: the strings a source uses to name a skill's SKILL.md (a path, a URL,
//! any key). Only their last segments mean anything to the core.

/// The directory part of a location: everything before the last `/` or `\` when the
/// location names a `SKILL.md`/`skill.md` file, else the whole location (a source may
/// name skills by folder). Empty when there is no directory part.
pub fn directory(location: &str) -> &str {
    let trimmed = location.trim_end_matches(['/', '\\']);
    match trimmed.rfind(['/', '\\']) {
        Some(i) => {
            let last = trimmed.get(i + 1..).unwrap_or("");
            if last.eq_ignore_ascii_case("skill.md") {
                trimmed.get(..i).unwrap_or("")
            } else {
                trimmed
            }
        }
        None if trimmed.eq_ignore_ascii_case("skill.md") => "",
        None => trimmed,
    }
}

/// The name of the folder holding the skill: the last segment of [`directory`].
pub fn directory_name(location: &str) -> Option<&str> {
    let dir = directory(location);
    let name = match dir.rfind(['/', '\\']) {
        Some(i) => dir.get(i + 1..).unwrap_or(""),
        None => dir,
    };
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_of_files_and_folders() {
        assert_eq!(directory("/a/b/pdf/SKILL.md"), "/a/b/pdf");
        assert_eq!(directory("https://x.org/skills/pdf/skill.md"), "https://x.org/skills/pdf");
        assert_eq!(directory("C:\\skills\\pdf\\SKILL.md"), "C:\\skills\\pdf");
        assert_eq!(directory("skills/pdf/"), "skills/pdf");
        assert_eq!(directory("pdf"), "pdf");
        assert_eq!(directory("SKILL.md"), "");
        assert_eq!(directory_name("/a/b/pdf/SKILL.md"), Some("pdf"));
        assert_eq!(directory_name("pdf"), Some("pdf"));
        assert_eq!(directory_name("SKILL.md"), None);
        assert_eq!(directory_name("/SKILL.md"), None);
    }
}
