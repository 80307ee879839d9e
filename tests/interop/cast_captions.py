"""Plays an asciicast through the real asciinema player and reads the
captions off the replayed screen.

    python3 cast_captions.py FILE

`asciinema cat FILE` replays the recording's output stream (it needs a
terminal of its own: it gets a pseudo-terminal here, its output a pipe);
the stream is checked against the file's events, then fed frame by frame
(a frame ends where the explorer hides or shows the cursor) to a pyte
screen of the recording's size. Prints a JSON object: the header, how
many frames, and each caption seen in the caption box, in order.
"""

import json
import os
import pty
import re
import sys

import pyte

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    header = json.loads(f.readline())
    events = [json.loads(line) for line in f if line.strip()]

read, write = os.pipe()
pid, master = pty.fork()
if pid == 0:
    os.dup2(write, 1)
    os.execvp("asciinema", ["asciinema", "cat", path])
os.close(write)
chunks = []
while True:
    data = os.read(read, 65536)
    if not data:
        break
    chunks.append(data)
_, status = os.waitpid(pid, 0)
try:
    while os.read(master, 65536):
        pass
except OSError:
    pass
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(f"asciinema cat {path} failed ({status})")
replayed = b"".join(chunks).decode("utf-8")
expected = "".join(e[2] for e in events)
if replayed != expected:
    sys.exit(f"asciinema cat replayed {len(replayed)} characters, the file holds {len(expected)}")

screen = pyte.Screen(header["width"], header["height"])
stream = pyte.Stream(screen)
captions = []
frames = 0


def caption(lines):
    """The caption box's text: the rows between its ╔ and ╚ borders."""
    inside, text = False, []
    for line in lines:
        if line.lstrip().startswith("╔"):
            inside, text = True, []
        elif line.lstrip().startswith("╚") and inside:
            return " ".join(text)
        elif inside:
            m = re.match(r"^\s*║(.*)║\s*$", line)
            if m is None:
                return None
            text.append(m.group(1).strip())
    return None


for frame in re.split(r"(?<=\x1b\[\?25[lh])", replayed):
    if not frame:
        continue
    stream.feed(frame)
    frames += 1
    seen = caption(screen.display)
    if seen and (not captions or captions[-1] != seen):
        captions.append(seen)

print(json.dumps({"header": header, "frames": frames, "captions": captions}))
