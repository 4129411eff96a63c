//! The rules of the Jenkins xUnit plugin's JUnit schema (`junit-10.xsd` in
//! jenkinsci/xunit-plugin, as on its master branch), written out as data
//! and checked over a parsed document. Strict consumers validate against
//! that schema and reject the whole file on the first violation.
//!
//! What the schema says, element by element:
//! - `testsuites`: attributes `name`, `time`, `tests`, `failures`, `errors`
//!   (none required); children: `testsuite` only.
//! - `testsuite`: requires `name`, `tests`, `failures`, `errors`; also
//!   allows `group`, `time`, `skipped`, `timestamp`, `hostname`, `id`,
//!   `package`, `file`, `log`, `url`, `version`; children, in any order:
//!   `testsuite`, `properties`, `testcase`, `system-out`, `system-err`.
//! - `properties`: `property` children only; `property`: requires `name`
//!   and `value`, nothing else, no content.
//! - `testcase`: requires `name`; also allows `time`, `classname`, `group`;
//!   children, in any order: `skipped`, `error`, `failure`, `rerunFailure`,
//!   `rerunError`, `flakyFailure`, `flakyError`, `system-out`, `system-err`.
//! - `failure`, `error`, `skipped`: attributes `type`, `message`; mixed
//!   content (text, no child elements).
//! - `rerunFailure`, `rerunError`, `flakyFailure`, `flakyError`: requires
//!   `type`, allows `message`; mixed content with at most one each of
//!   `stackTrace`, `system-out`, `system-err`, in that order.
//! - `system-out`, `system-err`, `stackTrace`: `xs:string`, so text only,
//!   no attributes.
//! - `time` of `testsuites` and `testsuite` is `SUREFIRE_TIME`, the pattern
//!   `(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?` on master (an
//!   unmerged branch relaxed the decimals to `[0-9]*`; the master pattern is
//!   the stricter, so meeting it meets both). The `testcase` `time` is a
//!   plain `xs:string`.
//! - Elements without mixed content hold no text but white space.

use roxmltree::{Document, Node};

/// One element type of the schema.
struct Rule {
    name: &'static str,
    required: &'static [&'static str],
    optional: &'static [&'static str],
    children: &'static [&'static str],
    /// Text may stand beside the children (`mixed="true"`, or `xs:string`).
    text: bool,
    /// The children are an `xs:sequence` of optional elements: each at
    /// most once, in the order listed. Otherwise any number, any order.
    sequence: bool,
}

const RERUN: Rule = Rule {
    name: "",
    required: &["type"],
    optional: &["message"],
    children: &["stackTrace", "system-out", "system-err"],
    text: true,
    sequence: true,
};

const fn rerun(name: &'static str) -> Rule {
    Rule { name, ..RERUN }
}

const fn leaf(name: &'static str, optional: &'static [&'static str]) -> Rule {
    Rule {
        name,
        required: &[],
        optional,
        children: &[],
        text: true,
        sequence: false,
    }
}

const RULES: &[Rule] = &[
    Rule {
        name: "testsuites",
        required: &[],
        optional: &["name", "time", "tests", "failures", "errors"],
        children: &["testsuite"],
        text: false,
        sequence: false,
    },
    Rule {
        name: "testsuite",
        required: &["name", "tests", "failures", "errors"],
        optional: &[
            "group",
            "time",
            "skipped",
            "timestamp",
            "hostname",
            "id",
            "package",
            "file",
            "log",
            "url",
            "version",
        ],
        children: &[
            "testsuite",
            "properties",
            "testcase",
            "system-out",
            "system-err",
        ],
        text: false,
        sequence: false,
    },
    Rule {
        name: "properties",
        required: &[],
        optional: &[],
        children: &["property"],
        text: false,
        sequence: false,
    },
    Rule {
        name: "property",
        required: &["name", "value"],
        optional: &[],
        children: &[],
        text: false,
        sequence: false,
    },
    Rule {
        name: "testcase",
        required: &["name"],
        optional: &["time", "classname", "group"],
        children: &[
            "skipped",
            "error",
            "failure",
            "rerunFailure",
            "rerunError",
            "flakyFailure",
            "flakyError",
            "system-out",
            "system-err",
        ],
        text: false,
        sequence: false,
    },
    leaf("failure", &["type", "message"]),
    leaf("error", &["type", "message"]),
    leaf("skipped", &["type", "message"]),
    rerun("rerunFailure"),
    rerun("rerunError"),
    rerun("flakyFailure"),
    rerun("flakyError"),
    leaf("system-out", &[]),
    leaf("system-err", &[]),
    leaf("stackTrace", &[]),
];

/// Elements whose `time` is `SUREFIRE_TIME`.
const SUREFIRE_TIME_ON: &[&str] = &["testsuites", "testsuite"];
const SUREFIRE_TIME: &str = r"^(?:(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?)$";

/// Every way `doc` breaks the schema, each naming the element (with its
/// `name` attribute, if any) and the rule; empty when it is valid.
pub fn violations(doc: &Document) -> Vec<String> {
    let mut found = Vec::new();
    let root = doc.root_element();
    if root.tag_name().name() != "testsuites" {
        found.push(format!(
            "the root is <{}>, not <testsuites>",
            root.tag_name().name()
        ));
    }
    let time = regex::Regex::new(SUREFIRE_TIME).unwrap();
    for node in root.descendants().filter(Node::is_element) {
        check(node, &time, &mut found);
    }
    found
}

fn check(node: Node, time: &regex::Regex, found: &mut Vec<String>) {
    let tag = node.tag_name().name();
    let at = match node.attribute("name") {
        Some(n) => format!("<{tag} name={n:?}>"),
        None => format!("<{tag}>"),
    };
    if node.tag_name().namespace().is_some() {
        found.push(format!("{at}: the schema has no namespace"));
    }
    let Some(rule) = RULES.iter().find(|r| r.name == tag) else {
        found.push(format!("{at}: no such element in the schema"));
        return;
    };
    for a in node.attributes() {
        let known = rule.required.contains(&a.name()) || rule.optional.contains(&a.name());
        if !known || a.namespace().is_some() {
            found.push(format!("{at}: attribute `{}` is not allowed", a.name()));
        }
    }
    for r in rule.required {
        if node.attribute(*r).is_none() {
            found.push(format!("{at}: required attribute `{r}` is missing"));
        }
    }
    if SUREFIRE_TIME_ON.contains(&tag)
        && let Some(t) = node.attribute("time")
        && !time.is_match(t)
    {
        found.push(format!("{at}: time {t:?} does not match SUREFIRE_TIME"));
    }
    let mut last_sequence_index = None;
    for child in node.children() {
        if child.is_text() {
            let text = child.text().unwrap_or("");
            if !rule.text && !text.trim().is_empty() {
                found.push(format!("{at}: text {text:?} is not allowed here"));
            }
            continue;
        }
        if !child.is_element() {
            continue;
        }
        let name = child.tag_name().name();
        let Some(index) = rule.children.iter().position(|c| *c == name) else {
            found.push(format!("{at}: child <{name}> is not allowed"));
            continue;
        };
        if rule.sequence {
            if last_sequence_index.is_some_and(|last| index <= last) {
                found.push(format!("{at}: <{name}> repeated or out of order"));
            }
            last_sequence_index = Some(index);
        }
    }
}
