//! Scripts written without spaces between words: Thai, Lao, Khmer and
//! Burmese (Myanmar).
//!
//! With no word boundaries to find, a run of one of these scripts is cut into
//! character clusters, and the run is indexed as the overlapping bigrams of
//! its clusters (a run of one cluster is that cluster). A cluster is a letter
//! with the combining marks that follow it (vowel signs, tone marks, the
//! Burmese medials and asat) and, after a Khmer coeng or a Myanmar virama,
//! the subscript consonant it stacks; no bigram starts with a mark. Queries
//! and documents are cut the same way, so "ค้นหาสภาพอากาศ" and
//! "ดูสภาพอากาศวันนี้" share the bigrams of สภาพอากาศ (weather).

use unicode_general_category::{GeneralCategory, get_general_category};

/// Khmer coeng and Myanmar virama: the consonant after them is written under
/// the one before, in the same cluster.
const STACKERS: [char; 2] = ['\u{17D2}', '\u{1039}'];

/// Whether `c` is a letter or a combining mark of Thai, Lao, Khmer or
/// Myanmar. (Their digits and punctuation are not: digits are numbers, as in
/// any script, and punctuation separates.)
pub(super) fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0E7F       // Thai
        | 0x0E80..=0x0EFF     // Lao
        | 0x1000..=0x109F     // Myanmar
        | 0x1780..=0x17FF     // Khmer
        | 0xA9E0..=0xA9FF     // Myanmar extended-B
        | 0xAA60..=0xAA7F)    // Myanmar extended-A
        && matches!(
            get_general_category(c),
            GeneralCategory::OtherLetter
                | GeneralCategory::ModifierLetter
                | GeneralCategory::NonspacingMark
                | GeneralCategory::SpacingMark
                | GeneralCategory::EnclosingMark
        )
}

fn is_mark(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::EnclosingMark
    )
}

/// End of the run of [`is_unspaced`] characters that starts at `start`.
pub(super) fn run_end(text: &str, start: usize) -> usize {
    text[start..]
        .char_indices()
        .find(|&(_, c)| !is_unspaced(c))
        .map_or(text.len(), |(offset, _)| start + offset)
}

/// Calls `f` with each bigram of `run`'s clusters in order, or with its one
/// cluster. Marks with no letter before them are left out.
pub(super) fn for_each_bigram(run: &str, f: &mut impl FnMut(&str)) {
    // Byte ranges of the cluster before and of the one being read.
    let mut prev: Option<(usize, usize)> = None;
    let mut cur: Option<(usize, usize)> = None;
    let mut emitted = false;
    let mut stacked = false;
    let mut finish = |cluster: (usize, usize), prev: &mut Option<(usize, usize)>| {
        if let Some((start, _)) = *prev {
            f(&run[start..cluster.1]);
            emitted = true;
        }
        *prev = Some(cluster);
    };
    for (i, c) in run.char_indices() {
        let end = i + c.len_utf8();
        cur = match cur {
            Some((start, _)) if stacked || is_mark(c) => Some((start, end)),
            Some(done) => {
                finish(done, &mut prev);
                Some((i, end))
            }
            None if is_mark(c) => None,
            None => Some((i, end)),
        };
        stacked = cur.is_some() && STACKERS.contains(&c);
    }
    if let Some(done) = cur {
        finish(done, &mut prev);
    }
    if !emitted && let Some((start, end)) = prev {
        f(&run[start..end]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::for_each_word;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = String::new();
        for_each_word(text, &mut buf, |w| out.push(w.to_string()));
        out
    }

    fn shared(a: &str, b: &str) -> Vec<String> {
        let b = words(b);
        words(a).into_iter().filter(|w| b.contains(w)).collect()
    }

    #[test]
    fn thai_is_cut_into_cluster_bigrams() {
        // ค้ is ค with a tone mark: one cluster, never a bigram starting at ้.
        assert_eq!(words("ค้นหา"), ["ค้น", "นห", "หา"]);
        assert_eq!(words("ดูสภาพ"), ["ดูส", "สภ", "ภา", "าพ"]);
        // A run of one cluster is that cluster; marks with no letter go.
        assert_eq!(words("ค้"), ["ค้"]);
        assert_eq!(words("ก"), ["ก"]);
        assert_eq!(words("\u{0E49}ก"), ["ก"]);
        assert_eq!(words("\u{0E49}"), Vec::<String>::new());
        // Spaces, punctuation and digits end a run.
        assert_eq!(words("ค้น หา"), ["ค้น", "หา"]);
        assert_eq!(words("หา๒๐"), ["หา", "๒๐"]);
        // A request and a description that share a word share its bigrams.
        assert_eq!(
            shared("ค้นหาสภาพอากาศ", "ดูสภาพอากาศวันนี้"),
            ["สภ", "ภา", "าพ", "พอ", "อา", "าก", "กา", "าศ"]
        );
        assert!(shared("ค้นหาสภาพอากาศ", "ส่งอีเมลถึงลูกค้า").is_empty());
    }

    #[test]
    fn lao_khmer_and_burmese_too() {
        // Lao: a vowel sign and a tone mark on ຄ.
        assert_eq!(words("ຄົ້ນຫາ"), ["ຄົ້ນ", "ນຫ", "ຫາ"]);
        assert_eq!(
            shared("ຄົ້ນຫາສະພາບອາກາດ", "ເບິ່ງສະພາບອາກາດມື້ນີ້"),
            ["ສະ", "ະພ", "ພາ", "າບ", "ບອ", "ອາ", "າກ", "ກາ", "າດ"]
        );
        // Khmer: the consonant after coeng (្) is stacked in the cluster.
        assert_eq!(words("ស្វែ"), ["ស្វែ"]);
        assert_eq!(words("ស្វែងរក"), ["ស្វែង", "ងរ", "រក"]);
        assert_eq!(
            shared("ស្វែងរកអាកាសធាតុ", "មើលអាកាសធាតុថ្ងៃនេះ"),
            ["អាកា", "កាស", "សធា", "ធាតុ"]
        );
        // Burmese: medials, vowel signs and asat belong to their letter, as
        // does the consonant after the virama (္).
        assert_eq!(words("ရှာပါ"), ["ရှာပါ"]);
        assert_eq!(words("ကြည့်ရန်"), ["ကြည့်", "ည့်ရ", "ရန်"]);
        assert_eq!(words("မန္တလေး"), ["မန္တ", "န္တလေး"]);
        assert_eq!(shared("ရာသီဥတုကိုရှာပါ", "ယနေ့ရာသီဥတုကြည့်ရန်"), ["ရာသီ", "သီဥ", "ဥတု"]);
    }

    #[test]
    fn mixed_with_latin() {
        assert_eq!(
            words("ค้นหา GitHub issue ของฉัน"),
            [
                "ค้น",
                "นห",
                "หา",
                "git",
                "hub",
                "issue",
                "ขอ",
                "อง",
                "งฉั",
                "ฉัน"
            ]
        );
        // No space between the scripts: each run is its own.
        assert_eq!(words("APIสภาพ"), ["api", "สภ", "ภา", "าพ"]);
        assert_eq!(words("สภาพAPI"), ["สภ", "ภา", "าพ", "api"]);
        assert_eq!(words("get_สภาพ_v2"), ["get", "สภ", "ภา", "าพ", "v2"]);
    }
}
