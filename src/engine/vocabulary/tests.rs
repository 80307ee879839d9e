//! The vocabulary's tables and their rules.

use super::*;

fn words(v: &Vocabulary, word: &str) -> Vec<(String, Source)> {
    let stem = Stemmer::default().stem(word).into_owned();
    v.expansions(&stem)
        .iter()
        .map(|e| (e.word.to_string(), e.source))
        .collect()
}

#[test]
fn the_bundled_tables_read_whole() {
    let mut v = Vocabulary::default();
    assert_eq!(v.add_tools_table(TOOLS_TABLE), Ok(()));
    let tools = v.len();
    assert!(tools > 150, "{tools}");
    v.add_wordnet_table(WORDNET_TABLE);
    assert!(v.len() > 5_000, "{}", v.len());
    for line in WORDNET_TABLE.lines() {
        let (from, to) = line.split_once('\t').expect("a tab");
        assert!(is_word(from), "{line:?}");
        assert!(to.split(' ').all(is_word), "{line:?}");
    }
}

#[test]
fn everyday_words_meet_tool_words_in_any_inflection() {
    let v = vocabulary();
    let has = |word: &str, target: &str| words(v, word).iter().any(|(w, _)| w == target);
    assert!(has("folder", "directory"));
    assert!(has("folders", "directory"));
    assert!(has("directory", "folder"));
    assert!(has("saving", "write"));
    assert!(has("picture", "image"));
    assert!(has("undo", "reset"));
    assert!(has("renamed", "move"));
    // One way only: "move" does not look for "rename".
    assert!(!has("move", "rename"));
    // WordNet's synonyms come after the tool table's.
    let picture = words(v, "picture");
    assert_eq!(picture[0], ("image".to_string(), Source::Tools));
    assert!(picture.iter().any(|(_, s)| *s == Source::WordNet));
}

#[test]
fn a_bad_line_is_named_and_the_good_ones_kept() {
    let mut v = Vocabulary::default();
    let errors = v
        .add_tools_table("folder = directory\nSave -> write\nnothing here\nx ->\n")
        .unwrap_err();
    let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, [2, 3, 4]);
    assert!(errors[0].to_string().contains("\"Save -> write\""));
    assert_eq!(words(&v, "folder"), [("directory".into(), Source::Tools)]);
}

#[test]
fn a_word_does_not_expand_to_its_own_forms() {
    let mut v = Vocabulary::default();
    v.add_tools_table("file = files = filing\n").unwrap();
    assert!(words(&v, "file").is_empty());
    v.add_wordnet_table("run\trunning runs sprint\nBAD\tx\n");
    assert_eq!(words(&v, "run"), [("sprint".into(), Source::WordNet)]);
}

#[test]
fn an_inflection_is_told_from_a_word_of_its_own() {
    let stemmer = Stemmer::default();
    for word in ["times", "contents", "notes", "modified", "changes"] {
        assert!(is_inflection(&stemmer, word), "{word}");
    }
    for word in ["time", "news", "status", "process", "access", "folder"] {
        assert!(!is_inflection(&stemmer, word), "{word}");
    }
}

#[test]
fn an_inflection_expands_as_written_and_its_stem_does_not_borrow_it() {
    // In either order of the lines.
    for table in [
        "clock -> time\ntime -> clock\ntimes -> multiply\n",
        "times -> multiply\ntime -> clock\n",
    ] {
        let mut v = Vocabulary::default();
        v.add_tools_table(table).unwrap();
        let of = |word: &str| -> Vec<String> {
            let stem = Stemmer::default().stem(word).into_owned();
            v.expansions_of(word, &stem)
                .iter()
                .map(|e| e.word.to_string())
                .collect()
        };
        assert_eq!(of("time"), ["clock"], "{table}");
        assert_eq!(of("timing"), ["clock"], "{table}");
        let mut times = of("times");
        times.sort();
        assert_eq!(times, ["clock", "multiply"], "{table}");
    }
    // The bundled tables: "what time is it" looks for no product.
    let v = vocabulary();
    let time: Vec<&str> = v
        .expansions_of("time", "time")
        .iter()
        .map(|e| &*e.word)
        .collect();
    assert!(time.iter().all(|w| !w.starts_with("multipl")), "{time:?}");
    let times = v.expansions_of("times", "time");
    assert!(times.iter().any(|e| &*e.word == "multiply"), "{times:?}");
}

#[test]
fn a_general_synonym_shares_a_usual_sense_of_both_words() {
    let v = vocabulary();
    let has = |word: &str, target: &str| words(v, word).iter().any(|(w, _)| w == target);
    // A rare sense of an ambiguous word: "kick" as a thrill, "back"
    // as the verb "support" (it is mostly the adverb).
    assert!(!has("kick", "charge"));
    assert!(!has("kick", "thrill"));
    assert!(!has("back", "support"));
    assert!(!has("back", "endorse"));
    // The usual sense of both still expands.
    assert!(has("buy", "purchase"));
    assert!(has("movie", "film"));
    assert!(has("doctor", "physician"));
    assert!(has("photo", "photograph"));
    assert!(has("begin", "start"));
    // A word used mostly outside the table's parts of speech (an
    // adverb, a particle) is not expanded as a noun or a verb.
    let wordnet = |word: &str| {
        words(v, word)
            .into_iter()
            .filter(|(_, s)| *s == Source::WordNet)
            .count()
    };
    assert_eq!(wordnet("back"), 0);
    assert_eq!(wordnet("kick"), 0);
}
