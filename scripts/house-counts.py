#!/usr/bin/env python3
"""Counts that say how easy the house is to live in, at a revision (default:
the working tree), each beside its goal. Production code is src/ less its
test files and `#[cfg(test)] mod` blocks; the library is src/ less src/cli/
and src/main.rs (the binary's own).

- functions over 80 lines, from the `fn` line to its closing brace;
- every spelling of `Result<_, String>` (any path to `Result`, nested
  generics, in signatures, fields and enum variants), and uses of a type
  alias to one, in the library and in the binary;
- per setting (`max_tools`, `initial_tool_count`, `max_loaded_tools`), the
  distinct types a field, parameter or `let` of that name is declared with
  (`Option<_>` and `&` peeled, a type named by its path counted as its
  name: `crate::tools_handle::MaxTools` is `MaxTools`), and how many clap
  flags declare `--max-tools`; a JSON `Value` is listed apart, not counted:
  it is a request's raw input to the one parser (`MaxTools::from_json`);
- per screen, the files outside `src/tui/screen/<name>/` that name it (its
  module path, a type only its folder defines, its actions' `Context` or
  `Action::<Context>…` or their keys in assets/config.toml; inside another
  screen's folder, `<name>::` is that folder's own submodule when it has
  one): the registry alone is 1;
- test helpers under tests/ defined in more than one file, by name and by
  body (the same code, whatever its name, in more than one place).

    scripts/house-counts.py [REV] [-v]      (-v lists what is counted)
"""
import collections
import re
import subprocess
import sys

args = [a for a in sys.argv[1:] if a != "-v"]
verbose = "-v" in sys.argv
rev = args[0] if args else None
LONG_FUNCTION = 80


def files(under):
    cmd = ["git", "ls-tree", "-r", "--name-only", rev, under] if rev else ["git", "ls-files", under]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [f for f in out.split() if f.endswith(".rs")]


def text(path):
    if rev:
        return subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True).stdout
    with open(path) as f:
        return f.read()


CHAR = re.compile(r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'")
RAW = re.compile(r'b?r(#*)"')


def code(source):
    """`source` with comments and the insides of string and char literals
    blanked (newlines kept), so that braces and types are the code's own."""
    out, i, n = [], 0, len(source)
    blank = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        c, two = source[i], source[i:i + 2]
        raw = RAW.match(source, i) if c in "br" and (i == 0 or not source[i - 1].isalnum()) else None
        if two == "//":
            j = source.find("\n", i)
            j = n if j < 0 else j
        elif two == "/*":
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif raw:
            j = source.find('"' + raw.group(1), raw.end())
            j = n if j < 0 else j + 1 + len(raw.group(1))
            out.append(source[i:raw.end()] + blank(source[raw.end():j - 1 - len(raw.group(1))]) + source[j - 1 - len(raw.group(1)):j])
            i = j
            continue
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            out.append('"' + blank(source[i + 1:j]) + '"')
            i = j + 1
            continue
        elif c == "'" and CHAR.match(source, i):
            j = CHAR.match(source, i).end()
            out.append("'" + " " * (j - i - 2) + "'")
            i = j
            continue
        else:
            out.append(c)
            i += 1
            continue
        out.append(blank(source[i:j]))
        i = j
    return "".join(out)


def closing(src, open_at, pairs="{}"):
    """Index of the bracket that closes the one at `open_at` (`src` is code)."""
    depth = 0
    for i in range(open_at, len(src)):
        if src[i] == pairs[0]:
            depth += 1
        elif src[i] == pairs[1] and src[i - 1] != "-":  # `->` closes nothing
            depth -= 1
            if depth == 0:
                return i
    return len(src)


def production():
    """(path, code) of every production file, `#[cfg(test)] mod` blocks blanked."""
    for f in files("src"):
        if re.search(r"(^|/)tests?(_[a-z_0-9]+)?\.rs$", f) or "/tests/" in f:
            continue
        src = code(text(f))
        for m in reversed(list(re.finditer(r"#\[cfg\(test\)\]\s*mod \w+\s*\{", src))):
            end = closing(src, m.end() - 1)
            src = src[:m.start()] + re.sub(r"[^\n]", " ", src[m.start():end + 1]) + src[end + 1:]
        yield f, src


def line_of(src, at):
    return src.count("\n", 0, at) + 1


def report(label, found, goal, listed=None):
    print(f"{label}: {len(found) if isinstance(found, list) else found} (goal {goal})")
    if verbose:
        for item in listed if listed is not None else found:
            print("  " + item)


FN = re.compile(r"^[ \t]*(?:pub(?:\([a-z:]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)", re.M)
SOURCES = list(production())
longest = []
for f, src in SOURCES:
    for m in FN.finditer(src):
        open_at, semi = src.find("{", m.end()), src.find(";", m.end())
        if open_at < 0 or 0 <= semi < open_at:
            continue
        lines = line_of(src, closing(src, open_at)) - line_of(src, m.start()) + 1
        if lines > LONG_FUNCTION:
            longest.append((lines, f"{lines} {f}: {m.group(1)}"))
longest.sort(reverse=True)
report(f"production functions over {LONG_FUNCTION} lines", [s for _, s in longest], 0)

STRING_ERR = re.compile(r"^(?:(?:std|alloc)::string::)?String$")


def string_results(src):
    """(offset, spelling) of each `Result<..., String>` in `src` (code)."""
    for m in re.finditer(r"\bResult\s*<", src):
        end = closing(src, m.end() - 1, "<>")
        inner, depth, last = src[m.end():end], 0, 0
        for i, c in enumerate(inner):  # the last argument at depth 0
            depth += (c in "<([") - (c in ")]" or (c == ">" and inner[i - 1] != "-"))
            if c == "," and depth == 0:
                last = i + 1
        if last and STRING_ERR.match(inner[last:].strip()):
            yield m.start(), " ".join(src[m.start():end + 1].split())


library, binary = [], []
aliases = set()
for f, src in SOURCES:
    for m in re.finditer(r"\btype\s+(\w+)\s*(?:<[^=]*>)?\s*=\s*([^;]+);", src):
        if any(string_results(m.group(2))):
            aliases.add(m.group(1))
for f, src in SOURCES:
    mine = binary if f.startswith("src/cli/") or f == "src/main.rs" else library
    found = list(string_results(src))
    if aliases:
        uses = re.finditer(r"(?<!type )\b(" + "|".join(aliases) + r")\b\s*<", src)
        found += [(m.start(), m.group(1) + "<...> (an alias)") for m in uses]
    mine += [f"{f}:{line_of(src, at)}: {spelling}" for at, spelling in sorted(found)]
report("Result<_, String> in the library", library, 0)
report("Result<_, String> in the binary (src/cli/, src/main.rs)", binary, "mapped in one place")

PRIMITIVE = re.compile(r"^(?:[ui](?:8|16|32|64|128|size)|f32|f64|bool|str|char)$")


def declared_type(src, at):
    """The type written at `at` (after `name:`), or None for a value."""
    m = re.match(r"\s*(&\s*(?:'\w+\s+)?(?:mut\s+)?)?((?:::)?\w+(?:::\w+)*)", src[at:])
    if not m:
        return None
    end = at + m.end()
    if src[end:end + 1] == "<":
        end = closing(src, end, "<>") + 1
    rest = src[end:].lstrip()[:1]
    name = m.group(2).split("::")[-1]
    if rest not in (",", ")", "=", ";", "}", "|", "") or name in ("None", "Some", "true", "false"):
        return None
    if not (PRIMITIVE.match(name) or name[0].isupper()) or re.fullmatch(r"[A-Z0-9_]{2,}", name):
        return None
    typ = " ".join(src[at:end].split()).lstrip("& ").removeprefix("mut ")
    while re.fullmatch(r"(?:std::option::)?Option<(.*)>", typ):
        typ = re.fullmatch(r"(?:std::option::)?Option<(.*)>", typ).group(1).strip()
    return re.sub(r"^(?:\w+::)+", "", typ)


for setting in ("max_tools", "initial_tool_count", "max_loaded_tools"):
    types = collections.defaultdict(set)
    for f, src in SOURCES:
        for m in re.finditer(rf"\b{setting}\s*:(?!:)", src):
            typ = declared_type(src, m.end())
            if typ:
                types[typ].add(f)
    # A request's raw JSON is what the one parser reads, not a type the
    # setting is held in.
    raw = types.pop("Value", set())
    report(f"types `{setting}` is declared with", len(types), 1,
           [f"{t}: {len(fs)} files" for t, fs in sorted(types.items())]
           + [f"(not counted) Value, the raw JSON MaxTools::from_json parses: {len(raw)} files"] * bool(raw))
flags = []
for f in files("src"):
    for m in re.finditer(r"#\[(?:arg|clap)\((.*?)\)\]\s*((?:#\[.*?\]\s*|///[^\n]*\n\s*)*)(?:pub(?:\([a-z]+\))?\s+)?(\w+)\s*:", text(f), re.S):
        named = re.search(r'long\s*=\s*"([\w-]+)"', m.group(1))
        if re.search(r"\blong\b", m.group(1)) and (named.group(1) if named else m.group(3).replace("_", "-")) == "max-tools":
            flags.append(f"{f}:{line_of(text(f), m.start())}")
report("clap declarations of --max-tools", flags, 1)

SCREENS = "src/tui/screen/"
names = sorted(f.split("/")[3] for f in files(SCREENS) if re.fullmatch(r"src/tui/screen/\w+/mod\.rs", f))
defined = collections.defaultdict(set)
for f, src in SOURCES:
    for m in re.finditer(r"\b(?:struct|enum|trait|type)\s+([A-Z]\w*)", src):
        defined[m.group(1)].add(f[len(SCREENS):].split("/")[0] if f.startswith(SCREENS) and f.count("/") > 3 else f)
ALL_SCREEN_FILES = set(files(SCREENS))


def own_module(f, name):
    """Whether `f`, in another screen's folder, has a submodule `name` of
    its own there (the breaker's `live`): `name::` names that, not the
    screen."""
    folder = f[len(SCREENS):].split("/")[0] if f.count("/") > 3 else None
    return folder is not None and bool({f"{SCREENS}{folder}/{name}.rs", f"{SCREENS}{folder}/{name}/mod.rs"} & ALL_SCREEN_FILES)


for screen in names:
    # Its types: defined in its folder alone, and no enum variant outside it has the name.
    variants = {m.group(1) for f, src in SOURCES if not f.startswith(f"{SCREENS}{screen}/")
                for m in re.finditer(r"^[ \t]*([A-Z]\w*)\s*(?:[{(,]|$)", src, re.M)}
    own = [t for t, where in defined.items() if where == {screen} and t not in variants]
    # Its path from anywhere, a path relative to src/tui/screen/, a type of its own.
    anywhere = re.compile(rf"\bscreen::{screen}\b" + "".join(rf"|\b{t}\b" for t in own))
    near = re.compile(rf"(?<![:\w]){screen}::|\bmod {screen}\b")
    # Its actions: their contexts (`Context::Tune`), their names in code
    # (`Action::TuneApply`) and their default keys in the embedded config
    # (`tune_apply = [...]`); declared in its actions.rs, else the table's
    # spelling of old (its name capitalized, its name as the prefix).
    declared = "".join(text(f) for f in files(f"{SCREENS}{screen}/") if f.endswith("actions.rs"))
    contexts = re.findall(r"screen_actions!\s*\{\s*(\w+),\s*\"(\w+)\"", declared) or [(screen.capitalize(), f"{screen}_")]
    acting = re.compile("|".join(rf"\b(?:Context::{c}\b|Action::{c}[A-Z]\w*)" for c, _ in contexts))
    keyed = re.compile("|".join(rf"^{p}\w+\s*=" for _, p in contexts), re.M)
    touching = sorted(f for f, src in SOURCES if not f.startswith(f"{SCREENS}{screen}/") and f != f"{SCREENS}mod.rs" and (
        anywhere.search(src) or acting.search(src) or (f.startswith(SCREENS) and not own_module(f, screen) and near.search(src))))
    touching += ["assets/config.toml"] * bool(keyed.search(text("assets/config.toml")))
    touching += [f"{SCREENS}mod.rs"]
    report(f"files outside src/tui/screen/{screen}/ that name it", touching, 1)

HELPER = re.compile(r"^\s*(?:pub(?:\(crate\))?\s+)?fn\s+(\w+)\s*[(<]", re.M)
defined_in = collections.defaultdict(set)
same = collections.defaultdict(list)
for f in files("tests"):
    src = text(f)
    blanked = code(src)
    for m in HELPER.finditer(src):
        if m.group(1) in ("drop", "new", "main"):
            continue
        defined_in[m.group(1)].add(f)
        open_at, semi = src.find("{", m.end()), src.find(";", m.end())
        if open_at >= 0 and not 0 <= semi < open_at:
            body = " ".join(src[open_at:closing(blanked, open_at) + 1].split())
            if len(body) > 40:
                same[body].append(f"{f}: {m.group(1)}")
twice = {n: fs for n, fs in defined_in.items() if len(fs) > 1}
copies = [at for at in same.values() if len(at) > 1]
report("test helpers defined in more than one file (names)", len(twice), 0,
       [f"{n}: {', '.join(sorted(fs))}" for n, fs in sorted(twice.items(), key=lambda kv: -len(kv[1]))])
report("test helper bodies written out more than once", len(copies), 0, [", ".join(at) for at in copies])
