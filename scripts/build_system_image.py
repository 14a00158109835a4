"""Builds a system image (a `docker save` tar) from a folder of Python code, without Docker or internet.

    scripts/build-system-image examples/systems/bm25 --entry bm25.py -o var/bm25.tar

For teams without Docker, and for cupboard's own tests (where there is no Docker engine and no
internet): the image has two layers, made from this machine's files.
  1. a minimal root filesystem: a Python interpreter of this host (`--python`, Debian's
     /usr/bin/python3 by default) as /usr/bin/pythonX.Y, the shared libraries it and the extension
     modules it needs load (found with ldd, kept at the same paths), and the part of the standard
     library the system imports (found with modulefinder on the entry script, plus what the
     interpreter loads when it starts), under /usr/lib/pythonX.Y wherever it is on this host;
  2. the system's folder, under /app.
The config's Cmd is `python3 /app/ENTRY`, WorkingDir /app. The tar is the same bytes for the same
inputs (sorted entries, fixed owners, the code layer's times set to zero), so its SHA-256 names it.

A system that needs packages outside the standard library should be built with Docker instead (the
equivalent Dockerfile is beside the example: docs/systems.md), or vendor them into its folder.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

DEFAULT_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
# Run by the chosen interpreter: which files of its own installation the entry script needs.
_FINDER = r"""
import json, modulefinder, os, sys, sysconfig
entry, code_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, code_dir)
stdlib = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")}
dynload = os.path.join(sysconfig.get_paths()["platstdlib"], "lib-dynload")
finder = modulefinder.ModuleFinder(path=[code_dir] + sys.path[1:])
finder.run_script(entry)
for name in ("encodings", "site", "codecs", "io", "abc", "os", "stat", "runpy"):
    finder.import_hook(name)
import encodings, pkgutil
for info in pkgutil.iter_modules(encodings.__path__):
    finder.import_hook("encodings." + info.name)
files, outside = set(), []
for name, module in finder.modules.items():
    path = module.__file__
    if not path:
        continue
    real = os.path.realpath(path)
    if real.startswith(os.path.realpath(code_dir) + os.sep):
        continue
    if any(real.startswith(root + os.sep) for root in stdlib) and "site-packages" not in real and "dist-packages" not in real:
        files.add(path)
    else:
        outside.append(name)
started = [m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)]
files.update(p for p in started if any(os.path.realpath(p).startswith(r + os.sep) for r in stdlib)
             and "-packages" not in p)
print(json.dumps({"files": sorted(files), "outside": sorted(outside), "dynload": dynload,
                  "stdlib": os.path.realpath(sysconfig.get_paths()["stdlib"]),
                  "prefix": sys.prefix, "version": "%d.%d" % sys.version_info[:2],
                  "executable": os.path.realpath(sys.executable)}))
"""
LDD_LINE = re.compile(r"(?:\S+ => )?(/\S+) \(0x[0-9a-f]+\)")


def needed_libraries(paths: list[str]) -> set[str]:
    """The shared libraries (and the dynamic loader) the given ELF files load, as ldd lists them."""
    libraries: set[str] = set()
    for path in paths:
        done = subprocess.run(["ldd", path], capture_output=True, text=True)
        if done.returncode != 0:
            continue  # "not a dynamic executable"
        for line in done.stdout.splitlines():
            match = LDD_LINE.search(line.strip())
            if match:
                libraries.add(match.group(1))
    return libraries


class LayerWriter:
    """A layer tar with sorted entries, owner root, and (unless kept) times at zero."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str, bytes | str, int, int]] = {}

    def add_dirs(self, path: str) -> None:
        parts = path.strip("/").split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            self.entries.setdefault("/".join(parts[:depth]), ("dir", b"", 0o755, 0))

    def add_file(self, path: str, data: bytes, mode: int = 0o644, mtime: int = 0) -> None:
        self.add_dirs(path)
        self.entries[path.strip("/")] = ("file", data, mode, mtime)

    def add_host_file(self, image_path: str, host_path: str, keep_time: bool = False) -> None:
        info = os.stat(host_path)
        mode = 0o755 if info.st_mode & 0o111 else 0o644
        self.add_file(image_path, Path(host_path).read_bytes(), mode, int(info.st_mtime) if keep_time else 0)

    def add_symlink(self, path: str, target: str) -> None:
        self.add_dirs(path)
        self.entries[path.strip("/")] = ("symlink", target, 0o777, 0)

    def write(self, target: io.BufferedIOBase) -> None:
        with tarfile.open(fileobj=target, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name in sorted(self.entries):
                kind, data, mode, mtime = self.entries[name]
                info = tarfile.TarInfo(name)
                info.mode, info.mtime, info.uid, info.gid, info.uname, info.gname = mode, mtime, 0, 0, "", ""
                if kind == "dir":
                    info.type = tarfile.DIRTYPE
                    tar.addfile(info)
                elif kind == "symlink":
                    info.type, info.linkname = tarfile.SYMTYPE, str(data)
                    tar.addfile(info)
                else:
                    assert isinstance(data, bytes)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))


def base_layer(python: str, entry: Path, code_dir: Path) -> LayerWriter:
    """The interpreter, its libraries and the standard library modules the entry script needs."""
    done = subprocess.run([python, "-S", "-c", _FINDER, str(entry), str(code_dir)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"build-system-image: finding the modules {entry} imports failed:\n{done.stderr}")
    found = json.loads(done.stdout)
    found["outside"] = [name for name in found["outside"] if name not in ("sitecustomize", "usercustomize")]
    if found["outside"]:
        print("build-system-image: not in the image (not standard library; vendor them into the folder if needed): "
              + ", ".join(found["outside"]), file=sys.stderr)
    layer = LayerWriter()
    executable = found["executable"]
    # The standard library goes where an interpreter at /usr/bin looks for it (its landmark os.py in
    # /usr/lib/pythonX.Y), wherever it is on this host (a pyenv or venv interpreter keeps it elsewhere).
    home = f"/usr/lib/python{found['version']}"

    def inside(path: str) -> str:
        for form in (path, os.path.realpath(path)):
            if form.startswith(found["stdlib"] + "/"):
                return home + form[len(found["stdlib"]):]
        return path

    layer.add_host_file(f"/usr/bin/python{found['version']}", executable, keep_time=True)
    layer.add_symlink("/usr/bin/python3", f"python{found['version']}")
    layer.add_symlink("/usr/bin/python", f"python{found['version']}")
    extensions = []
    for path in found["files"]:
        layer.add_host_file(inside(path), path, keep_time=True)  # source times kept: the .pyc beside stay valid
        if path.endswith(".so"):
            extensions.append(path)
        cached = Path(path).parent / "__pycache__" / (Path(path).stem + f".cpython-{found['version'].replace('.', '')}.pyc")
        if path.endswith(".py") and cached.exists():
            layer.add_host_file(inside(str(cached)), str(cached), keep_time=True)
    for library in sorted(needed_libraries([executable, *extensions])):
        layer.add_host_file(library, os.path.realpath(library), keep_time=True)
    layer.add_dirs(inside(found["dynload"]) + "/x")
    layer.add_file("/etc/passwd", b"root:x:0:0:root:/root:/bin/false\n")
    return layer


def code_layer(code_dir: Path) -> LayerWriter:
    layer = LayerWriter()
    for path in sorted(code_dir.rglob("*")):
        relative = path.relative_to(code_dir)
        if path.is_file() and "__pycache__" not in relative.parts and path.name != "Dockerfile":
            layer.add_host_file(f"/app/{relative.as_posix()}", str(path))
    return layer


def build(code_dir: Path, entry: str, output: Path, *, python: str = DEFAULT_PYTHON, tag: str = "system:latest") -> str:
    """Writes the image tar; returns its SHA-256."""
    layers = []
    for layer in (base_layer(python, code_dir / entry, code_dir), code_layer(code_dir)):
        buffer = io.BytesIO()
        layer.write(buffer)
        layers.append(buffer.getvalue())
    diff_ids = ["sha256:" + hashlib.sha256(data).hexdigest() for data in layers]
    config = json.dumps({
        "architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
        "config": {"Cmd": ["python3", f"/app/{entry}"], "WorkingDir": "/app",
                   "Env": ["PATH=/usr/local/bin:/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE=1", "LANG=C.UTF-8"]},
        "rootfs": {"type": "layers", "diff_ids": diff_ids},
        "history": [{"created_by": "build-system-image: python from the host"}, {"created_by": f"build-system-image: {code_dir.name}"}],
    }, sort_keys=True).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    layer_names = [f"{diff.split(':')[1]}/layer.tar" for diff in diff_ids]
    manifest = json.dumps([{"Config": config_name, "RepoTags": [tag], "Layers": layer_names}]).encode()
    writer = LayerWriter()
    writer.add_file(config_name, config)
    for name, data in zip(layer_names, layers, strict=True):
        writer.add_file(name, data)
    writer.add_file("manifest.json", manifest)
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=output.parent, delete=False, suffix=".part") as handle:
        writer.write(handle)  # type: ignore[arg-type]
    os.replace(handle.name, output)
    return hashlib.sha256(output.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build a system image (docker save tar) from a folder of Python code.")
    parser.add_argument("folder", type=Path, help="the system's code; copied to /app in the image")
    parser.add_argument("--entry", help="the script to run (default: the folder's only .py file)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the image tar to write")
    parser.add_argument("--python", default=DEFAULT_PYTHON, help=f"the interpreter to copy (default {DEFAULT_PYTHON})")
    parser.add_argument("--tag", default=None, help="RepoTags entry (default: FOLDER:latest)")
    args = parser.parse_args(argv)
    entry = args.entry
    if entry is None:
        scripts = sorted(path.name for path in args.folder.glob("*.py"))
        if len(scripts) != 1:
            parser.error(f"{args.folder} has {len(scripts)} .py files: name the one to run with --entry")
        entry = scripts[0]
    digest = build(args.folder, entry, args.output, python=args.python, tag=args.tag or f"{args.folder.name}:latest")
    print(f"{args.output}: sha256:{digest} ({args.output.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
