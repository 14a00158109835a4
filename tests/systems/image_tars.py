"""Image tars for the tests: the example system's (built once, cached under var/), and small
hand-made ones for the unpacking rules."""
from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from pathlib import Path

from scripts.build_system_image import DEFAULT_PYTHON, build

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "systems" / "bm25"
CACHE = ROOT / "var" / "systems-images"


def example_image() -> Path:
    """The example system's image, rebuilt only when the builder, the example or the interpreter changed."""
    digest = hashlib.sha256()
    python = os.path.realpath(DEFAULT_PYTHON)
    digest.update(f"{python} {os.stat(python).st_mtime_ns}".encode())
    for path in [ROOT / "scripts" / "build_system_image.py", *sorted(EXAMPLE.rglob("*"))]:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.name.encode() + path.read_bytes())
    target = CACHE / f"bm25-{digest.hexdigest()[:16]}.tar"
    if not target.exists():
        build(EXAMPLE, "bm25.py", target, tag="bm25:latest")
    return target


def entry(name: str, data: bytes = b"", *, kind: bytes = tarfile.REGTYPE, mode: int = 0o644, link: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data


def layer(*entries: tuple[tarfile.TarInfo, bytes], gzip: bool = False) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gzip else "w") as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def docker_save(path: Path, layers: list[bytes], *, cmd: list[str] | None = None, env: list[str] | None = None) -> Path:
    """A tar as `docker save` writes it: manifest.json, the config, a folder per layer."""
    config = json.dumps({"config": {"Cmd": ["/app/run"] if cmd is None else cmd, "Env": env or ["PATH=/bin"],
                                    "WorkingDir": "/app"}}).encode()
    names = [f"{hashlib.sha256(data).hexdigest()}/layer.tar" for data in layers]
    manifest = json.dumps([{"Config": "config.json", "RepoTags": ["t:1"], "Layers": names}]).encode()
    with tarfile.open(path, "w") as tar:
        for name, data in [("config.json", config), *zip(names, layers, strict=True), ("manifest.json", manifest)]:
            info, _ = entry(name, data)
            tar.addfile(info, io.BytesIO(data))
    return path


def oci_layout(path: Path, layers: list[bytes], *, cmd: list[str]) -> Path:
    """An OCI image layout tar (index.json -> manifest -> config and layers, all blobs by digest)."""
    blobs: dict[str, bytes] = {}

    def blob(data: bytes) -> dict:
        digest = hashlib.sha256(data).hexdigest()
        blobs[f"blobs/sha256/{digest}"] = data
        return {"digest": f"sha256:{digest}", "size": len(data)}

    config = blob(json.dumps({"config": {"Entrypoint": cmd[:1], "Cmd": cmd[1:]}}).encode())
    described = [dict(blob(data), mediaType="application/vnd.oci.image.layer.v1.tar+gzip") for data in layers]
    manifest = blob(json.dumps({"schemaVersion": 2, "config": config, "layers": described}).encode())
    index = json.dumps({"schemaVersion": 2, "manifests": [dict(manifest, annotations={
        "org.opencontainers.image.ref.name": "oci:1"})]}).encode()
    with tarfile.open(path, "w") as tar:
        for name, data in [*blobs.items(), ("index.json", index), ("oci-layout", b'{"imageLayoutVersion":"1.0.0"}')]:
            info, _ = entry(name, data)
            tar.addfile(info, io.BytesIO(data))
    return path
