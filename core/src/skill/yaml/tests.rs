//! Tests of `yaml`.

use super::*;

const BOUNDS: YamlLimits = YamlLimits { max_depth: 32, max_aliases: 64 };

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
    // The alias count refuses it first; without that bound, the parser's own does.
    let err = parse(&text, BOUNDS).unwrap_err();
    assert_eq!(err.message, "more than 64 aliases");
    let unbounded = YamlLimits { max_depth: 32, max_aliases: usize::MAX };
    let err = parse(&text, unbounded).unwrap_err();
    assert!(err.limit && err.message.contains("repetition limit"), "{}", err.message);
}

#[test]
fn aliases_are_counted_outside_quotes_and_comments() {
    let limits = YamlLimits { max_depth: 32, max_aliases: 2 };
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
