//! Text analysis made for tool catalogs.
//!
//! - Words are maximal runs of Unicode letters and digits; identifiers are
//!   split further at case changes (`getUserProfile` -> get user profile,
//!   `HTTPServer` -> http server), so snake_case, camelCase, PascalCase,
//!   kebab-case, dotted and `mcp__server__tool` names all give their words.
//! - CJK ideographs, kana and hangul syllables are one word each (no spaces
//!   to split on).
//! - Thai, Lao, Khmer and Burmese, also written without spaces, are indexed
//!   as overlapping bigrams of character clusters (a letter with its
//!   combining marks; a run of one cluster is that cluster): [`unspaced`].
//! - Case is folded (Unicode lower case); numbers are kept as words.
//! - English stop words are dropped (Lucene's 33-word list); queries also drop
//!   request filler ("please", "could", "want", ...).
//! - Words are stemmed with the Snowball English (Porter2) stemmer.

mod unspaced;

use std::borrow::Cow;

/// Lucene's English stop words.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Words of a request that say nothing about which tool it needs.
pub const QUERY_FILLER: &[&str] = &[
    "please", "pls", "kindly", "help", "want", "wants", "wanted", "need", "needs", "like", "me",
    "my", "i", "i'm", "im", "you", "your", "we", "our", "us", "could", "would", "can", "should",
    "shall", "may", "might", "do", "does", "did", "also", "just", "hey", "hi", "hello", "thanks",
    "thank", "tell", "let", "know", "so", "some", "what", "which", "who", "whom", "how", "when",
    "where", "why", // What an apostrophe leaves of a contraction: what's, don't, I've.
    "s", "t", "d", "ll", "m", "re", "ve",
];

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xAC00..=0xD7AF    // hangul syllables
        | 0x20000..=0x2FFFF) // extensions B and later
}

/// Calls `f` with each word of `text`, already lower-cased, in order.
///
/// `buf` is scratch space reused between calls, so analysing a large catalog
/// does not allocate per word.
pub fn for_each_word(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            if !b.is_ascii_alphanumeric() {
                i += 1;
                continue;
            }
            // ASCII fast path: a run of ASCII letters and digits, unless a
            // non-ASCII letter continues it.
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            if i < bytes.len() && !bytes[i].is_ascii() {
                i = slow_run_end(text, start);
            }
            split_identifier(&text[start..i], buf, &mut f);
            continue;
        }
        // Non-ASCII: decode one character.
        let c = text[i..].chars().next().unwrap_or(' ');
        if is_cjk(c) {
            buf.clear();
            buf.push(c);
            f(buf);
            i += c.len_utf8();
        } else if unspaced::is_unspaced(c) {
            let start = i;
            i = unspaced::run_end(text, start);
            unspaced::for_each_bigram(&text[start..i], &mut f);
        } else if c.is_alphanumeric() {
            let start = i;
            i = slow_run_end(text, start);
            split_identifier(&text[start..i], buf, &mut f);
        } else {
            i += c.len_utf8();
        }
    }
}

/// End of the run of letters and digits (not CJK, Thai, Lao, Khmer or
/// Burmese) that starts at `start`.
fn slow_run_end(text: &str, start: usize) -> usize {
    for (offset, c) in text[start..].char_indices() {
        if !c.is_alphanumeric() || is_cjk(c) || unspaced::is_unspaced(c) {
            return start + offset;
        }
    }
    text.len()
}

/// Splits one run of letters and digits at case changes and lower-cases it.
fn split_identifier(run: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    if run.is_ascii() {
        let b = run.as_bytes();
        let mut piece_start = 0;
        for k in 1..b.len() {
            let (prev, cur) = (b[k - 1], b[k]);
            // aB -> a|B ; 9B -> 9|B ; ABc -> A|Bc
            let boundary = cur.is_ascii_uppercase()
                && (prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase()
                        && b.get(k + 1).is_some_and(u8::is_ascii_lowercase)));
            if boundary {
                emit_lower(&run[piece_start..k], buf, f);
                piece_start = k;
            }
        }
        emit_lower(&run[piece_start..], buf, f);
        return;
    }
    if !run.chars().any(char::is_uppercase) {
        emit_lower(run, buf, f);
        return;
    }
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut piece_start = 0;
    for k in 1..chars.len() {
        let prev = chars[k - 1].1;
        let cur = chars[k].1;
        let next = chars.get(k + 1).map(|x| x.1);
        let boundary = cur.is_uppercase()
            && (prev.is_lowercase()
                || prev.is_numeric()
                || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
        if boundary {
            emit_lower(&run[piece_start..chars[k].0], buf, f);
            piece_start = chars[k].0;
        }
    }
    emit_lower(&run[piece_start..], buf, f);
}

fn emit_lower(piece: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    buf.clear();
    if piece.is_ascii() {
        buf.push_str(piece);
        buf.make_ascii_lowercase();
    } else {
        buf.extend(piece.chars().flat_map(char::to_lowercase));
    }
    f(buf);
}

/// Abbreviations of tool vocabulary and their long forms (lower case, the
/// long form's words separated by one space). A query word (or two-word
/// phrase) in either column also looks up the other, at a lower weight, so
/// "open a PR" finds `create_pull_request` and "list repositories" finds a
/// tool that says "repos".
pub const ABBREVIATIONS: &[(&str, &str)] = &[
    ("pr", "pull request"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("dm", "direct message"),
    ("env", "environment"),
    ("config", "configuration"),
    ("db", "database"),
    ("k8s", "kubernetes"),
    ("msg", "message"),
    ("org", "organization"),
    ("dir", "directory"),
    ("auth", "authentication"),
    ("info", "information"),
    ("docs", "documentation"),
    ("app", "application"),
    ("pkg", "package"),
    ("img", "image"),
    ("tz", "timezone"),
    ("stats", "statistics"),
];

/// The other forms of `word` (or two-word phrase) in [`ABBREVIATIONS`].
pub fn abbreviation_forms(word: &str) -> impl Iterator<Item = &'static str> + '_ {
    ABBREVIATIONS.iter().filter_map(move |&(short, long)| {
        if short == word {
            Some(long)
        } else if long == word {
            Some(short)
        } else {
            None
        }
    })
}

/// The words of a tool name, lower-cased, not stemmed: the name's identity.
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut buf = String::new();
    for_each_word(name, &mut buf, |w| words.push(w.to_string()));
    words
}

/// The key a tool name is recognised by in a query: its words joined by `_`,
/// so `github.create_issue`, `github_create_issue` and `GithubCreateIssue`
/// are the same name.
pub fn name_key(name: &str) -> String {
    name_words(name).join("_")
}

pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The Snowball English stemmer.
pub struct Stemmer(rust_stemmers::Stemmer);

impl Default for Stemmer {
    fn default() -> Self {
        Stemmer(rust_stemmers::Stemmer::create(
            rust_stemmers::Algorithm::English,
        ))
    }
}

impl Stemmer {
    pub fn stem<'a>(&self, word: &'a str) -> Cow<'a, str> {
        // Numbers, CJK and the bigrams of scripts without spaces pass through
        // unchanged.
        if word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || is_cjk(c) || unspaced::is_unspaced(c))
        {
            return Cow::Borrowed(word);
        }
        self.0.stem(word)
    }
}

impl std::fmt::Debug for Stemmer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stemmer(english)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = String::new();
        for_each_word(text, &mut buf, |w| out.push(w.to_string()));
        out
    }

    #[test]
    fn splits_every_naming_style() {
        assert_eq!(words("get_user_profile"), ["get", "user", "profile"]);
        assert_eq!(words("getUserProfile"), ["get", "user", "profile"]);
        assert_eq!(words("GetUserProfile"), ["get", "user", "profile"]);
        assert_eq!(words("get-user-profile"), ["get", "user", "profile"]);
        assert_eq!(words("github.create_issue"), ["github", "create", "issue"]);
        assert_eq!(
            words("mcp__github__create_issue"),
            ["mcp", "github", "create", "issue"]
        );
        assert_eq!(words("HTTPServerError"), ["http", "server", "error"]);
        assert_eq!(words("parseJSON2XML"), ["parse", "json2", "xml"]);
        assert_eq!(words("canvas_create_edge"), ["canvas", "create", "edge"]);
    }

    #[test]
    fn folds_unicode_and_keeps_numbers() {
        assert_eq!(words("Größe ÄNDERN 42 v2"), ["größe", "ändern", "42", "v2"]);
        assert_eq!(words("Ünïcode"), ["ünïcode"]);
        assert_eq!(words("天气 预报"), ["天", "气", "预", "报"]);
        assert_eq!(words("  --  "), Vec::<String>::new());
    }

    #[test]
    fn name_keys_unify_separators() {
        assert_eq!(name_key("github.create_issue"), "github_create_issue");
        assert_eq!(name_key("githubCreateIssue"), "github_create_issue");
        assert_eq!(name_key("ask_codex"), "ask_codex");
    }

    #[test]
    fn stop_words_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
        assert!(is_stop_word("the") && !is_stop_word("status"));
        assert!(QUERY_FILLER.contains(&"please") && !QUERY_FILLER.contains(&"weather"));
    }

    #[test]
    fn snowball_english() {
        let s = Stemmer::default();
        assert_eq!(s.stem("running"), "run");
        assert_eq!(s.stem("issues"), "issu");
        assert_eq!(s.stem("issue"), "issu");
        assert_eq!(s.stem("2024"), "2024");
    }
}
