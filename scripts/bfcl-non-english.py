#!/usr/bin/env python3
"""The bfcl-dev requests written wholly or partly in a script other than
Latin (Chinese, Korean, Thai, Hindi, ...): a JSONL subset for `toolsift eval`.

    scripts/bfcl-non-english.py eval/bfcl-dev/queries-dev.jsonl > /tmp/non-english.jsonl
"""
import json
import sys


def foreign(text):
    # A letter beyond Latin Extended-B: CJK, Hangul, Thai, Devanagari, ...
    return any(c.isalpha() and ord(c) > 0x24F for c in text)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "eval/bfcl-dev/queries-dev.jsonl"
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and foreign(json.loads(line)["query"]):
                sys.stdout.write(line)


if __name__ == "__main__":
    main()
