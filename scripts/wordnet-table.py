#!/usr/bin/env python3
"""Writes assets/vocabulary/wordnet.tsv, the general synonym table of
toolsift's query expansion, from WordNet 3.0 as Debian's wordnet-base
package installs it (/usr/share/wordnet).

For every single-word noun, verb and adjective: the other single words of
its most frequent senses (the senses WordNet's tagged corpus saw, at most
two; a word the corpus never saw is left out), one line each:

    word<TAB>synonym synonym ...

A synonym is kept only where the sense the two words share is a usual
sense of each: at least a tenth of each word's uses in the tagged corpus
(cntlist.rev; its uses as an adverb counted too). An ambiguous word's
rare sense says nothing of what a request means by it: "kick" is rarely
the thrill that makes it a synonym of "charge", "back" is mostly the
adverb of "give it back", not the verb "support", and "times" is rarely
"multiplication". A synonym the corpus never saw is kept when it has that
one sense alone.

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
# The least share of a word's tagged uses that a shared sense needs.
MIN_SHARE = 0.1
# cntlist.rev's synset types: noun, verb, adjective, adverb, satellite.
SS_TYPE = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}


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


def offsets(pos):
    """lemma -> its synset offsets in sense order (adverbs too)."""
    out = {}
    with open(f"{DIR}/index.{pos}", encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            p_cnt = int(parts[3])
            out[parts[0]] = parts[4 + p_cnt + 2 :]
    return out


def uses():
    """(lemma -> tagged uses in all), ((lemma, pos, offset) -> its uses),
    (lemma -> how many senses it has in all)."""
    by_pos = {p: offsets(name) for name, p in {**POS, "adv": "r"}.items()}
    senses_in_all = {}
    for index in by_pos.values():
        for lemma, offs in index.items():
            senses_in_all[lemma] = senses_in_all.get(lemma, 0) + len(offs)
    total, per_sense = {}, {}
    with open(f"{DIR}/cntlist.rev", encoding="latin-1") as f:
        for line in f:
            key, number, count = line.split()
            lemma, rest = key.split("%", 1)
            pos = SS_TYPE[rest[0]]
            offs = by_pos[pos].get(lemma, [])
            number, count = int(number), int(count)
            total[lemma] = total.get(lemma, 0) + count
            if 0 < number <= len(offs):
                k = (lemma, pos, offs[number - 1])
                per_sense[k] = per_sense.get(k, 0) + count
    return total, per_sense, senses_in_all


def usual(lemma, pos, offset, total, per_sense, senses_in_all):
    """Whether the sense at `offset` is a usual sense of `lemma`."""
    n = total.get(lemma, 0)
    if n == 0:
        return senses_in_all.get(lemma, 0) == 1
    return per_sense.get((lemma, pos, offset), 0) >= MIN_SHARE * n


def near_form(a, b):
    """b is a's inflection or plural (or the reverse)."""
    short, long_ = sorted((a, b), key=len)
    return long_.startswith(short[: max(3, len(short) - 1)]) and len(long_) - len(short) <= 3


def main():
    table = defaultdict(list)
    counts = uses()
    for name, pos in POS.items():
        sets = synsets(name)
        for lemma, offs in senses(name).items():
            for off in offs:
                if not usual(lemma, pos, off, *counts):
                    continue
                for w in sets.get(off, []):
                    if (
                        w != lemma
                        and not near_form(lemma, w)
                        and w not in table[lemma]
                        and usual(w, pos, off, *counts)
                    ):
                        table[lemma].append(w)
    for lemma in sorted(table):
        syns = table[lemma][:MAX_SYNONYMS]
        if syns:
            print(f"{lemma}\t{' '.join(syns)}")


if __name__ == "__main__":
    main()
