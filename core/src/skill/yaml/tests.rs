//! Tests of `yaml`.

use super::*;

const BOUNDS: YamlLimits = YamlLimits { max_depth: 32, max_aliases: 64, max_expanded_bytes: 128 << 10 };

fn map(node: &Node) -> &[(String, Node)] {
    match node {
        Node::Map(m) => m,
        other => panic!("not a map: {other:?}"),
    }
}

fn get<'a>(node: &'a Node, key: &str) -> &'a Node {
    &map(node).iter().find(|(k, _)| k == key).unwrap().1
}

#[test]
fn scalars_keep_their_source_text() {
    let n = parse("name: 123\nv: 1.10\nb: true\nn: null\ne:\nt: ~\n", BOUNDS).unwrap();
    assert_eq!(get(&n, "name").as_str(), Some("123"));
    assert_eq!(get(&n, "v").as_str(), Some("1.10"));
    assert_eq!(get(&n, "b").as_str(), Some("true"));
    assert_eq!(get(&n, "n").as_str(), Some("null"));
    assert!(get(&n, "n").is_null());
    assert_eq!(get(&n, "e").as_str(), Some(""));
    assert!(get(&n, "t").is_null());
}

#[test]
fn full_yaml_collections_and_block_scalars() {
    let text = "a: [x, 'y z']\nb:\n  - 1\n  - two\nc: {k: v}\nd: >\n  one\n  two\ne: |\n  l1\n  l2\nf: >-\n  x\n";
    let n = parse(text, BOUNDS).unwrap();
    assert_eq!(get(&n, "a").to_flow_text(), "[x, y z]");
    assert_eq!(get(&n, "b").to_flow_text(), "[1, two]");
    assert_eq!(get(&n, "c").to_flow_text(), "{k: v}");
    assert_eq!(get(&n, "d").as_str(), Some("one two\n"));
    assert_eq!(get(&n, "e").as_str(), Some("l1\nl2\n"));
    assert_eq!(get(&n, "f").as_str(), Some("x"));
}

#[test]
fn anchors_and_aliases_resolve() {
    let n = parse("name: &n my-skill\ndescription: *n\n", BOUNDS).unwrap();
    assert_eq!(get(&n, "description").as_str(), Some("my-skill"));
}

#[test]
fn alias_bomb_is_refused() {
    let mut text = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
    let mut prev = 'a';
    for name in ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] {
        text.push_str(&format!(
            "{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
        prev = name;
    }
    // The alias count refuses it first; without that bound, the measure of what the aliases
    // expand to does, and without both, the parser's own bound on repetition.
    let err = parse(&text, BOUNDS).unwrap_err();
    assert_eq!(err.message, "more than 64 aliases");
    let unbounded = YamlLimits { max_aliases: usize::MAX, ..BOUNDS };
    let err = parse(&text, unbounded).unwrap_err();
    assert!(err.limit && err.message == "aliases expand the frontmatter past 131072 bytes", "{}", err.message);
    let unbounded = YamlLimits { max_aliases: usize::MAX, max_expanded_bytes: usize::MAX, ..BOUNDS };
    let err = parse(&text, unbounded).unwrap_err();
    assert!(err.limit && err.message.contains("repetition limit"), "{}", err.message);
}

/// A large anchor doubled by each alias of a chain, within the alias count, reads as
/// billions of values (which the parser's bound on repetition, relative to the document's
/// size, lets through), and a long text repeated by a few aliases as gigabytes: refused
/// before any is kept, by what load, lint and the frontmatter as JSON all read.
#[test]
fn aliases_that_expand_past_the_frontmatter_limit_are_refused() {
    let mut text = format!("a0: &a0 [{}]\n", vec!["x"; 3_000].join(","));
    for level in 1..31 {
        let before = level - 1;
        text.push_str(&format!("a{level}: &a{level} [*a{before}, *a{before}]\n"));
    }
    for err in [parse(&text, BOUNDS).unwrap_err(), to_json_lenient(&text, BOUNDS).unwrap_err()] {
        assert!(err.limit, "{err:?}");
        assert_eq!(err.message, "aliases expand the frontmatter past 131072 bytes");
    }
    let mut long = format!("a: &a \"{}\"\n", "x".repeat(1_000));
    for (name, before) in [('b', 'a'), ('c', 'b'), ('d', 'c')] {
        long.push_str(&format!("{name}: &{name} [{}]\n", vec![format!("*{before}"); 8].join(", ")));
    }
    let err = parse(&long, BOUNDS).unwrap_err();
    assert_eq!((err.message.as_str(), err.limit), ("aliases expand the frontmatter past 131072 bytes", true));
    // Aliases the rough count does not see (a quote inside a plain scalar reads to it as a
    // string to the line's end) are measured all the same.
    let mut hidden = format!("a0: &a0 [{}]\n", vec!["x"; 3_000].join(","));
    for level in 1..31 {
        let before = level - 1;
        hidden.push_str(&format!("a{level}: &a{level} [don't, *a{before}, *a{before}]\n"));
    }
    assert_eq!(parse(&hidden, BOUNDS).unwrap_err().message, "aliases expand the frontmatter past 131072 bytes");
    // A number is read as its value (one byte to the measure) but kept as its source text,
    // which is bounded as it is kept.
    let mut numbers = format!("n: &n 0x{}1\np: [{}]\n", "0".repeat(40_000), vec!["y"; 50].join(", "));
    for (name, before) in [('b', 'n'), ('c', 'b'), ('d', 'c')] {
        numbers.push_str(&format!("{name}: &{name} [{}]\n", vec![format!("*{before}"); 16].join(", ")));
    }
    let err = parse(&numbers, BOUNDS).unwrap_err();
    assert_eq!((err.message.as_str(), err.limit), ("aliases expand the frontmatter past 131072 bytes", true));
    // The same aliases over a small anchor are within it; the count is exact at the bound.
    let small = "a: &a [x, y]\nb: [*a, *a]\n";
    assert!(parse(small, BOUNDS).is_ok());
    // A byte for each value and each scalar's text: the root mapping (1); the key a (2),
    // its sequence (1) and 2 scalars (4); the key b (2), its sequence (1) of two sequences
    // of 2 (10): 21 bytes.
    assert!(parse(small, YamlLimits { max_expanded_bytes: 21, ..BOUNDS }).is_ok());
    let err = parse(small, YamlLimits { max_expanded_bytes: 20, ..BOUNDS }).unwrap_err();
    assert_eq!((err.message.as_str(), err.limit), ("aliases expand the frontmatter past 20 bytes", true));
}

#[test]
fn aliases_are_counted_outside_quotes_and_comments() {
    let limits = YamlLimits { max_aliases: 2, ..BOUNDS };
    assert!(parse("a: &x 1\nb: [*x, *x]\n", limits).is_ok());
    let err = parse("a: &x 1\nb: [*x, *x]\nc: *x\n", limits).unwrap_err();
    assert!(err.limit);
    assert_eq!((err.message.as_str(), err.line, err.column), ("more than 2 aliases", Some(3), Some(4)));
    let quoted = "a: &x 1\nb: \"*x *x *x\"\nc: '*x *x' # *x *x\nd: 2*x\n";
    assert!(parse(quoted, limits).is_ok());
}

#[test]
fn deep_flow_nesting_is_refused_before_parsing() {
    let text = format!("a: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let err = parse(&text, BOUNDS).unwrap_err();
    assert!(err.limit);
    assert_eq!((err.line, err.column), (Some(1), Some(36)));
}

#[test]
fn errors_carry_positions() {
    let err = parse("name: my-skill\ndescription: Use this skill when: the user asks\n", BOUNDS).unwrap_err();
    assert_eq!(err.line, Some(2));
    assert!(err.message.contains("mapping values are not allowed"), "{}", err.message);
    assert!(!err.message.contains("at line"), "{}", err.message);
    let err = parse("name: [invalid\ndescription: broken\n", BOUNDS).unwrap_err();
    assert_eq!(err.message, "did not find expected ',' or ']', while parsing a flow sequence");
    assert_eq!((err.line, err.column), (Some(2), Some(12)));
}

/// Each repair reads the document again: past 32, the read is refused as a limit rather
/// than taking time that grows with the square of the document.
#[test]
fn repairs_stop_at_a_bound() {
    let lines = |n: usize| (0..n).map(|i| format!("k{i}: a: b\n")).collect::<String>();
    let read = parse_lenient(&lines(32), BOUNDS).unwrap();
    assert_eq!(read.repaired_lines.len(), 32);
    let err = parse_lenient(&lines(33), BOUNDS).unwrap_err();
    assert_eq!((err.message.as_str(), err.line, err.limit), ("more than 32 plain values hold ': '", Some(33), true));
}

#[test]
fn lenient_quotes_values_with_a_colon() {
    let out = parse_lenient("name: a\ndescription: Use when: x, or y's\n", BOUNDS).unwrap();
    assert_eq!(get(&out.root, "description").as_str(), Some("Use when: x, or y's"));
    assert_eq!(out.repaired_lines, vec![2]);
}

#[test]
fn lenient_handles_continuation_lines_and_several_entries() {
    let text = "description: Use this\n  when: the user asks\nname: a\nmetadata:\n  note: see: here\n";
    let out = parse_lenient(text, BOUNDS).unwrap();
    assert_eq!(get(&out.root, "description").as_str(), Some("Use this when: the user asks"));
    assert_eq!(get(get(&out.root, "metadata"), "note").as_str(), Some("see: here"));
    assert_eq!(out.repaired_lines, vec![1, 5]);
}

#[test]
fn lenient_keeps_other_errors() {
    let err = parse_lenient("name: [invalid\ndescription: broken\n", BOUNDS).unwrap_err();
    assert!(err.line.is_some());
}

#[test]
fn duplicate_keys_are_errors() {
    assert!(parse("name: a\nname: a\n", BOUNDS).is_err());
}

/// The fast reading's answer, checked against the parser's: whatever the fast reading
/// accepts, the parser reads to the same tree. Returns whether it was accepted.
fn fast_agrees(text: &str) -> bool {
    let Some(fast) = simple::read(text) else { return false };
    match parse_with_parser(text, BOUNDS) {
        Ok(parsed) => assert_eq!(fast, parsed, "the fast reading differs from the parser on {text:?}"),
        Err(err) => panic!("the fast reading accepted {text:?}, which the parser refuses: {}", err.message),
    }
    true
}

#[test]
fn the_fast_reading_takes_plain_and_quoted_values_and_nested_mappings() {
    let text = "name: pdf-tools\ndescription: \"Use when: the user has a PDF\"\nversion: 1.10\n\
                metadata:\n  author: A. Person\n  tags:\n    kind: docs\n  empty:\nlicense: MIT # a comment\n";
    // The last line's ` #` starts a comment, which the fast reading leaves to the parser.
    assert!(!fast_agrees(text));
    let text = text.replace(" # a comment", "");
    assert!(fast_agrees(&text));
    let root = simple::read(&text).unwrap();
    assert_eq!(get(&root, "description").as_str(), Some("Use when: the user has a PDF"));
    assert_eq!(get(&root, "version").as_str(), Some("1.10"));
    assert_eq!(get(get(get(&root, "metadata"), "tags"), "kind").as_str(), Some("docs"));
    assert!(get(get(&root, "metadata"), "empty").is_null());
    // A colon or a hash inside a word is plain text; one before or after a space is not.
    for (text, fast) in [
        ("description: C# and F#: a:b c#d x:\n", false),
        ("description: C# and a:b c#d\n", true),
        ("description: a: b\n", false),
        ("description: a:\tb\n", false),
        ("description: a #b\n", false),
        ("description: a\t#b\n", false),
        ("description: #a\n", false),
        ("description: a:b#c:d##\n", true),
    ] {
        assert_eq!(fast_agrees(text), fast, "{text:?}");
    }
}

#[test]
fn the_fast_reading_leaves_the_rest_to_the_parser() {
    for text in [
        "# a comment\nname: x\n",
        "name: x\ndescription: |+\n  kept\n",
        "name: x\ndescription: |2\n  body\n",
        "name: x\ndescription: | # c\n  body\n",
        "name: x\ndescription: |\n  one\n\n  two\n",
        "name: x\ndescription: >\n  one\n    deeper\n",
        "name: x\ndescription: >\n  one\n   \n",
        "name: x\ndescription: |\n  a\tb\n",
        "name: x\ndescription: |\nother: y\n",
        "name: x\ntags:\n  - a: b\n",
        "name: x\ntags:\n  -\n",
        "name: x\ntags:\n  - a\n    b\n",
        "name: x\ntags:\n  - a\n   - b\n",
        "name: x\ntags:\n  - [a]\n",
        "name: x\ntags:\n  - a\n  # c\n",
        "name: x\ntags:\n  - a # c\n",
        "name: x\ntags:\n  - ~\n",
        "name: x\nmetadata:\n  tags:\n- a\n",
        "name: x\ntags: x\n  - a\n",
        "- a\n",
        "name: x\ntags: [a, [b]]\n",
        "name: x\ntags: [a,]\n",
        "name: x\ntags: [a, , b]\n",
        "name: x\ntags: [a] x\n",
        "name: x\ntags: [a\n",
        "name: x\ntags: [a: b]\n",
        "name: x\ntags: [a #b]\n",
        "name: x\ntags: [null]\n",
        "name: x\ntags: [\"a\\\"b\"]\n",
        "name: x\ntags: [{a: b}]\n",
        "name: x\ndescription: wraps\n  onto the next line\n",
        "name: \"esc\\u0041\"\n",
        "name: &a x\nalias: *a\n",
        "name: !!str 1\n",
        "name:\tx\n",
        "name: x\r\n",
        "name: x\nname: y\n",
        "name: ~\n",
        "name: Null\n",
        "true: x\n",
        "name: 'single'\n",
        "name: a: b\n",
        "  name: x\nother: y\n",
        "name: x\n   deeper: y\n",
        "a: 18446744073709551616\n",
        "",
        "\n\n",
    ] {
        assert!(simple::read(text).is_none(), "{text:?}");
    }
}

#[test]
fn the_fast_reading_takes_sequences_of_one_line_values_and_booleans() {
    let text = "name: x\nallowed-tools:\n  - Bash\n  - \"Read, Write\"\n\n  - 1.10\ntags: [a, \"b, c\", 1.10, true]\n\
                empty: []\ndisable-model-invocation: true\nmetadata:\n  list:\n  - x\n  n: FALSE\nlast: y\n";
    assert!(fast_agrees(text));
    let root = simple::read(text).unwrap();
    let texts = |node: &Node| match node {
        Node::Seq(items) => items.iter().map(|item| item.as_str().unwrap().to_owned()).collect::<Vec<_>>(),
        other => panic!("not a sequence: {other:?}"),
    };
    assert_eq!(texts(get(&root, "allowed-tools")), ["Bash", "Read, Write", "1.10"]);
    assert_eq!(texts(get(&root, "tags")), ["a", "b, c", "1.10", "true"]);
    assert!(texts(get(&root, "empty")).is_empty());
    assert_eq!(get(&root, "disable-model-invocation").as_str(), Some("true"));
    assert_eq!(texts(get(get(&root, "metadata"), "list")), ["x"]);
    assert_eq!(get(get(&root, "metadata"), "n").as_str(), Some("FALSE"));
    assert_eq!(get(&root, "last").as_str(), Some("y"));
}

#[test]
fn the_fast_reading_takes_block_scalars_indented_alike() {
    let text =
        "name: x\ndescription: |\n  Line one: a\n  # not a comment\n\nmetadata:\n  note: >-\n    folded\n    lines\n";
    assert!(fast_agrees(text));
    let root = simple::read(text).unwrap();
    assert_eq!(get(&root, "description").as_str(), Some("Line one: a\n# not a comment\n"));
    assert_eq!(get(get(&root, "metadata"), "note").as_str(), Some("folded lines"));
    // The text's last line without a line break: none kept.
    assert!(fast_agrees("description: >\n  a\n  b"));
    assert_eq!(get(&simple::read("description: >\n  a\n  b").unwrap(), "description").as_str(), Some("a b"));
}

#[test]
fn the_fast_reading_keeps_to_its_bounds() {
    // Nesting: eight mappings are read, a ninth is left to the parser.
    let nested = |levels: usize| {
        let mut text: String = (0..levels - 1).map(|level| format!("{}k{level}:\n", "  ".repeat(level))).collect();
        text.push_str(&format!("{}last: x\n", "  ".repeat(levels - 1)));
        text
    };
    assert!(fast_agrees(&nested(8)));
    assert!(simple::read(&nested(9)).is_none());
    // Keys up to 128 bytes; mappings up to 64 entries.
    assert!(fast_agrees(&format!("{}: x\n", "k".repeat(128))));
    assert!(simple::read(&format!("{}: x\n", "k".repeat(129))).is_none());
    let entries = |n: usize| (0..n).map(|i| format!("k{i}: v\n")).collect::<String>();
    assert!(fast_agrees(&entries(64)));
    assert!(simple::read(&entries(65)).is_none());
    // The largest integers that fit 64 bits in fewer than 19 characters are read.
    assert!(fast_agrees("a: 999999999999999999\nb: 0xFFFFFFFFFFFFFFFF\nc: +99999999999999999\n"));
}

mod generated {
    use super::fast_agrees;
    use proptest::prelude::*;

    const KEYS: &[&str] = &[
        "name",
        "description",
        "metadata",
        "version",
        "a.b",
        "_x",
        "x-y",
        "K",
        "y",
        "on",
        "no",
        "true",
        "Null",
        "~",
        "1",
        "-k",
        "k k",
        "<<",
        "é",
        "\"q\"",
        "'q'",
    ];
    const SEPARATORS: &[&str] = &[": ", ":", ":  ", " : ", ":\t", "::", ": \t"];
    const VALUES: &[&str] = &[
        "",
        "x",
        "my-skill",
        "Use when x",
        "1.10",
        "123",
        "0x1F",
        "0o7",
        ".inf",
        "-.5",
        "+1",
        "1e3",
        "1_000",
        "true",
        "False",
        "yes",
        "~",
        "null",
        "NULL",
        "nulls",
        "'a''b'",
        "'x'",
        "\"a b\"",
        "\"a\\nb\"",
        "\"a\" x",
        "\"\"",
        "\" sp \"",
        "\"#: x\"",
        "\"a",
        "a: b",
        "a:b",
        "a:",
        "a #b",
        "a#b",
        "C#",
        "[x]",
        "{x: y}",
        "x [y]",
        "x {y}",
        "x]",
        "-x",
        "- x",
        "?x",
        "? x",
        "!x",
        "!!str x",
        "&a x",
        "*a",
        "|",
        ">-",
        "%x",
        "@x",
        "`x`",
        "é ü",
        "日本語",
        "\u{85}x",
        "x\u{85}",
        "x\u{2028}y",
        "\u{FEFF}x",
        "x\u{FEFF}",
        "😀 x",
        "a\tb",
        "x\r",
        "\u{A0}x",
        "x\u{A0}",
        "a  b",
        ",x",
        "x,",
        "...",
        "---",
        "=x",
        "<<",
        "x'y",
        "\"x\"y\"",
        "x\u{7F}",
        "x\u{1}",
        "\u{FFFD}",
        "x\u{FFFE}",
        "a\\b",
        "x ",
        "a : b",
        "a:\u{A0}b",
        "18446744073709551615",
        "18446744073709551616",
        "+18446744073709551616",
        "0x10000000000000000",
        "0o2000000000000000000000",
        "99999999999999999999",
        "340282366920938463463374607431768211456",
        "1e999",
        "1.0.0",
    ];
    /// Values the fast reading must take.
    const TAKEN: &[&str] = &[
        "x",
        "my-skill",
        "Use when x, or y.",
        "1.10",
        "1.0.0",
        "123",
        "0x1F",
        ".inf",
        "1e999",
        "\"a: b # c\"",
        "\" sp \"",
        "\"\"",
        "é ü",
        "日本語",
        "😀 x",
        "C#",
        "x [y] {z}",
        "a:b",
        "\u{A0}x",
        "it's",
        "...",
    ];
    const BLOCK_HEADERS: &[&str] = &["|", "|-", ">", ">-", "|+", ">+", "|2", ">1-", "| #c", "|  ", "> x", "|\t"];
    /// Lines of a block scalar's body (each indented by the generator).
    const BLOCK_LINES: &[&str] = &[
        "",
        "x",
        "Use when: a",
        "# c",
        "- item",
        "a #b",
        "key: v",
        "x ",
        "  x",
        "\tx",
        "x\ty",
        "é ü",
        "---",
        "...",
        "\u{85}x",
        "x\u{2028}",
        "\u{FEFF}",
        "\\n",
        "'q'",
        "\"q\"",
        "[a]",
        "{a}",
        "|",
        ">",
        "*a",
        "&a x",
    ];
    const OTHER_LINES: &[&str] = &["", "  ", "#c", "  # c", "- item", "---", "...", "\t", "x", "  x", "\"k\": v"];

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => (prop::sample::select(&[0usize, 0, 2, 2, 4, 1, 3][..]), prop::sample::select(KEYS),
                  prop::sample::select(SEPARATORS), prop::sample::select(VALUES))
                .prop_map(|(indent, key, separator, value)| format!("{}{key}{separator}{value}", " ".repeat(indent))),
            // Every value after a plain key, and lines of the simple kind, so that each hard
            // value is met where the fast reading would otherwise take the document.
            6 => (prop::sample::select(&[0usize, 2, 4][..]), prop::sample::select(&KEYS[..6]),
                  prop::sample::select(VALUES))
                .prop_map(|(indent, key, value)| format!("{}{key}: {value}", " ".repeat(indent))),
            8 => (prop::sample::select(&[0usize, 2, 4][..]), prop::sample::select(&KEYS[..6]),
                  prop::sample::select(&VALUES[..10]))
                .prop_map(|(indent, key, value)| format!("{}{key}: {value}", " ".repeat(indent))),
            1 => prop::sample::select(OTHER_LINES).prop_map(str::to_owned),
            // Block sequence items and flow sequences of every value, so that sequences
            // meet each hard value too.
            4 => (prop::sample::select(&[0usize, 0, 2, 2, 4, 1, 3][..]), prop::sample::select(ITEM_MARKS),
                  prop::sample::select(VALUES))
                .prop_map(|(indent, mark, value)| format!("{}{mark}{value}", " ".repeat(indent))),
            // A key waiting for its value, so that the item lines after it are a list.
            2 => (prop::sample::select(&[0usize, 2][..]), prop::sample::select(&KEYS[..6]))
                .prop_map(|(indent, key)| format!("{}{key}:", " ".repeat(indent))),
            3 => (prop::sample::select(&[0usize, 2][..]), prop::sample::select(&KEYS[..6]),
                  prop::collection::vec(prop::sample::select(VALUES), 0..3), prop::sample::select(FLOW_SEPARATORS),
                  prop::sample::select(FLOW_PADDING))
                .prop_map(|(indent, key, items, separator, padding)| {
                    format!("{}{key}: [{padding}{}{padding}]", " ".repeat(indent), items.join(separator))
                }),
        ]
    }

    /// What stands between a flow sequence's items.
    const FLOW_SEPARATORS: &[&str] = &[", ", ",", " , ", " ,", ",  "];
    /// What stands between a block sequence item's `-` and its value.
    const ITEM_MARKS: &[&str] = &["- ", "-  ", "-\t", "- \t", "-"];
    /// What stands just inside a flow sequence's brackets.
    const FLOW_PADDING: &[&str] = &["", " ", "  ", "\t"];
    /// Values the fast reading must take as a block sequence's items: every value it
    /// takes, and booleans in any case.
    const TAKEN_IN_LISTS: &[&str] = &["x", "1.10", "\"a: b # c\"", "é ü", "...", "true", "tRuE", "FALSE", "C#", "a:b"];
    /// Values the fast reading must take as a flow sequence's items (a plain item has no
    /// `,`, `[`, `]`, `{`, `}`, `:`, `#` nor `"`).
    const TAKEN_IN_FLOW: &[&str] = &[
        "x",
        "my-skill",
        "Use when x or y.",
        "1.10",
        "123",
        ".inf",
        "\"a: b, # c\"",
        "\" sp \"",
        "\"\"",
        "é ü",
        "it's",
        "true",
        "False",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]
        #[test]
        fn whatever_the_fast_reading_takes_the_parser_reads_the_same(lines in prop::collection::vec(line(), 1..6)) {
            fast_agrees(&(lines.join("\n") + "\n"));
        }

        #[test]
        fn block_scalars_the_fast_reading_takes_the_parser_reads_the_same(
            header in prop::sample::select(BLOCK_HEADERS),
            key_indent in prop::sample::select(&[0usize, 2][..]),
            body in prop::collection::vec((prop::sample::select(&[0usize, 1, 2, 3, 4, 6][..]), prop::sample::select(BLOCK_LINES)), 0..5),
            after in prop::sample::select(&["", "\n", "next: y\n", "\nnext: y\n", "  deeper: y\n", "- x\n"][..]),
        ) {
            let parent = if key_indent > 0 { "metadata:\n" } else { "" };
            let mut text = format!("name: x\n{parent}{}description: {header}\n", " ".repeat(key_indent));
            for (indent, line) in &body {
                text.push_str(&format!("{}{line}\n", " ".repeat(key_indent + indent)));
            }
            text.push_str(after);
            fast_agrees(&text);
            fast_agrees(text.trim_end_matches('\n'));
        }

        #[test]
        fn simple_block_scalars_are_read_the_fast_way(
            header in prop::sample::select(&["|", "|-", ">", ">-"][..]),
            lines in prop::collection::vec(prop::sample::select(TAKEN), 1..5),
            indent in 1usize..5,
            last in any::<bool>(),
        ) {
            let mut text = format!("description: {header}\n");
            for line in &lines {
                text.push_str(&format!("{}{line}\n", " ".repeat(indent)));
            }
            if last {
                text.push_str("name: x\n");
            }
            prop_assert!(fast_agrees(&text), "{:?}", text);
        }

        #[test]
        fn simple_sequences_are_read_the_fast_way(
            items in prop::collection::vec((prop::sample::select(TAKEN_IN_LISTS), 1usize..4, any::<bool>()), 1..5),
            flow in prop::collection::vec(prop::sample::select(TAKEN_IN_FLOW), 0..5),
            separator in prop::sample::select(FLOW_SEPARATORS),
            padding in prop::sample::select(&["", " ", "  "][..]),
            indent in 0usize..4,
            nested in any::<bool>(),
            (block_last, after) in (any::<bool>(), prop::sample::select(&["", "\n", "\n\n", "  \n"][..])),
        ) {
            let (parent, inner) = if nested { ("metadata:\n", 2) } else { ("", 0) };
            let flow_line = format!("{}tags: [{padding}{}{padding}]\n", " ".repeat(inner), flow.join(separator));
            let mut text = format!("name: x\n{parent}");
            if block_last {
                text.push_str(&flow_line);
            }
            text.push_str(&format!("{}tools:\n", " ".repeat(inner)));
            for (item, spaces, blank_after) in &items {
                text.push_str(&format!("{}-{}{item}\n", " ".repeat(inner + indent), " ".repeat(*spaces)));
                if *blank_after {
                    text.push('\n');
                }
            }
            if !block_last {
                text.push_str(&flow_line);
            }
            // The document may end with a list, after a blank line or not.
            let text = text.trim_end_matches('\n').to_owned() + after;
            prop_assert!(fast_agrees(&text), "{:?}", text);
        }

        #[test]
        fn simple_frontmatter_is_read_the_fast_way(
            values in prop::collection::vec(prop::sample::select(TAKEN), 1..6),
            nested in prop::collection::vec(prop::sample::select(TAKEN), 0..4),
            indent in 1usize..5,
        ) {
            let mut text: String = values.iter().enumerate().map(|(i, v)| format!("key-{i}: {v}\n")).collect();
            if !nested.is_empty() {
                text.push_str("metadata:\n");
                for (i, value) in nested.iter().enumerate() {
                    text.push_str(&format!("{}m_{i}: {value}\n", " ".repeat(indent)));
                }
            }
            prop_assert!(fast_agrees(&text), "{:?}", text);
        }
    }
}

/// An integer past 64 bits is valid YAML (PyYAML reads it): kept as its source text, and in
/// JSON as a string (no JSON number holds it), where the YAML parser's own value refused
/// the whole document.
#[test]
fn integers_past_64_bits_are_read_as_text() {
    for text in [
        "metadata: {build: 12345678901234567890123, n: 7}\n",
        "metadata:\n  build: 12345678901234567890123\n  n: 7\n",
        "metadata:\n  build: -9223372036854775809\n  n: !!str 7\n",
        "metadata:\n  build: 18446744073709551616\n",
    ] {
        let n = parse(text, BOUNDS).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let build = get(get(&n, "metadata"), "build").as_str().unwrap();
        assert!(build.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()) && build.len() >= 19, "{build}");
        let json = to_json_lenient(text, BOUNDS).unwrap();
        assert_eq!(json["metadata"]["build"], serde_json::Value::String(build.to_owned()), "{text:?}");
    }
    let json = to_json_lenient("metadata: {build: 12345678901234567890123, n: 7}\n", BOUNDS).unwrap();
    assert_eq!(json["metadata"]["n"], 7);
    // Two equal keys are still refused.
    assert!(parse("metadata: {a: 12345678901234567890123, a: 1}\n", BOUNDS).is_err());
}

/// An integer past 64 bits keeps its source text, whatever else the document holds; a
/// second document is refused as the parser refuses it.
#[test]
fn integers_past_64_bits_keep_their_source_text() {
    for text in ["metadata:\n  build: +18446744073709551616\n", "metadata:\n  build: +18446744073709551616\n  n: 7\n"] {
        let n = parse(text, BOUNDS).unwrap();
        assert_eq!(get(get(&n, "metadata"), "build").as_str(), Some("+18446744073709551616"), "{text:?}");
    }
    assert!(parse("metadata:\n  build: 18446744073709551616\n---\nname: other\n", BOUNDS).is_err());
}
