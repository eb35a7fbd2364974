#!/usr/bin/env python3
"""The index as a live store: one-document adds to indexes of 1k / 10k / 100k documents through
`swe serve` (POST /index/add, the file written before the answer) and `swe index add` (wall and peak
RSS), the bytes each add writes, /search latency on the 100k index idle, under 10 adds/s and during one
add of 2,000 documents, and the server's RSS over 1,000 one-document adds to the 10k index (the target:
within 1.5x of its RSS once loaded). Exits 1 when that RSS bound is missed.
usage: bench/index_store_bench.py [SIZES...]   (default 1000 10000 100000; needs build/native/bin/swe)
127.0.0.1, a port in 18000-18999; everything it writes is in a temporary folder it removes."""
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWE = os.path.join(ROOT, "build/native/bin/swe")
MODEL = os.path.join(ROOT, "models/swe-en-use-lite-large-para.swe")
WORDS = ("cat dog market weather river bank storm price city night music game team school road "
         "garden doctor train coffee paper window summer winter story phone light water").split()


def text(rng):
    return " ".join(rng.choice(WORDS) for _ in range(12))


def write_docs(path, prefix, n, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"{prefix}{i}", "text": text(rng)}) + "\n")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Server:
    def __init__(self, index, work):
        for _ in range(10):
            self.port = random.randint(18000, 18999)
            log = open(os.path.join(work, "serve.log"), "w+")
            self.process = subprocess.Popen([SWE, "serve", MODEL, "--port", str(self.port), "--index", index,
                                             "--threads", "2"], stderr=log)
            for _ in range(600):
                log.seek(0)
                if "listening on" in log.read():
                    return
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
            self.process.kill()
            self.process.wait()
        raise SystemExit("swe serve did not start")

    def post(self, route, body):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        start = time.perf_counter()
        conn.request("POST", route, json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - start
        conn.close()
        if response.status != 200:
            raise SystemExit(f"{route}: {response.status} {data[:200]!r}")
        return elapsed

    def stop(self):
        self.process.terminate()
        self.process.wait()


def one_doc_adds(server, index, count, rng, prefix):
    before = os.path.getsize(index)
    times = [server.post("/index/add", {"documents": [{"id": f"{prefix}{i}", "text": text(rng)}]})
             for i in range(count)]
    return times, (os.path.getsize(index) - before) / count


def cli_add(index, work, i, rng):
    one = os.path.join(work, "one.jsonl")
    with open(one, "w") as f:
        f.write(json.dumps({"id": f"cli{i}", "text": text(rng)}) + "\n")
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", SWE, "index", "add", MODEL, index, "--docs", one],
                         capture_output=True, text=True, check=True)
    wall, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss)


def searches(server, count, rng):
    return [server.post("/search", {"query": text(rng), "k": 10}) for _ in range(count)]


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [1000, 10000, 100000]
    rng = random.Random(1)
    work = tempfile.mkdtemp(prefix="swe-store-bench-")
    failed = False
    try:
        print(f"{'documents':>9} {'file MB':>8} {'serve add p50 / p99 ms':>23} {'bytes/add':>9} "
              f"{'server RSS MB':>13} {'CLI add s':>9} {'CLI RSS MB':>10}")
        for n in sizes:
            docs = os.path.join(work, f"docs{n}.jsonl")
            index = os.path.join(work, f"index{n}.swi")
            write_docs(docs, "d", n, n)
            subprocess.run([SWE, "index", "build", MODEL, "--docs", docs, "-o", index], check=True,
                           capture_output=True)
            size_mb = os.path.getsize(index) / 1e6
            server = Server(index, work)
            server.post("/index/add", {"documents": [{"id": "warm", "text": "warm up"}]})
            times, per_add = one_doc_adds(server, index, 50, rng, "s")
            rss = rss_kb(server.process.pid) / 1024
            if n == max(sizes):
                idle = searches(server, 200, rng)
                stop = threading.Event()

                def adds_per_second(rate=10):
                    i = 0
                    while not stop.is_set():
                        server.post("/index/add", {"documents": [{"id": f"bg{i}", "text": text(random.Random(i))}]})
                        i += 1
                        stop.wait(1 / rate)
                writer = threading.Thread(target=adds_per_second)
                writer.start()
                busy = searches(server, 200, rng)
                stop.set()
                writer.join()
                big = [{"id": f"big{i}", "text": text(rng)} for i in range(2000)]  # --max-inputs 2048
                add_seconds = []
                big_writer = threading.Thread(target=lambda: add_seconds.append(server.post("/index/add", {"documents": big})))
                big_writer.start()
                during = []
                while big_writer.is_alive():
                    during.append(server.post("/search", {"query": text(rng), "k": 10}))
                big_writer.join()
                if not add_seconds:
                    raise SystemExit("the add of 2,000 documents failed")
            server.stop()
            cli = [cli_add(index, work, i, rng) for i in range(5)]
            print(f"{n:>9} {size_mb:>8.2f} {1e3 * statistics.median(times):>10.1f} / {1e3 * pct(times, 99):>9.1f} "
                  f"{per_add:>9.0f} {rss:>13.0f} {statistics.median(c[0] for c in cli):>9.2f} "
                  f"{max(c[1] for c in cli) / 1024:>10.0f}")
        n = max(sizes)
        print(f"\n/search on the {n:,}-document index, k=10 (ms): p50 / p99")
        print(f"  idle                       {1e3 * pct(idle, 50):7.2f} / {1e3 * pct(idle, 99):7.2f}")
        print(f"  while 10 adds/s run        {1e3 * pct(busy, 50):7.2f} / {1e3 * pct(busy, 99):7.2f}"
              f"   (p99 ratio {pct(busy, 99) / pct(idle, 99):.2f})")
        print(f"  during one add of 2,000    {1e3 * pct(during, 50):7.2f} / {1e3 * max(during):7.2f} (max)"
              f"   ({len(during)} searches during the {add_seconds[0]:.2f} s add)")

        # Bounded memory: 1,000 one-document adds to the 10k index (or the largest size below it).
        n = max([s for s in sizes if s <= 10000] or [min(sizes)])
        index = os.path.join(work, f"index{n}.swi")
        server = Server(index, work)
        server.post("/search", {"query": "warm up", "k": 1})
        loaded = rss_kb(server.process.pid) / 1024
        _, per_add = one_doc_adds(server, index, 1000, rng, "m")
        after = rss_kb(server.process.pid) / 1024
        server.stop()
        ok = after <= 1.5 * loaded
        failed = not ok
        print(f"\nserver RSS over 1,000 one-document adds to the {n:,}-document index: {loaded:.0f} MB loaded, "
              f"{after:.0f} MB after ({after / loaded:.2f}x; target <= 1.5x: {'met' if ok else 'NOT met'}); "
              f"{per_add:.0f} bytes written per add")
        print(f"{os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d', time.gmtime())}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
