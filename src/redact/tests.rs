use super::*;
use proptest::prelude::*;

fn redactor(pairs: &[(&str, &str)]) -> Redactor {
    Redactor::new(pairs.iter().map(|(n, v)| (*n, v.as_bytes().to_vec())))
}

/// Mask `data` fed in the given chunk sizes (cycled).
fn streamed(r: &Redactor, data: &[u8], sizes: &[usize]) -> (Vec<u8>, u64) {
    let mut m = r.masker();
    let mut out = Vec::new();
    let mut rest = data;
    let mut i = 0;
    while !rest.is_empty() {
        let n = sizes[i % sizes.len()].clamp(1, rest.len());
        i += 1;
        out.extend_from_slice(m.push(&rest[..n]));
        rest = &rest[n..];
    }
    out.extend_from_slice(m.finish());
    (out, m.count())
}

#[test]
fn masks_every_occurrence_and_counts() {
    let r = redactor(&[("API_TOKEN", "ghp_supersecret123")]);
    let (out, n) = r.mask_str("a ghp_supersecret123 b ghp_supersecret123");
    assert_eq!(out, "a [REDACTED:API_TOKEN] b [REDACTED:API_TOKEN]");
    assert_eq!(n, 2);
    let (out, n) = r.mask_str("nothing here");
    assert!(matches!(out, Cow::Borrowed(_)));
    assert_eq!(n, 0);
}

#[test]
fn the_longest_value_wins_where_values_overlap() {
    let r = redactor(&[("SHORT", "secret1"), ("LONG", "secret123")]);
    assert_eq!(r.mask_str("xsecret123y").0, "x[REDACTED:LONG]y");
    assert_eq!(r.mask_str("xsecret12y").0, "x[REDACTED:SHORT]2y");
    // Split so the short value is complete before the long one is.
    let (out, _) = streamed(&r, b"xsecret123y", &[8, 1, 1, 1]);
    assert_eq!(out, b"x[REDACTED:LONG]y");
}

#[test]
fn a_value_split_across_chunks_is_masked() {
    let r = redactor(&[("API_TOKEN", "ghp_supersecret123")]);
    for sizes in [&[1][..], &[9], &[4, 7], &[17], &[18], &[100]] {
        let (out, n) = streamed(&r, b"<ghp_supersecret123>ghp_supersecret123", sizes);
        assert_eq!(
            out, b"<[REDACTED:API_TOKEN]>[REDACTED:API_TOKEN]",
            "{sizes:?}"
        );
        assert_eq!(n, 2);
    }
}

#[test]
fn a_value_shared_by_names_shows_the_first_name() {
    let r = redactor(&[("B_TOKEN", "same-value"), ("A_TOKEN", "same-value")]);
    assert_eq!(r.mask_str("same-value").0, "[REDACTED:A_TOKEN]");
    assert_eq!(r.values().count(), 1);
}

#[test]
fn debug_never_shows_values() {
    let r = redactor(&[("API_TOKEN", "ghp_supersecret123")]);
    let shown = format!("{r:?}");
    assert!(shown.contains("API_TOKEN"));
    assert!(!shown.contains("ghp_"));
}

#[test]
fn nothing_to_mask_passes_bytes_through() {
    let r = Redactor::none();
    assert!(r.is_empty());
    let (out, n) = streamed(&r, b"hello world", &[3]);
    assert_eq!((out.as_slice(), n), (&b"hello world"[..], 0));
}

#[test]
fn memory_stays_bounded_by_chunk_and_longest_value() {
    let r = redactor(&[("API_TOKEN", "ghp_supersecret123"), ("X_SECRET", "abcdef")]);
    let chunk = b"line with ghp_supersecret123 and abcdef in it\n".repeat(1500);
    let mut m = r.masker();
    for _ in 0..200 {
        m.push(&chunk);
    }
    m.finish();
    assert_eq!(m.count(), 200 * 1500 * 2);
    assert!(
        m.buf.capacity() <= 2 * (chunk.len() + 18),
        "{}",
        m.buf.capacity()
    );
    assert!(m.out.capacity() <= 4 * chunk.len(), "{}", m.out.capacity());
}

#[test]
fn default_names_and_lengths() {
    let rules = RedactRules::default();
    for name in [
        "API_TOKEN",
        "github_token",
        "DB_PASSWORD",
        "MY_PASSWD",
        "OPENAI_API_KEY",
        "SSH_PRIVATE_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "GCP_CREDENTIALS",
    ] {
        assert!(rules.is_secret(name, b"abcdef"), "{name}");
        assert!(!rules.is_secret(name, b"abcde"), "{name}: 5 bytes");
    }
    assert!(!rules.is_secret("HOME", b"/home/someone"));
    assert!(!rules.is_secret("API_TOKEN", b""));
}

fn rules(entries: &[&str]) -> RedactRules {
    let mut r = RedactRules::default();
    for e in entries {
        r.push(RedactRules::entry(e).unwrap());
    }
    r
}

#[test]
fn redact_env_names_globs_and_exclusions() {
    let r = rules(&["DEPLOY_PIN", "AWS_*", "!MY_TOKEN_COUNT", "!*_PUBLIC_*"]);
    // Named exactly: any length.
    assert!(r.is_secret("DEPLOY_PIN", b"1234"));
    // Globs follow the length rule, like the defaults.
    assert!(r.is_secret("AWS_ACCESS_KEY_ID", b"AKIAEXAMPLE"));
    assert!(!r.is_secret("AWS_OUTPUT", b"json"));
    // Exclusions switch the defaults off.
    assert!(!r.is_secret("MY_TOKEN_COUNT", b"1234567"));
    assert!(!r.is_secret("A_PUBLIC_TOKEN", b"not-secret-at-all"));
    assert!(r.is_secret("OTHER_TOKEN", b"1234567"));
    // `!*` keeps only the names listed exactly.
    let only = rules(&["!*", "DEPLOY_PIN"]);
    assert!(!only.is_secret("API_TOKEN", b"ghp_supersecret123"));
    assert!(only.is_secret("DEPLOY_PIN", b"1234"));
}

#[test]
fn bad_entries_are_refused() {
    assert!(RedactRules::entry("").is_err());
    assert!(RedactRules::entry("!").is_err());
    assert!(RedactRules::entry("A=B").is_err());
    assert!(RedactRules::entry("AWS_[").is_err());
}

#[test]
fn secrets_come_from_vars_under_the_rules() {
    let vars = [
        ("API_TOKEN", "ghp_supersecret123"),
        ("HOME", "/home/someone"),
        ("SHORT_TOKEN", "abc"),
    ];
    let r = Redactor::from_vars(
        &RedactRules::default(),
        vars.iter()
            .map(|(n, v)| (Cow::Borrowed(*n), Cow::Borrowed(v.as_bytes()))),
    );
    assert_eq!(
        r.values().collect::<Vec<_>>(),
        vec![&b"ghp_supersecret123"[..]]
    );
}

proptest! {
    /// Streaming gives the same bytes and count as masking the whole
    /// stream at once, for any chunking; and no value survives unless the
    /// replacement text itself forms it (impossible for these values).
    #[test]
    fn streaming_equals_whole(
        pieces in proptest::collection::vec((0usize..5, "[a-z_ ]{0,6}"), 0..40),
        sizes in proptest::collection::vec(1usize..40, 1..8),
    ) {
        let values = ["ghp_super", "ghp_supersecret123", "secret12", "xyzxyz", "a_b_c_"];
        let r = Redactor::new(values.iter().enumerate().map(|(i, v)| (format!("V{i}"), v.as_bytes().to_vec())));
        let mut data = Vec::new();
        for (k, filler) in &pieces {
            data.extend_from_slice(values[*k].as_bytes());
            data.extend_from_slice(filler.as_bytes());
        }
        let (whole, n) = r.mask_bytes(&data);
        let (out, m) = streamed(&r, &data, &sizes);
        prop_assert_eq!(&out, &whole.into_owned());
        prop_assert_eq!(m, n);
        let text = String::from_utf8(out).unwrap();
        for v in values {
            prop_assert!(!text.contains(v), "{v} left in {text}");
        }
    }
}

proptest! {
    /// Both finders report the same leftmost-longest matches, for values
    /// that share prefixes and overlap.
    #[test]
    fn teddy_and_the_automaton_agree(
        values in proptest::collection::btree_set("(ab|ghp_)[abc_]{0,5}", 1..30),
        hay in "[abcghp_ x]{0,300}",
    ) {
        let secrets: Vec<(String, Vec<u8>)> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("V{i}"), v.as_bytes().to_vec()))
            .collect();
        let Some(teddy) = Finder::packed(&secrets) else {
            return Ok(());
        };
        let matches = |f: &Finder| {
            let mut all = Vec::new();
            f.each(hay.as_bytes(), usize::MAX, |s, e, p| all.push((s, e, p)));
            all
        };
        prop_assert_eq!(matches(&teddy), matches(&Finder::automaton(&secrets)));
    }
}

#[test]
fn a_signing_key_is_masked_whole_and_line_by_line_but_its_public_comment() {
    let key =
        "untrusted comment: minisign secret key\nRWQAAEIyAAAAAAAAAAAAAAAA4iGgik0jIAzqZ12g==\n";
    let r = Redactor::new(key_values(key.as_bytes().to_vec()).map(|v| ("KEY", v)));
    let line = "RWQAAEIyAAAAAAAAAAAAAAAA4iGgik0jIAzqZ12g";
    for (shown, masked) in [
        (format!("{key}next\n"), "[REDACTED:KEY]\nnext\n"),
        (format!("line: {line}==\n"), "line: [REDACTED:KEY]\n"),
        (format!("{line}.\n"), "[REDACTED:KEY].\n"),
        (
            "untrusted comment: minisign secret key\n".to_string(),
            "untrusted comment: minisign secret key\n",
        ),
    ] {
        assert_eq!(r.mask_str(&shown).0, masked);
    }
}
