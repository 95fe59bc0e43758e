#!/usr/bin/env python3
"""Pack a study directory's finished runs, without their checkpoints, into one .tar.xz, or unpack one.

What is packed is what `rotor compare` reads to skip a finished run and to rebuild the report: each
finished run's config, summary, metrics, length sweep and diagnostics, and the study's manifest and
reports. Checkpoints, locks and plots (which `--report` draws again) stay behind, and so do unfinished runs, a run stopped in its sweep
included (without their checkpoints they could only start over, which rerunning the study does anyway).

A study longer than one machine's life: pack it into the repository after each stop, unpack it into
the study directory on the next machine, rerun the same `rotor compare` command.

    tools/archive_study.py pack runs/compare/chomsky/even-pairs results/chomsky/runs/even-pairs.tar.xz
    tools/archive_study.py unpack results/chomsky/runs/even-pairs.tar.xz runs/compare/chomsky/even-pairs
"""
import argparse
import io
import sys
import tarfile
from pathlib import Path

LEFT_BEHIND = {"checkpoints", ".lock", "plots"}  # plots: `rotor compare --report` draws them again


def is_run_directory(path: Path) -> bool:
    return path.parent.name == "runs" and (path / "config.yaml").is_file()


def packed_files(root: Path, counts: dict):
    """The files to pack under root, sorted (so the same study packs to the same archive)."""
    for entry in sorted(root.iterdir()):
        if entry.name in LEFT_BEHIND:
            continue
        if entry.is_dir():
            if is_run_directory(entry):
                # Trained (summary), swept and its attention measured (the pass after the sweep): a run stopped in
                # its sweep has a summary but would need its checkpoint to finish, so it is left behind too.
                if not all((entry / f).is_file() for f in ("summary.json", "length_sweep.json", "attention.json")):
                    counts["unfinished"] += 1
                    continue
                counts["finished"] += 1
            yield from packed_files(entry, counts)
        elif entry.is_file():
            yield entry


def pack(study: Path, archive: Path) -> str:
    counts = {"finished": 0, "unfinished": 0}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz") as tar:
        for path in packed_files(study, counts):
            info = tar.gettarinfo(str(path), arcname=str(path.relative_to(study)))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""  # the content alone
            with path.open("rb") as f:
                tar.addfile(info, f)
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(buffer.getvalue())
    return (f"{study} -> {archive}: {counts['finished']} finished runs packed, {counts['unfinished']} unfinished "
            f"left behind, {archive.stat().st_size / 1e6:.1f} MB")


def unpack(archive: Path, study: Path) -> str:
    with tarfile.open(archive, mode="r:xz") as tar:
        for member in tar.getmembers():  # a packed study holds plain files below its root, nothing else
            if not member.isfile() or member.name.startswith("/") or ".." in Path(member.name).parts:
                raise SystemExit(f"archive_study: {archive}: '{member.name}' is not a file of a packed study")
        tar.extractall(study)
        return f"{archive} -> {study}: {len(tar.getmembers())} files"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack", help="study directory -> .tar.xz")
    p.add_argument("study", type=Path)
    p.add_argument("archive", type=Path)
    u = sub.add_parser("unpack", help=".tar.xz -> study directory (files already there are overwritten)")
    u.add_argument("archive", type=Path)
    u.add_argument("study", type=Path)
    args = parser.parse_args()
    source = args.study if args.command == "pack" else args.archive
    if not source.exists():
        print(f"archive_study: {source}: not found", file=sys.stderr)
        return 2
    print(pack(args.study, args.archive) if args.command == "pack" else unpack(args.archive, args.study))
    return 0


if __name__ == "__main__":
    sys.exit(main())
