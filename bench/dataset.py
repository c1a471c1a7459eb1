"""The bench datasets, built once and cached under bench/.cache (git-ignored).

* full: a national-size synthetic GIAS file (python -m tools.demo --full-scale: ~65,000
  establishments, ~27,000 open, on real Code-Point postcodes) and every Code-Point Open
  postcode, each imported with the real CLI (`schooldata import ...`), timed.
* quick: the bundled demo's GIAS file and Code-Point subset, imported the same way.

Each also gets an API key (org `bench`, plan `enterprise`) and the peer's SQLite file (the same
served rows and postcodes, with full-text search) for Datasette.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.procs import PROJECT_PYTHON, ROOT, run

CACHE = ROOT / "bench" / ".cache"
CODEPOINT = ROOT.parent / "shared" / "data" / "codepoint_open"
REAL_NAMES = ROOT.parent / "shared" / "data" / "performance_tables"  # no demo name is one of these
SAMPLE = ROOT / "src" / "schooldata" / "adapters" / "sample" / "data"
SCHOOLDATA = ROOT / ".venv" / "bin" / "schooldata"
# Fixed, so that stored key hashes stay valid between runs; never a production secret.
BENCH_SECRET = "bench-only-secret-not-for-production-0123456789"
EXTRACT_DATE = "2026-11-01"
PEER_VENV = Path(os.environ.get("BENCH_PEER_VENV", str(CACHE / "peer-venv")))
PEER_PACKAGES = ("datasette==0.65.*", "sqlite-utils==3.*")
LAYOUT_VERSION = 2  # bump to rebuild caches made by an older bench (2: no real school names)

PLANS_TOML = """\
# The bench's plan catalogue: the product's plans, with the bench organisation's plan
# (enterprise) given a rate limit and quota far above what a run can use, so no 429 skews it.
[plans.developer]
per_page_max = 25
compare_max = 3
rate_per_second = 5
monthly_quota = 1000
features = ["meta", "data_freshness", "schools_list", "schools_search", "schools_nearby",
            "school_profile", "inspections", "local_authorities"]

[plans.enterprise]
per_page_max = 100
compare_max = 25
rate_per_second = 1000000000
monthly_quota = 1000000000000
features = ["meta", "data_freshness", "schools_list", "schools_search", "schools_nearby",
            "school_profile", "inspections", "local_authorities", "results", "admissions",
            "compare", "rankings", "finance"]
"""


def plans_file() -> Path:
    path = CACHE / "plans.toml"
    CACHE.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != PLANS_TOML:
        path.write_text(PLANS_TOML)
    return path


def server_env(home: Path) -> dict[str, str]:
    return {
        "SCHOOLDATA_KEY_SECRET": BENCH_SECRET,
        "SCHOOLDATA_PLANS_FILE": str(plans_file()),
        "SCHOOLDATA_HOME": str(home),
        "SCHOOLDATA_LOG_FORMAT": "json",
    }


def db_url(path: Path) -> str:
    return f"sqlite:///{path}"


def _schooldata(db: Path, *args: str) -> str:
    env = server_env(db.parent / "home")
    return run([str(SCHOOLDATA), "--db", db_url(db), *args], env=env)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed_import(db: Path, dataset: str, *files: Path, extra: tuple[str, ...] = ()) -> dict:
    """Wall-clock seconds (what the target bounds) and the CPU seconds of the import
    process (steadier on a shared machine, where other tenants stretch the wall clock)."""
    cpu = _cpu_seconds()
    started = time.perf_counter()
    out = _schooldata(db, "import", dataset, *map(str, files), *extra, "--format", "json")
    seconds = time.perf_counter() - started
    cpu = _cpu_seconds() - cpu
    report = json.loads(out)[0]
    return {
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "rows_read": report["rows_read"],
        "rows_imported": report["rows_imported"],
        "rows_rejected": report["rows_rejected"],
    }


def build(scale: str, *, rebuild: bool = False, log: Callable[[str], None] = print) -> dict:
    """The dataset's metadata (paths, import timings, API key), building it when needed.
    Concurrent benches (a test run and `make bench-quick`) wait for one builder."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{scale}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _build(scale, rebuild=rebuild, log=log)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _build(scale: str, *, rebuild: bool, log: Callable[[str], None]) -> dict:
    base = CACHE / scale
    meta_path = base / "meta.json"
    if not rebuild and meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("layout") == LAYOUT_VERSION and Path(meta["db"]).exists():
            return {**meta, "imports_measured": f"when the cache was built ({meta['measured_at']})"}
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    db = base / "bench.sqlite3"
    meta: dict = {"layout": LAYOUT_VERSION, "scale": scale, "db": str(db)}
    if scale == "full":
        log("generating the full-scale GIAS file (python -m tools.demo --full-scale) ...")
        started = time.perf_counter()
        run(
            [
                str(PROJECT_PYTHON),
                "-m",
                "tools.demo",
                "--codepoint",
                str(CODEPOINT),
                "--real-names",
                str(REAL_NAMES),
                "--out",
                str(base),
                "--full-scale",
            ]
        )
        meta["generate_seconds"] = round(time.perf_counter() - started, 1)
        gias = base / f"edubasealldata{EXTRACT_DATE.replace('-', '')}.csv"
        postcodes = CODEPOINT
    else:
        gias = SAMPLE / "gias_demo.csv.gz"
        postcodes = SAMPLE / "codepoint_demo"
    meta["gias_file"] = str(gias)
    meta["postcodes_source"] = str(postcodes)
    meta["gias_bytes"] = gias.stat().st_size
    meta.update(time_imports(meta, db, log))
    issued = json.loads(
        _schooldata(
            db,
            "keys",
            "create",
            "--org",
            "bench",
            "--name",
            "bench",
            "--plan",
            "enterprise",
            "--json",
        )
    )
    meta["api_key"] = issued["key"]
    meta["peer_db"] = str(build_peer_db(db, base / "peer.sqlite3"))
    meta["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return {**meta, "imports_measured": "this run"}


def time_imports(meta: dict, db: Path, log: Callable[[str], None] = print) -> dict:
    """Import every Code-Point postcode, then the GIAS file, into `db` with the real CLI."""
    postcodes, gias = Path(meta["postcodes_source"]), Path(meta["gias_file"])
    log(f"importing postcodes from {postcodes} ...")
    timed = {"import_postcodes": _timed_import(db, "postcodes", postcodes)}
    log(f"  {timed['import_postcodes']}")
    log(f"importing GIAS from {gias} ...")
    timed["import_gias"] = _timed_import(db, "gias", gias, extra=("--extract-date", EXTRACT_DATE))
    log(f"  {timed['import_gias']}")
    return timed


def retime_imports(meta: dict, log: Callable[[str], None] = print) -> dict:
    """The imports again, into a scratch database, so this run measures them too."""
    scratch = Path(meta["db"]).parent / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    try:
        timed = time_imports(meta, scratch / "import.sqlite3", log)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {**meta, **timed, "imports_measured": "this run"}


# ------------------------------------------------------------------------------ the peer


def build_peer_db(source: Path, target: Path) -> Path:
    """The served rows and the postcode directory as a Datasette user would publish them."""
    target.unlink(missing_ok=True)
    con = sqlite3.connect(target)
    con.execute("ATTACH DATABASE ? AS src", (f"file:{source}?mode=ro",))
    con.executescript(
        """
        CREATE TABLE schools (
            urn INTEGER PRIMARY KEY, name TEXT, la_code TEXT, la_name TEXT, type_name TEXT,
            phase TEXT, gender TEXT, street TEXT, town TEXT, postcode TEXT,
            latitude REAL, longitude REAL, website TEXT, telephone TEXT, status TEXT);
        INSERT INTO schools SELECT urn, name, la_code, la_name, type_name, phase, gender,
            street, town, postcode, latitude, longitude, website, telephone, status
            FROM src.schools ORDER BY urn;
        CREATE INDEX schools_latitude ON schools (latitude, longitude);
        CREATE TABLE postcodes (postcode TEXT PRIMARY KEY, latitude REAL, longitude REAL)
            WITHOUT ROWID;
        INSERT OR IGNORE INTO postcodes SELECT compact, latitude, longitude FROM src.postcodes;
        """
    )
    con.commit()
    con.execute("DETACH DATABASE src")
    con.close()
    return target


def peer_ready() -> bool:
    return (PEER_VENV / "bin" / "datasette").exists() and (
        PEER_VENV / "bin" / "sqlite-utils"
    ).exists()


def ensure_peer(install: bool, log: Callable[[str], None] = print) -> bool:
    """Datasette in its own venv (never the project's). Installs it when asked to."""
    if peer_ready():
        return True
    if not install:
        return False
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "peer-venv.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return peer_ready() or _install_peer(log)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _install_peer(log: Callable[[str], None]) -> bool:
    log(f"installing Datasette into {PEER_VENV} (a separate venv) ...")
    if PEER_VENV.exists():
        shutil.rmtree(PEER_VENV)
    subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    subprocess.run(
        [str(PEER_VENV / "bin" / "pip"), "install", "-q", *PEER_PACKAGES], check=True, timeout=900
    )
    return peer_ready()


def enable_peer_fts(peer_db: Path) -> None:
    """Full-text search the way Datasette users add it (sqlite-utils, FTS5)."""
    with (peer_db.parent / "fts.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            _enable_fts(peer_db)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _enable_fts(peer_db: Path) -> None:
    con = sqlite3.connect(peer_db)
    has_fts = con.execute(
        "SELECT count(*) FROM sqlite_master WHERE name = 'schools_fts'"
    ).fetchone()[0]
    con.close()
    if not has_fts:
        run(
            [
                str(PEER_VENV / "bin" / "sqlite-utils"),
                "enable-fts",
                str(peer_db),
                "schools",
                "name",
                "la_name",
                "type_name",
                "--fts5",
            ]
        )
