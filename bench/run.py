#!/usr/bin/env python3
"""Benchmarks of cargo-golden against its physical floors; prints a table.

Run from the repository root:  python3 bench/run.py   (about 3-5 minutes, and
10-20 more for the `build` rows: cold builds of fresh crates)
Some rows only:  python3 bench/run.py data odibi   (names: see GROUPS)
Another binary:  BENCH_BIN=path/to/cargo-golden python3 bench/run.py overhead

Each figure is a median over alternating runs, so a noisy neighbour on a
shared machine hits both sides of a ratio alike. Nothing here asserts: the
targets are printed next to the figures.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# BENCH_BIN measures another build (an older one, for a before-and-after).
BIN = os.environ.get("BENCH_BIN") or os.path.join(ROOT, "target", "release", "cargo-golden")
GIB = 1 << 30
LOG_LINE = "2026-11-21T23:00:00Z INFO pipeline step=transform rows=1024 status=ok"


def run(cmd, **kw):
    """Run cmd; return (wall seconds, peak RSS in MiB of the process tree, exit code)."""
    return run_with_cpu(cmd, **kw)[:3]


def run_with_cpu(cmd, **kw):
    """run(cmd), and the CPU seconds (user + sys) of its process tree last."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    rss_kib = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024
    return wall, rss_kib / 1024, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def harness(dir, body):
    path = os.path.join(dir, "harness.toml")
    with open(path, "w") as f:
        f.write(body)
    return path


def trivial_cases(n, prefix="c"):
    """A harness file's text: n verify cases named prefix0.. that run `true`."""
    return "".join(f'[[verify]]\nname = "{prefix}{i}"\ncommand = "true"\n' for i in range(n))


def golden(dir, *args):
    cfg = os.path.join(dir, "harness.toml")
    out = os.path.join(dir, "out")
    shutil.rmtree(out, ignore_errors=True)
    return [BIN, "golden", *args, "--config", cfg, "--out", out]


def median_pair(a, b, n):
    """Alternate a and b n times each; medians of wall times."""
    ta, tb = [], []
    for _ in range(n):
        ta.append(a())
        tb.append(b())
    return statistics.median(ta), statistics.median(tb)


def bench_capture(tmp):
    cmd = f"yes '{LOG_LINE}' | head -c {GIB}"
    harness(tmp, f'[harness]\ntruncate = 10000\n[[verify]]\nname = "1 GiB"\ncommand = "{cmd}"\n')
    log = os.path.join(tmp, "floor.log")
    # The same work with plain tools: keep the output in a file and hash it.
    floor_cmd = f"{cmd} > {log} && sha256sum {log} > /dev/null"
    ours, rss, base, floor = [], [], [], []
    for _ in range(3):
        w, r, code = run(golden(tmp))
        assert code == 0, f"capture case failed ({code})"
        ours.append(w)
        rss.append(r)
        shutil.rmtree(os.path.join(tmp, "out"), ignore_errors=True)
        base.append(run(["sh", "-c", f"{cmd} > /dev/null"])[0])
        floor.append(run(["sh", "-c", floor_cmd])[0])
        os.remove(log)
    w, b, f = statistics.median(ours), statistics.median(base), statistics.median(floor)
    return [
        ("capture 1 GiB: peak RSS", f"{max(rss):.1f} MiB", "<= 32 MiB", max(rss) <= 32),
        ("capture 1 GiB: wall vs > /dev/null", f"{w:.2f} s vs {b:.2f} s = {w / b:.2f}x", "<= 1.5x", w / b <= 1.5),
        ("capture 1 GiB: wall vs > file + sha256sum (same work)", f"{w:.2f} s vs {f:.2f} s = {w / f:.2f}x", "(reference)", True),
        ("capture+hash+classify throughput", f"{GIB / w / 1e6:.0f} MB/s", ">= 500 MB/s", GIB / w / 1e6 >= 500),
    ]


def bench_masking(tmp):
    """1 GiB of output with 20 secret values in the environment (one value
    every 4 KiB of output), against the same run whose variables are not
    secret (nothing to mask)."""
    values = [f"s3cr3t-{i:02}-{'k' * (8 + i)}" for i in range(20)]
    block = os.path.join(tmp, "block.txt")
    with open(block, "w") as f:
        written = 0
        i = 0
        while written < (1 << 20):
            line = f"{LOG_LINE} token={values[i % 20]}\n" if i % 60 == 0 else LOG_LINE + "\n"
            f.write(line)
            written += len(line)
            i += 1
    cmd = f"i=0; while [ $i -lt 1024 ]; do cat {block}; i=$((i+1)); done"

    def config(prefix):
        env = ", ".join(f'{prefix}_{i:02} = "{v}"' for i, v in enumerate(values))
        return f'[[verify]]\nname = "1 GiB"\ncommand = "{cmd}"\nenv = {{ {env} }}\n'

    walls = {"masked": [], "plain": []}
    rss = {"masked": [], "plain": []}
    for _ in range(3):
        for kind, prefix in (("masked", "BENCH_TOKEN"), ("plain", "BENCH_VALUE")):
            harness(tmp, config(prefix))
            w, r, code = run(golden(tmp))
            assert code == 0, f"masking case failed ({code})"
            if kind == "masked":
                log = next(
                    os.path.join(d, "stdout.log")
                    for d, _, files in os.walk(os.path.join(tmp, "out"))
                    if "stdout.log" in files
                )
                with open(log, "rb") as f:
                    assert b"[REDACTED:BENCH_TOKEN_" in f.read(1 << 20), "nothing was masked"
            walls[kind].append(w)
            rss[kind].append(r)
            shutil.rmtree(os.path.join(tmp, "out"), ignore_errors=True)
    m, p = statistics.median(walls["masked"]), statistics.median(walls["plain"])
    peak = max(rss["masked"])
    return [
        ("masking 1 GiB with 20 secrets: wall vs unmasked", f"{m:.2f} s vs {p:.2f} s = {m / p:.2f}x", "<= 1.10x", m / p <= 1.10),
        ("masking 1 GiB with 20 secrets: peak RSS", f"{peak:.1f} MiB (unmasked {max(rss['plain']):.1f} MiB)", "<= 32 MiB", peak <= 32),
    ]


def spawn_floor():
    """The `spawn_floor` bench's executable: a Rust loop that starts and
    waits for `sh -c true` as a case is started, and does nothing else."""
    out = subprocess.run(
        ["cargo", "bench", "--locked", "--bench", "spawn_floor", "--no-run", "--message-format", "json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "spawn_floor":
            return msg["executable"]
    raise RuntimeError("cargo bench built no spawn_floor executable")


def overhead_ratios(tmp, where, floor):
    """Medians over 5 alternating rounds of 500 trivial cases (cargo
    golden), a `sh -c true` loop, a loop keeping the same files as a case,
    and the Rust spawn floor; every file written under `where`."""
    n = 500
    harness(tmp, trivial_cases(n))
    out = os.path.join(where, "out")
    cmd = [BIN, "golden", "--config", os.path.join(tmp, "harness.toml"), "--out", out]
    loop = f"i=0; while [ $i -lt {n} ]; do sh -c true; i=$((i+1)); done"
    # The same loop keeping what a case keeps: a directory, the command,
    # both outputs and a small JSON record.
    ev = os.path.join(where, "ev")
    evidence_loop = (
        f"i=0; while [ $i -lt {n} ]; do d={ev}/$i; mkdir -p $d; printf true > $d/command.txt; "
        "sh -c true > $d/stdout.log 2> $d/stderr.log; echo '{\"exit_code\": 0}' > $d/evidence.json; i=$((i+1)); done"
    )
    kept = os.path.join(where, "kept")
    times = {"golden": [], "loop": [], "files": [], "floor": [], "floor_files": [], "golden_cpu": [], "floor_files_cpu": []}
    for _ in range(5):
        shutil.rmtree(out, ignore_errors=True)
        wall, _, _, cpu = run_with_cpu(cmd)
        times["golden"].append(wall)
        times["golden_cpu"].append(cpu)
        times["loop"].append(run(["sh", "-c", loop])[0])
        shutil.rmtree(ev, ignore_errors=True)
        times["files"].append(run(["sh", "-c", evidence_loop])[0])
        times["floor"].append(run([floor, str(n)])[0])
        shutil.rmtree(kept, ignore_errors=True)
        wall, _, _, cpu = run_with_cpu([floor, str(n), kept])
        times["floor_files"].append(wall)
        times["floor_files_cpu"].append(cpu)
    return {k: statistics.median(v) for k, v in times.items()}


def bench_overhead(tmp):
    floor = spawn_floor()
    t = overhead_ratios(tmp, tmp, floor)
    rows = [
        # A bare loop keeps no evidence: no harness that keeps a case's
        # files can reach it, so it is a reference, not a target.
        ("500 trivial cases vs sh -c true loop", f"{t['golden'] / t['loop']:.2f}x (medians of 5)", "(reference)", True),
        ("500 trivial cases vs a loop keeping the same files", f"{t['golden'] / t['files']:.2f}x", "(reference)", True),
        # What starting a process from Rust costs beside starting it from a
        # shell, then with the files a case keeps written the cheapest way:
        # the least any harness can reach, without and with the evidence.
        ("Rust spawn-and-wait loop (the floor) vs sh -c true loop", f"{t['floor'] / t['loop']:.2f}x", "(reference)", True),
        ("the floor keeping the same files vs sh -c true loop", f"{t['floor_files'] / t['loop']:.2f}x", "(reference)", True),
        ("500 trivial cases vs the floor keeping the same files", f"{t['golden'] / t['floor_files']:.2f}x", "(reference)", True),
    ]
    # The same with every file in memory: what the tool itself costs, apart
    # from the file system's cost of creating five files a case.
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        # The rows above left the disk writing back what they wrote: done
        # first, so that the kernel's flusher does not share the cores
        # with the runs measured here.
        os.sync()
        with tempfile.TemporaryDirectory(dir="/dev/shm") as mem:
            t = overhead_ratios(tmp, mem, floor)
        rows += [
            ("same, out dir in memory (tmpfs) vs sh -c true loop", f"{t['golden'] / t['loop']:.2f}x", "(reference)", True),
            ("same, out dir in memory vs a loop keeping the same files", f"{t['golden'] / t['files']:.2f}x", "(reference)", True),
            ("same, out dir in memory: the floor keeping the same files vs sh -c true loop", f"{t['floor_files'] / t['loop']:.2f}x", "(reference)", True),
            ("same, out dir in memory vs the floor keeping the same files", f"{t['golden'] / t['floor_files']:.2f}x", "<= 1.25x",
             t["golden"] / t["floor_files"] <= 1.25),
            # CPU time moves less with the machine's hour than wall time,
            # which also counts the waits for a core (see the notes).
            ("same, in CPU time (user + sys of the process tree)",
             f"{t['golden_cpu'] / t['floor_files_cpu']:.2f}x ({t['golden_cpu'] * 1000:.0f} ms against {t['floor_files_cpu'] * 1000:.0f} ms)",
             "(reference)", True),
        ]
    return rows


def bench_nextest(tmp):
    """Per-case cost beside cargo-nextest: each tool runs n trivial cases
    and one, one at a time; the difference over n-1 is what a case costs
    (fixed costs such as cargo's freshness check cancel out)."""
    if shutil.which("cargo-nextest") is None:
        return [("per-case cost beside cargo-nextest", "cargo-nextest not installed", "(reference)", True)]
    n = 500
    crate = os.path.join(tmp, "nx")
    os.makedirs(os.path.join(crate, "src"))
    with open(os.path.join(crate, "Cargo.toml"), "w") as f:
        f.write('[package]\nname = "nx"\nversion = "0.1.0"\nedition = "2021"\n[workspace]\n')
    with open(os.path.join(crate, "src", "lib.rs"), "w") as f:
        f.write("".join(f"#[test]\nfn t{i}() {{}}\n" for i in range(n)))
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(tmp, "nx-target"))
    nextest = ["cargo", "nextest", "run", "--manifest-path", os.path.join(crate, "Cargo.toml"),
               "--test-threads", "1", "--no-fail-fast"]
    subprocess.run(nextest, env=env, capture_output=True, check=True)
    harness(tmp, trivial_cases(n, "t"))
    one = ["--exact", "t0"]
    nx, gd = [], []
    for _ in range(5):
        nx.append(run(nextest, env=env)[0] - run(nextest + ["-E", "test(=t0)"], env=env)[0])
        gd.append(run(golden(tmp))[0] - run(golden(tmp, *one))[0])
    per_nx, per_gd = statistics.median(nx) / (n - 1), statistics.median(gd) / (n - 1)
    return [(
        f"per-case cost beside cargo-nextest ({n} trivial cases, one at a time)",
        f"cargo golden {per_gd * 1000:.2f} ms, cargo-nextest {per_nx * 1000:.2f} ms: {per_nx / per_gd:.1f}x less",
        "(reference)",
        True,
    )]


def bench_parallel(tmp):
    body = "".join(f'[[verify]]\nname = "s{i}"\ncommand = "sleep 0.5"\n' for i in range(8))
    harness(tmp, body)
    j1, j4 = median_pair(lambda: run(golden(tmp, "--jobs", "1"))[0], lambda: run(golden(tmp, "--jobs", "4"))[0], 3)
    s = j1 / j4
    return [("8 x sleep 0.5: --jobs 4 speed-up", f"{j1:.2f} s / {j4:.2f} s = {s:.2f}x", ">= 3.5x", s >= 3.5)]


def bench_list(tmp):
    n = 10_000
    body = "[harness]\nrunner = \"sh run.sh\"\n" + "".join(
        f'[[golden]]\nname = "project_{i}"\npath = "golden/p{i}"\n' if i % 2 else f'[[verify]]\nname = "check_{i}"\ncommand = "true"\n'
        for i in range(n)
    )
    harness(tmp, body)
    times = [run(golden(tmp, "list"))[0] for _ in range(5)]
    t = statistics.median(times)
    return [("list on a 10,000-case harness.toml", f"{t * 1000:.0f} ms", "<= 200 ms", t <= 0.2)]


def bench_history(tmp):
    """A run into an out dir whose history is full at the default `keep`
    (200 runs of the run's 500 cases), against the same run into an empty
    out dir: what reading, comparing with and rewriting the history costs."""
    n, runs = 500, 200
    harness(tmp, trivial_cases(n))
    # In memory where there is a tmpfs: copying the seed out dir before each
    # run would otherwise leave the disk writing back while the run is timed.
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        with tempfile.TemporaryDirectory(dir="/dev/shm") as mem:
            return history_rows(tmp, mem, n, runs)
    return history_rows(tmp, tmp, n, runs)


def history_rows(tmp, where, n, runs):
    seed = os.path.join(where, "seed")
    subprocess.run([BIN, "golden", "--config", os.path.join(tmp, "harness.toml"), "--out", seed],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(seed, "history.jsonl")) as f:
        one = [json.loads(line) for line in f]
    # Earlier runs of the same cases, a minute apart, oldest first.
    with open(os.path.join(seed, "history.jsonl"), "w") as f:
        for r in range(runs):
            for line in one:
                line = dict(line, run_id=f"20260101T{r // 60:02d}{r % 60:02d}00.000000Z-bench{r:03d}",
                            started_at=f"2026-01-01T{r // 60:02d}:{r % 60:02d}:00Z")
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
    out = os.path.join(where, "out")
    cfg = os.path.join(tmp, "harness.toml")

    def with_history():
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(seed, out, symlinks=True)
        return run([BIN, "golden", "--config", cfg, "--out", out])[0]

    def empty():
        shutil.rmtree(out, ignore_errors=True)
        return run([BIN, "golden", "--config", cfg, "--out", out])[0]

    full, bare = median_pair(with_history, empty, 5)
    size = os.path.getsize(os.path.join(seed, "history.jsonl")) / (1 << 20)
    return [(
        f"{n} trivial cases into an out dir with a full history ({runs} runs, {runs * n:,} lines, {size:.0f} MiB) vs an empty one",
        f"{full * 1000:.0f} ms vs {bare * 1000:.0f} ms (+{(full - bare) * 1000:.0f} ms)",
        "(reference)",
        True,
    )]


def odibi_venv():
    """The virtualenv with the pinned odibi, pandas and pyarrow that
    `.ci/odibi-venv` makes (or the one CARGO_GOLDEN_ODIBI_VENV names)."""
    return os.environ.get("CARGO_GOLDEN_ODIBI_VENV") or os.path.join(ROOT, "target", "odibi-venv")


def bench_odibi(tmp):
    """Judging real Odibi runs: cargo golden (the README's shape: the preset
    chosen by the command, each project in a copy, the default) against the
    same `odibi run` commands in a plain shell loop."""
    venv = odibi_venv()
    odibi = os.path.join(venv, "bin", "odibi")
    name = "Odibi projects: cargo golden / plain shell loop"
    if not os.access(odibi, os.X_OK):
        return [(name, f"no odibi at {odibi} (bash .ci/odibi-venv makes it)", "<= 1.05x", True)]
    n = 3
    for i in range(n):
        shutil.copytree(os.path.join(ROOT, "examples", "odibi", "healthy_etl"), os.path.join(tmp, f"p{i}"))
    harness(tmp, '[harness]\nrunner = "odibi run {path}"\n' + "".join(
        f'[[golden]]\nname = "p{i}"\npath = "p{i}/odibi.yaml"\n'
        for i in range(n)
    ))
    # The loop gets the wide terminal cargo golden gives its cases, so both
    # sides make rich do the same work.
    env = dict(os.environ, COLUMNS="1000",
               PATH=os.path.join(venv, "bin") + os.pathsep + os.environ.get("PATH", ""))
    loop = " && ".join(f"(cd p{i} && odibi run odibi.yaml)" for i in range(n))

    def clean():
        for i in range(n):
            shutil.rmtree(os.path.join(tmp, f"p{i}", "out"), ignore_errors=True)

    return judged_vs_loop(tmp, f"{name} ({n} x healthy_etl, odibi 3.15.1, median of 5)",
                          n, loop, env, clean)


def judged_vs_loop(tmp, name, n, loop, env, clean):
    """The bench row of `n` real projects judged by cargo golden against
    the same commands in the shell `loop`, `clean` run before each side,
    alternating, 5 each."""
    def side(cmd, what):
        def timed():
            clean()
            wall, _, code = run(cmd(), cwd=tmp, env=env)
            assert code == 0, f"{what} failed"
            return wall
        return timed

    # golden() empties the out dir: called for each run.
    g, p = median_pair(side(lambda: golden(tmp), "cargo golden"),
                       side(lambda: ["sh", "-c", loop], "the plain loop"), 5)
    r = g / p
    return [(name, f"{g / n:.2f} s / {p / n:.2f} s per project = {r:.3f}x", "<= 1.05x", r <= 1.05)]


def dbt_venv():
    """The virtualenv with the pinned dbt-core and dbt-duckdb that
    `.ci/dbt-venv` makes (or the one CARGO_GOLDEN_DBT_VENV names)."""
    return os.environ.get("CARGO_GOLDEN_DBT_VENV") or os.path.join(ROOT, "target", "dbt-venv")


def bench_dbt(tmp):
    """Judging real dbt builds: cargo golden (the README's shape: the dbt
    preset chosen by the command, each project in a copy) against the same
    `dbt build` commands in a plain shell loop, each from a clean project
    (no target/, logs/ or database left by the run before, as in a copy)."""
    venv = dbt_venv()
    dbt = os.path.join(venv, "bin", "dbt")
    name = "dbt projects: cargo golden / plain shell loop"
    if not os.access(dbt, os.X_OK):
        return [(name, f"no dbt at {dbt} (bash .ci/dbt-venv makes it)", "<= 1.05x", True)]
    n = 2
    for i in range(n):
        shutil.copytree(os.path.join(ROOT, "examples", "dbt", "shop"), os.path.join(tmp, f"p{i}"))
    harness(tmp, '[harness]\nrunner = "dbt build"\n' + "".join(
        f'[[golden]]\nname = "p{i}"\npath = "p{i}"\n' for i in range(n)
    ))
    # The loop gets the environment the dbt preset gives its cases.
    env = dict(os.environ, COLUMNS="1000", DBT_SEND_ANONYMOUS_USAGE_STATS="false",
               PATH=os.path.join(venv, "bin") + os.pathsep + os.environ.get("PATH", ""))
    loop = " && ".join(f"(cd p{i} && dbt build)" for i in range(n))

    def clean():
        for i in range(n):
            p = os.path.join(tmp, f"p{i}")
            for d in ("target", "logs"):
                shutil.rmtree(os.path.join(p, d), ignore_errors=True)
            for f in os.listdir(os.path.join(p, "out")):
                if f != ".gitkeep":
                    os.remove(os.path.join(p, "out", f))
            if os.path.exists(os.path.join(p, "shop.duckdb")):
                os.remove(os.path.join(p, "shop.duckdb"))

    return judged_vs_loop(tmp, f"{name} ({n} x shop, dbt-core 1.11.16 + dbt-duckdb, median of 5)",
                          n, loop, env, clean)


def data_venv():
    """The virtualenv with the pinned pandas, pyarrow and duckdb that
    `.ci/data-venv` makes (or the one CARGO_GOLDEN_DATA_VENV names)."""
    return os.environ.get("CARGO_GOLDEN_DATA_VENV") or os.path.join(ROOT, "target", "data-venv")


def data_python(*names):
    """The data virtualenv's python (pandas, pyarrow, duckdb), or rows
    saying it is missing."""
    python = os.path.join(data_venv(), "bin", "python")
    if not os.access(python, os.X_OK):
        why = f"no pandas and duckdb at {python} (bash .ci/data-venv makes it)"
        return None, [(name, why, "-", True) for name in names]
    return python, None


DATA_ROWS = 1_000_000

# The pandas side of a data comparison: merge the output `a` with the
# snapshot `b` on the key, numbers within 0.01, every other column equal.
PANDAS_COMPARE = (
    "m = a.merge(b, on='id', how='outer', suffixes=('', '_s'), indicator=True)\n"
    "bad = (m['_merge'] != 'both') | ~np.isclose(m['a'], m['a_s'], atol=0.01, rtol=0)"
    " | ~np.isclose(m['b'], m['b_s'], atol=0.01, rtol=0)\n"
    "for c in ['region', 'c', 'd', 'e', 'f', 'g', 'h']:\n"
    "    bad |= m[c] != m[c + '_s']\n"
    "sys.exit(1 if bad.any() else 0)\n"
)

# The DuckDB side: read both (`a` the output, `b` the snapshot), a full
# outer join on the key, every column compared (numbers within 0.01).
DUCKDB_COMPARE = (
    "import sys, duckdb\n"
    "out, snap, kind = sys.argv[1], sys.argv[2], sys.argv[3]\n"
    "con = duckdb.connect()\n"
    "cols = 'id,region,a,b,c,d,e,f,g,h'.split(',')\n"
    "if kind == 'csv':\n"
    "    con.execute(f\"create view a as select * from read_csv('{out}', header=true)\")\n"
    "    # The snapshot: its `# output:` and `# columns:` lines, then the rows.\n"
    "    con.execute(f\"create view b as select * from read_csv('{snap}', header=false, skip=2, names={cols!r})\")\n"
    "else:\n"
    "    con.execute(f\"create view a as select * from read_parquet('{out}')\")\n"
    "    con.execute(f\"create view b as select * from read_parquet('{snap}')\")\n"
    "cond = ' or '.join([f'abs(a.{c} - b.{c}) > 0.01' for c in ('a', 'b')]\n"
    "    + [f'a.{c} is distinct from b.{c}' for c in ('region', 'c', 'd', 'e', 'f', 'g', 'h')]\n"
    "    + ['a.id is null', 'b.id is null'])\n"
    "bad = con.execute(f'select count(*) from a full outer join b on a.id = b.id where {cond}').fetchone()[0]\n"
    "sys.exit(1 if bad else 0)\n"
)

# DuckDB's aggregates over a Parquet file, as a summary snapshot takes
# them: the rows, and per column the count, nulls, min, max and a sum of
# hashes of the values.
DUCKDB_SUMMARY = (
    "import sys, duckdb\n"
    "con = duckdb.connect()\n"
    "src = f\"read_parquet('{sys.argv[1]}')\"\n"
    "cols = [r[0] for r in con.execute(f'describe select * from {src}').fetchall()]\n"
    "aggs = ', '.join(f'count({c}), count(*) - count({c}), min({c}), max({c}), sum(hash({c}))' for c in cols)\n"
    "con.execute(f'select count(*), {aggs} from {src}').fetchall()\n"
)


def measure_alternating(sides, n=3):
    """Run each of `sides` (name -> argv) n times, alternating; the median
    wall time and the largest peak RSS of each. Every run must exit 0."""
    walls = {name: [] for name in sides}
    rss = {name: 0.0 for name in sides}
    for _ in range(n):
        for name, cmd in sides.items():
            wall, mib, code = run(cmd)
            assert code == 0, f"{name} found a difference or failed (exit {code})"
            walls[name].append(wall)
            rss[name] = max(rss[name], mib)
    return {name: (statistics.median(walls[name]), rss[name]) for name in sides}


def compare_data(tmp, what, output, pandas_cmd, duckdb_cmd):
    """Bless `output` (the table in `tmp`), then time cargo golden's
    comparison with its snapshot against pandas' and DuckDB's, alternating,
    3 each: rows of the medians and peak memory."""
    harness(tmp, f'[[verify]]\nname = "data"\ncommand = "touch {output}"\n'
                 f'outputs = [{{ path = "{output}", key = ["id"], tolerance = {{ abs = 0.01 }} }}]\n')
    subprocess.run(golden(tmp, "--bless"), check=True, capture_output=True)
    m = measure_alternating({"golden": golden(tmp), "pandas": pandas_cmd, "duckdb": duckdb_cmd})
    (g, mg), (p, mp), (d, md) = m["golden"], m["pandas"], m["duckdb"]
    return [
        (
            f"rows mode, {what}: cargo golden / pandas",
            f"{g:.2f} s ({mg:.0f} MiB) / {p:.2f} s ({mp:.0f} MiB) = {g / p:.2f}x",
            "<= 1.0x",
            g / p <= 1.0,
        ),
        (
            f"rows mode, {what}: cargo golden / DuckDB",
            f"{g:.2f} s ({mg:.0f} MiB) / {d:.2f} s ({md:.0f} MiB) = {g / d:.2f}x time, {mg / md:.2f}x memory",
            "<= 1.0x time and memory",
            g / d <= 1.0 and mg / md <= 1.0,
        ),
    ]


def big_project(root, files=20_000, total=GIB):
    """A generated golden project of `files` files in 200 directories,
    `total` bytes in all (sizes vary around the mean; fixed seed)."""
    import random
    rng = random.Random(7)
    mean = total // files
    block = rng.randbytes(4 * mean)
    for i in range(files):
        d = os.path.join(root, f"d{i % 200:03}")
        os.makedirs(d, exist_ok=True)
        size = rng.randint(mean // 2, mean * 3 // 2)
        start = rng.randint(0, len(block) - size)
        with open(os.path.join(d, f"f{i:05}.bin"), "wb") as f:
            f.write(block[start:start + size])
            f.write(i.to_bytes(4, "little"))


def bench_big_project(tmp):
    """A 20,000-file, 1 GiB golden project: a run under isolation = "copy"
    against `cp -a` of the tree, and a run under "check" against
    `find -type f | xargs sha256sum`. Both runs fingerprint the project
    before and after the case (SPEC section 12), so they do more than
    their floors.

    Five pairs, not three: creating 20,000 files right after 20,000 were
    deleted costs a file system without a journal (ext4 then skips each
    recently freed inode) a varying amount, on both sides alike."""
    project = os.path.join(tmp, "project")
    big_project(project)
    copy = os.path.join(tmp, "copy")
    rows = []
    for isolation, floor_name, floor in (
        ("copy", "cp -a", lambda: run(["cp", "-a", project, copy])),
        ("check", "find | xargs sha256sum",
         lambda: run(["sh", "-c", f"find '{project}' -type f -print0 | xargs -0 sha256sum > /dev/null"])),
    ):
        harness(tmp, f'[[golden]]\nname = "big"\npath = "project"\ncommand = "true"\nisolation = "{isolation}"\n')

        def ours():
            wall, _, code = run(golden(tmp), env={**os.environ, "TMPDIR": tmp})
            assert code == 0, f"the {isolation} run failed"
            return wall

        def theirs():
            shutil.rmtree(copy, ignore_errors=True)
            wall, _, code = floor()
            assert code == 0, floor_name
            return wall

        g, f = median_pair(ours, theirs, 5)
        rows.append((
            f"20,000 files / 1 GiB, isolation = {isolation}: run / {floor_name}",
            f"{g:.2f} s / {f:.2f} s = {g / f:.2f}x",
            "<= 1.0x",
            g / f <= 1.0,
        ))
    return rows


def bench_data(tmp):
    """Data snapshots: a 1,000,000-row, 10-column CSV compared with its
    snapshot (matched on a key, a tolerance on the numbers) by cargo golden,
    and the same comparison in pandas and in DuckDB (read both, join on the
    key, compare): wall time and peak memory of each."""
    what = "1,000,000 x 10 CSV"
    python, missing = data_python(f"rows mode, {what}: cargo golden / pandas",
                                  f"rows mode, {what}: cargo golden / DuckDB")
    if missing:
        return missing
    with open(os.path.join(tmp, "data.csv"), "w") as f:
        f.write("id,region,a,b,c,d,e,f,g,h\n")
        for i in range(DATA_ROWS):
            f.write(f"{i},r{i % 50},{i * 0.5},{i % 977 * 1.25},{i % 13},{i % 7},x{i % 101},{i % 3 == 0},{i * 2},{i % 11}\n")
    data = os.path.join(tmp, "data.csv")
    snapshot = os.path.join(tmp, "snapshots", "data.data.csv.data")
    compare = (
        "import pandas as pd, numpy as np, sys\n"
        "a = pd.read_csv(sys.argv[1])\n"
        "b = pd.read_csv(sys.argv[2], comment=None, skiprows=2, header=None, names=a.columns)\n"
        + PANDAS_COMPARE
    )
    return compare_data(tmp, what, "data.csv", [python, "-c", compare, data, snapshot],
                        [python, "-c", DUCKDB_COMPARE, data, snapshot, "csv"])


# The CSV row's table as Parquet, written by pyarrow a million rows at a
# time (one row group each): the same values and column kinds (int64,
# string, double, bool).
WRITE_PARQUET = (
    "import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq\n"
    "n, chunk = int(sys.argv[2]), 1_000_000\n"
    "def table(lo, hi):\n"
    "    i = np.arange(lo, hi, dtype=np.int64)\n"
    "    cat = lambda p, k: pa.array(np.char.add(p, (i % k).astype(str)))\n"
    "    return pa.table({'id': i, 'region': cat('r', 50), 'a': i * 0.5, 'b': (i % 977) * 1.25,"
    " 'c': i % 13, 'd': i % 7, 'e': cat('x', 101), 'f': i % 3 == 0, 'g': i * 2, 'h': i % 11})\n"
    "with pq.ParquetWriter(sys.argv[1], table(0, 1).schema) as w:\n"
    "    for lo in range(0, n, chunk):\n"
    "        w.write_table(table(lo, min(n, lo + chunk)), row_group_size=chunk)\n"
)


def bench_data_parquet(tmp):
    """The same table written as Parquet: cargo golden compares it with its
    text snapshot; pandas and DuckDB read the output and a kept copy of it,
    join on the key and compare."""
    what = "1,000,000 x 10 Parquet"
    python, missing = data_python(f"rows mode, {what}: cargo golden / pandas",
                                  f"rows mode, {what}: cargo golden / DuckDB")
    if missing:
        return missing
    data = os.path.join(tmp, "data.parquet")
    subprocess.run([python, "-c", WRITE_PARQUET, data, str(DATA_ROWS)], check=True)
    kept = os.path.join(tmp, "kept.parquet")
    shutil.copyfile(data, kept)
    compare = (
        "import pandas as pd, numpy as np, sys\n"
        "a = pd.read_parquet(sys.argv[1])\n"
        "b = pd.read_parquet(sys.argv[2])\n"
        + PANDAS_COMPARE
    )
    return compare_data(tmp, what, "data.parquet", [python, "-c", compare, data, kept],
                        [python, "-c", DUCKDB_COMPARE, data, kept, "parquet"])


def summary_row(tmp, what, data, python):
    """A summary snapshot of the Parquet file `data` (blessed first), run
    against DuckDB's aggregates over it, alternating, 3 each."""
    harness(tmp, f'[[verify]]\nname = "summary"\ncommand = "touch {data}"\n'
                 f'outputs = [{{ path = "{data}", mode = "summary" }}]\n')
    subprocess.run(golden(tmp, "--bless"), check=True, capture_output=True)
    m = measure_alternating({"golden": golden(tmp), "duckdb": [python, "-c", DUCKDB_SUMMARY, data]})
    (g, mg), (d, md) = m["golden"], m["duckdb"]
    return [(
        f"summary mode, {what}: cargo golden / DuckDB",
        f"{g:.2f} s ({mg:.0f} MiB) / {d:.2f} s ({md:.0f} MiB) = {g / d:.2f}x",
        "<= 1.0x time, <= 128 MiB",
        g / d <= 1.0 and mg <= 128,
    )]


def bench_summary(tmp):
    """`mode = "summary"` of a 10,000,000-row Parquet file (10 row groups)."""
    what = "10,000,000-row Parquet (10 row groups)"
    python, missing = data_python(f"summary mode, {what}: cargo golden / DuckDB")
    if missing:
        return missing
    data = os.path.join(tmp, "big.parquet")
    subprocess.run([python, "-c", WRITE_PARQUET, data, str(10 * DATA_ROWS)], check=True)
    return summary_row(tmp, what, data, python)


def bench_summary_100m(tmp):
    """`mode = "summary"` of a 100,000,000-row Parquet file (~1.3 GB, 100
    row groups), generated once under target/bench-data/ and kept."""
    what = "100,000,000-row Parquet (100 row groups)"
    name = f"summary mode, {what}: cargo golden / DuckDB"
    python, missing = data_python(name)
    if missing:
        return missing
    keep = os.path.join(ROOT, "target", "bench-data")
    os.makedirs(keep, exist_ok=True)
    data = os.path.join(keep, "summary-100m.parquet")
    if not os.path.exists(data):
        free = shutil.disk_usage(keep).free
        if free < 4 * GIB:
            return [(name, f"skipped: {free / GIB:.1f} GiB free under target/, 4 GiB wanted", "-", True)]
        subprocess.run([python, "-c", WRITE_PARQUET, data + ".part", str(100 * DATA_ROWS)], check=True)
        os.replace(data + ".part", data)
    link = os.path.join(tmp, "big.parquet")
    os.symlink(data, link)
    return summary_row(tmp, what, link, python)


def bench_reports(_tmp):
    """Reports and the baseline comparison at 10,000 cases (the `reports`
    bench); needs no directory."""
    out = subprocess.run(
        ["cargo", "bench", "--locked", "--quiet", "--bench", "reports"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    def figure(key):
        return float(next(l.split("=")[1] for l in out.splitlines() if l.startswith(key + "=")))

    ms = figure("reports_10000_ms")
    added = figure("baseline_compare_10000_ms")
    alone = figure("baseline_compare_only_10000_ms")
    return [
        ("render all reports for 10,000 cases", f"{ms:.0f} ms", "<= 1000 ms", ms <= 1000),
        (
            "compare 10,000 cases against a 10,000-entry baseline (added to rendering)",
            f"{added:+.0f} ms (comparison alone {alone:.0f} ms)",
            "<= +100 ms",
            added <= 100,
        ),
    ]


# A fresh crate's test build with each dev-dependency: the dependency line
# and the test file that uses it.
BUILD_CRATES = {
    "cargo-golden lean (default-features = false)": (
        "cargo-golden = {{ path = {root!r}, default-features = false }}",
        "golden.rs", "fn main() {\n    cargo_golden::harness::main()\n}\n", True,
    ),
    "cargo-golden default": (
        "cargo-golden = {{ path = {root!r} }}",
        "golden.rs", "fn main() {\n    cargo_golden::harness::main()\n}\n", True,
    ),
    "trycmd": (
        'trycmd = "1"',
        "cli.rs", '#[test]\nfn cli() {\n    trycmd::TestCases::new().case("tests/cmd/*.toml");\n}\n', False,
    ),
    "insta": (
        'insta = "1"',
        "snap.rs", '#[test]\nfn snap() {\n    insta::assert_snapshot!("text");\n}\n', False,
    ),
}


def fresh_crate(tmp, name, dep, test_file, test_text, own_harness):
    crate = os.path.join(tmp, name)
    os.makedirs(os.path.join(crate, "src"))
    os.makedirs(os.path.join(crate, "tests"))
    with open(os.path.join(crate, "src", "lib.rs"), "w") as f:
        f.write("")
    manifest = f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2024"\n[workspace]\n'
    manifest += "\n[dev-dependencies]\n" + dep.format(root=ROOT) + "\n"
    if own_harness:
        manifest += f'\n[[test]]\nname = "{test_file[:-3]}"\nharness = false\n'
        # The repository's lock file: the versions this crate is tested with.
        shutil.copy(os.path.join(ROOT, "Cargo.lock"), os.path.join(crate, "Cargo.lock"))
    with open(os.path.join(crate, "Cargo.toml"), "w") as f:
        f.write(manifest)
    with open(os.path.join(crate, "tests", test_file), "w") as f:
        f.write(test_text)
    return crate


def build_cpu(crate, target):
    """CPU seconds (user + sys of cargo and every compiler it ran) of
    `cargo build --tests` of `crate` into `target`. Not incremental: a
    dependency from the registry never is, and the path dependency here
    stands for the published crate (a cold incremental build costs more)."""
    env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_INCREMENTAL="0")
    env.pop("RUSTFLAGS", None)
    p = subprocess.Popen(["cargo", "build", "--tests", "--quiet"], cwd=crate, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"cargo build --tests failed in {crate}")
    return usage.ru_utime + usage.ru_stime


def cold_build_cpu(crate, target):
    """`build_cpu` of a cold build: the target dir removed first."""
    shutil.rmtree(target, ignore_errors=True)
    return build_cpu(crate, target)


def own_crate_cpu(crate, target):
    """`build_cpu` of rebuilding cargo-golden's own crate (and the test
    that links it) over a finished build: its share of the cold build."""
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    subprocess.run(["cargo", "clean", "--quiet", "-p", "cargo-golden"], cwd=crate, env=env, check=True)
    return build_cpu(crate, target)


def bench_build(tmp):
    """Cold test builds of a fresh crate per dev-dependency, alternating
    (BENCH_BUILD_RUNS rounds, 3 unless set; a cold build takes minutes).
    The registry's downloads are fetched once first and not counted."""
    runs = int(os.environ.get("BENCH_BUILD_RUNS", "3"))
    lean_label = "cargo-golden lean (default-features = false)"
    crates = {}
    for i, (label, spec) in enumerate(BUILD_CRATES.items()):
        crates[label] = fresh_crate(tmp, f"fresh{i}", *spec)
        subprocess.run(["cargo", "fetch", "--quiet"], cwd=crates[label], check=True)
    cpu = {label: [] for label in crates}
    own = []
    target = os.path.join(tmp, "target")
    for _ in range(runs):
        for label, crate in crates.items():
            cpu[label].append(cold_build_cpu(crate, target))
            if label == lean_label:
                own.append(own_crate_cpu(crate, target))
    med = {label: statistics.median(v) for label, v in cpu.items()}
    lean, trycmd, own = med[lean_label], med["trycmd"], statistics.median(own)
    rows = [
        (f"cold `cargo build --tests` of a fresh crate: {label}", f"{t:.0f} CPU s (median of {runs})",
         "(reference)", True)
        for label, t in med.items()
    ]
    # A guard, not a goal: the lean build's dependencies alone cost more
    # than trycmd's whole build, and each is one the product needs. The
    # guard keeps it from growing back.
    rows.append(("cold test build, cargo-golden lean vs trycmd (guard)", f"{lean / trycmd:.2f}x", "<= 2.2x",
                 lean <= 2.2 * trycmd))
    # How the lean build splits: cargo-golden's own crate, and every crate
    # it depends on. The second is what no cut to this crate's code reaches.
    rows.append(("of the lean build, cargo-golden's own crate (rebuilt alone)",
                 f"{own:.0f} CPU s ({own / trycmd:.2f}x trycmd's whole build)", "(reference)", True))
    rows.append(("of the lean build, its dependencies alone vs trycmd",
                 f"{(lean - own) / trycmd:.2f}x ({lean - own:.0f} CPU s)", "(reference)", True))
    return rows


# Rows by the name that selects them on the command line, in table order.
GROUPS = {
    "capture": [bench_capture],
    "masking": [bench_masking],
    "overhead": [bench_overhead],
    "nextest": [bench_nextest],
    "parallel": [bench_parallel],
    "list": [bench_list],
    "history": [bench_history],
    "odibi": [bench_odibi],
    "dbt": [bench_dbt],
    "data": [bench_data, bench_data_parquet, bench_summary, bench_summary_100m],
    "projects": [bench_big_project],
    "reports": [bench_reports],
    "build": [bench_build],
}


def main():
    names = sys.argv[1:] or list(GROUPS)
    unknown = [n for n in names if n not in GROUPS]
    if unknown:
        sys.exit(f"unknown row group(s) {', '.join(unknown)}: choose from {', '.join(GROUPS)}")
    # Every group but `build` (fresh crates) runs the release binary.
    if any(n != "build" for n in names):
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=ROOT, check=True)
    rows = []
    for name in GROUPS:
        if name not in names:
            continue
        for fn in GROUPS[name]:
            with tempfile.TemporaryDirectory() as tmp:
                rows += fn(tmp)
    print("| benchmark | measured | target | met |")
    print("|---|---|---|---|")
    for name, got, target, ok in rows:
        print(f"| {name} | {got} | {target} | {'yes' if ok else 'NO'} |")


if __name__ == "__main__":
    main()
