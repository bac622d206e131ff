//! Reading shell commands that wipe a machine: the command after a trigger word, and
//! the target of an `rm` that removes recursively and by force.

/// The rest of the shell command starting at `from`, lowercased: up to the end of the
/// line or of the command (`;`, `&`, `|`, `)`, a backtick or a quote), at most 200 bytes.
pub(super) fn command_at(text: &str, from: usize) -> String {
    let rest = text.get(from..).unwrap_or_default();
    let mut end = rest.len();
    for (count, (i, c)) in rest.char_indices().enumerate() {
        if count == 200 || matches!(c, '\n' | ';' | '&' | '|' | ')' | '`' | '"' | '\'') {
            end = i;
            break;
        }
    }
    rest.get(..end).unwrap_or_default().to_ascii_lowercase()
}

/// From byte `from` to the end of its line.
pub(super) fn rest_of_line(text: &str, from: usize) -> &str {
    let rest = text.get(from..).unwrap_or_default();
    // At most `REST_OF_LINE` bytes (a command is read from its first words; a trigger's cost
    // does not grow with its line).
    let window = rest.as_bytes().get(..REST_OF_LINE.min(rest.len())).unwrap_or_default();
    let mut end = memchr::memchr(b'\n', window).unwrap_or(window.len());
    while end > 0 && !rest.is_char_boundary(end) {
        end -= 1;
    }
    rest.get(..end).unwrap_or_default().trim_end_matches('\r')
}

/// Most bytes of a line read after a command's trigger.
const REST_OF_LINE: usize = 1024;

/// The target of an `rm` command that wipes a machine (`/`, `~`, `$HOME`, a system
/// folder, everything in the working directory or its parent), when the command
/// removes recursively and by force.
pub(super) fn dangerous_remove_target(command: &str) -> Option<String> {
    let mut recursive = false;
    let mut force = false;
    let mut targets = Vec::new();
    for word in command.split_whitespace() {
        if let Some(long) = word.strip_prefix("--") {
            recursive |= long == "recursive";
            force |= long == "force";
            if long == "no-preserve-root" {
                return Some("/ (--no-preserve-root)".to_owned());
            }
        } else if let Some(short) = word.strip_prefix('-') {
            recursive |= short.contains(['r', 'R']);
            force |= short.contains('f');
        } else {
            targets.push(word);
        }
    }
    if !(recursive && force) {
        return None;
    }
    targets.into_iter().find_map(|target| {
        let bare = target.trim_end_matches('/');
        let wipes = matches!(
            bare,
            "" | "/*"
                | "~"
                | "~/*"
                | "$home"
                | "${home}"
                | "$home/*"
                | "${home}/*"
                | ".."
                | "../*"
                | "*"
                | "c:"
                | "c:\\"
        ) || matches!(
            bare,
            "/home" | "/etc" | "/usr" | "/var" | "/bin" | "/boot" | "/lib" | "/opt" | "/root" | "/sys" | "/dev"
        );
        wipes.then(|| if bare.is_empty() { "/".to_owned() } else { target.to_owned() })
    })
}
