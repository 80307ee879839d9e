#!/usr/bin/env python3
"""Writes assets/vocabulary/wordnet.tsv, the general synonym table of
toolsift's query expansion, from WordNet 3.0 as Debian's wordnet-base
package installs it (/usr/share/wordnet).

For every single-word noun, verb and adjective: the other single words of
its most frequent senses (the senses WordNet's tagged corpus saw, at most
two; a word the corpus never saw is left out), one line each:

    word<TAB>synonym synonym ...

Words and synonyms are lower case ASCII letters, three or more, and a
synonym that is only the word's plural or inflection is left out (the
stemmer already finds those). The table is what the engine reads at run
time; this script only makes it again.

    apt-get install wordnet-base
    scripts/wordnet-table.py [WORDNET_DIR] > assets/vocabulary/wordnet.tsv
"""
import re
import sys
from collections import defaultdict

DIR = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet"
WORD = re.compile(r"^[a-z]{3,}$")
POS = {"noun": "n", "verb": "v", "adj": "a"}
MAX_SENSES = 2
MAX_SYNONYMS = 6


def synsets(pos):
    """offset -> single-word lemmas, in order."""
    out = {}
    with open(f"{DIR}/data.{pos}", encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split(" ")
            offset = parts[0]
            count = int(parts[3], 16)
            words = []
            for i in range(count):
                w = parts[4 + 2 * i].lower()
                w = re.sub(r"\(.*\)$", "", w)  # adjective markers: (a), (p)
                if WORD.match(w) and w not in words:
                    words.append(w)
            out[offset] = words
    return out


def senses(pos):
    """lemma -> its most frequent synset offsets."""
    out = {}
    with open(f"{DIR}/index.{pos}", encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            lemma = parts[0]
            if not WORD.match(lemma):
                continue
            p_cnt = int(parts[3])
            rest = parts[4 + p_cnt :]
            tagged = int(rest[1])
            if tagged == 0:
                continue  # a sense no tagged text used: a rare word
            out[lemma] = rest[2:][: min(tagged, MAX_SENSES)]
    return out


def near_form(a, b):
    """b is a's inflection or plural (or the reverse)."""
    short, long_ = sorted((a, b), key=len)
    return long_.startswith(short[: max(3, len(short) - 1)]) and len(long_) - len(short) <= 3


def main():
    table = defaultdict(list)
    for pos in POS:
        sets = synsets(pos)
        for lemma, offsets in senses(pos).items():
            for off in offsets:
                for w in sets.get(off, []):
                    if w != lemma and not near_form(lemma, w) and w not in table[lemma]:
                        table[lemma].append(w)
    for lemma in sorted(table):
        syns = table[lemma][:MAX_SYNONYMS]
        if syns:
            print(f"{lemma}\t{' '.join(syns)}")


if __name__ == "__main__":
    main()
