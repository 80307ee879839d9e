"""bench-wait-replicas.py BINARY MODE [SECONDS] [CLIENTS]: requests/s of
`toolsift serve --sessions redis://... --sessions-wait-replicas 1` against a
redis-server primary it starts, new sessions of a 30-tool catalog from
CLIENTS threads (default 4) for SECONDS (default 5). MODE: none (the primary
has no replica), replica (one replica online), off (no --sessions-wait-replicas).
Prints one JSON line with the requests/s and the session metrics."""
import http.client, json, os, re, subprocess, sys, threading, time, socket, tempfile, shutil
B, MODE = sys.argv[1], sys.argv[2]
SECS = float(sys.argv[3]) if len(sys.argv) > 3 else 5
CLIENTS = int(sys.argv[4]) if len(sys.argv) > 4 else 4
def port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
d = tempfile.mkdtemp()
procs = []
p1 = port()
procs.append(subprocess.Popen(["redis-server", "--port", str(p1), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", d], stdout=subprocess.DEVNULL))
if MODE == "replica":
    p2 = port()
    os.makedirs(d + "/r", exist_ok=True)
    procs.append(subprocess.Popen(["redis-server", "--port", str(p2), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", d + "/r", "--replicaof", "127.0.0.1", str(p1)], stdout=subprocess.DEVNULL))
time.sleep(1.0)
if MODE == "replica":
    for _ in range(100):
        out = subprocess.run(["redis-cli", "-p", str(p1), "info", "replication"], capture_output=True, text=True).stdout
        if "connected_slaves:1" in out and "state=online" in out: break
        time.sleep(0.1)
args = [B, "serve", "--addr", "127.0.0.1:0", "--sessions", f"redis://127.0.0.1:{p1}/0"]
if MODE != "off": args += ["--sessions-wait-replicas", "1"]
srv = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
addr = None
log = []
for line in srv.stdout:
    log.append(line)
    m = re.search(r"listening on (?:http://)?([0-9.]+):(\d+)", line)
    if m: addr = (m.group(1), int(m.group(2))); break
threading.Thread(target=lambda: [log.append(l) for l in srv.stderr], daemon=True).start()
tools = [{"name": f"tool_{i}", "description": f"does thing number {i} with weather and files", "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}} for i in range(30)]
counts = [0] * CLIENTS; errs = [0] * CLIENTS
stop = time.time() + SECS
def run(k):
    c = http.client.HTTPConnection(*addr)
    while time.time() < stop:
        body = json.dumps({"tools": tools, "query": "weather files"})
        c.request("POST", "/sdk/v1/tool-search", body, {"content-type": "application/json"})
        r = c.getresponse(); r.read()
        if r.status == 200: counts[k] += 1
        else: errs[k] += 1
ts = [threading.Thread(target=run, args=(k,)) for k in range(CLIENTS)]
t0 = time.time()
[t.start() for t in ts]; [t.join() for t in ts]
el = time.time() - t0
c = http.client.HTTPConnection(*addr); c.request("GET", "/metrics"); m = c.getresponse().read().decode()
met = {l.split()[0]: l.split()[1] for l in m.splitlines() if l.startswith("toolsift_session") or l.startswith("toolsift_replica")}
print(json.dumps({"mode": MODE, "clients": CLIENTS, "seconds": round(el, 1), "ok": sum(counts), "errors": sum(errs), "req_per_s": round(sum(counts) / el, 1), "metrics": met}))
srv.terminate(); srv.wait()
for p in procs: p.terminate(); p.wait()
shutil.rmtree(d, ignore_errors=True)
sys.stderr.write("".join(l for l in log if "replica" in l))
