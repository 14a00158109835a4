"""Unpacking a team's image into a plain directory, without a container daemon and without trusting it.

A team submits the tar that `docker save` or `podman save` writes (a manifest.json naming a config and
layer tars; recent Docker also writes an OCI layout beside it), or an OCI image layout tar (index.json,
blobs/sha256/...). `unpack_image` applies the layers in order onto an empty directory, the way a
container engine would, and the sandbox (sandbox.py) then mounts that directory read-only as the root
of the execution. No Django here: this module is tested without a database and runs on runner hosts.

Why every entry is checked: a layer is a tar written by whoever built the image. An entry named
`../../etc/cron.d/x`, or `lib/x` where an earlier entry made `lib` a symlink to `/etc`, would write
outside the directory; a device node or a setuid binary would be a way out of the sandbox where the
mount does not forbid them. So names with `..` or absolute names are refused, symlinks met on the way
to an entry are resolved inside the image root (as they would be inside the container, never on the
host), device nodes and fifos are refused, and so is a final image that keeps a setuid or setgid
file (a later layer may clear the bit, as `chmod a-s` in a Dockerfile does). Owners are not kept and
modes are made readable by everyone (the sandbox's uid is not the image's), never writable by
others. The unpacked size is counted before anything is written, against `max_bytes`.

Whiteouts follow the OCI image spec: `.wh.NAME` deletes NAME of the lower layers, `.wh..wh..opq`
empties its directory of what the lower layers put there (this layer's own entries stay).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

WHITEOUT_PREFIX = ".wh."
OPAQUE = ".wh..wh..opq"
#: Directories every image gets (made, or replaced when the image has something else there): the
#: sandbox mounts the inputs, the output, a scratch tmpfs, /proc and /dev on them.
MOUNT_POINTS = ("input", "input/topics", "input/corpus", "output", "tmp", "proc", "dev")
MAX_ENTRIES = 500_000
MAX_CONFIG_BYTES = 4 * 1024 * 1024
SYMLINK_HOPS = 40


class ImageRefused(Exception):
    """The image cannot be run; the message says why, in words a team can act on."""


@dataclass(frozen=True)
class Image:
    """An unpacked image: what the sandbox needs to run it.

    sha256 is the digest of the tar as submitted (what the execution record keeps, so a re-run can
    show it ran the same bytes); config_digest is Docker's image id (`docker images --digests`
    shows it as sha256:...), for teams to recognise their image.
    """

    sha256: str
    command: list[str]
    env: dict[str, str]
    workdir: str
    rootfs: Path
    config_digest: str = ""
    unpacked_bytes: int = 0
    layers: int = 0
    tags: tuple[str, ...] = field(default=())


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def unpack_image(tar_path: Path, dest: Path, *, max_bytes: int) -> Image:
    """Unpack a docker-save/podman-save or OCI layout tar into dest (which must not exist or be empty).

    Raises ImageRefused with the reason; dest is then removed, so nothing half-unpacked is left to run.
    """
    tar_path, dest = Path(tar_path), Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"{dest} is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    try:
        return _unpack(tar_path, dest, max_bytes)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _unpack(tar_path: Path, dest: Path, max_bytes: int) -> Image:
    if tar_path.stat().st_size > max_bytes:
        raise ImageRefused(f"too big: the image file is {tar_path.stat().st_size} bytes, over the limit of {max_bytes}")
    try:
        outer = tarfile.open(tar_path, "r:")
    except (tarfile.TarError, OSError) as error:
        raise ImageRefused(f"bad format: not a tar file ({error})") from None
    with outer:
        # docker save writes a layer that repeats another as a symlink to it (`../ID/layer.tar`): tarfile
        # follows such links inside the archive only.
        members = {_clean_name(m.name): m for m in outer.getmembers() if m.isfile() or m.issym()}
        config, layer_names, tags = _read_manifest(outer, members)
        command, env, workdir = _read_config(config)  # before the layers: an image without a command fails fast
        layout = _Layout(dest, max_bytes)
        for number, name in enumerate(layer_names, start=1):
            member = members.get(_clean_name(name))
            if member is None:
                raise ImageRefused(f"bad format: layer {name} is named in the manifest but not in the tar")
            handle = outer.extractfile(member)
            assert handle is not None
            layout.apply_layer(handle, f"layer {number}")
        layout.finish(workdir)
    return Image(
        sha256=file_sha256(tar_path), command=command, env=env, workdir=workdir, rootfs=dest,
        config_digest=hashlib.sha256(config).hexdigest(), unpacked_bytes=layout.total,
        layers=len(layer_names), tags=tags,
    )


def _clean_name(name: str) -> str:
    return name[2:] if name.startswith("./") else name


def _read_member(outer: tarfile.TarFile, members: dict[str, tarfile.TarInfo], name: str) -> bytes:
    member = members.get(_clean_name(name))
    if member is None:
        raise ImageRefused(f"bad format: {name} is missing from the tar")
    if member.size > MAX_CONFIG_BYTES:
        raise ImageRefused(f"bad format: {name} is {member.size} bytes, too big for a manifest or config")
    handle = outer.extractfile(member)
    assert handle is not None
    return handle.read()


def _load_json(raw: bytes, name: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError as error:
        raise ImageRefused(f"bad format: {name} is not JSON ({error})") from None


def _read_manifest(
    outer: tarfile.TarFile, members: dict[str, tarfile.TarInfo]
) -> tuple[bytes, list[str], tuple[str, ...]]:
    """The config's bytes and the layer paths, from docker-save's manifest.json or an OCI index.json."""
    if "manifest.json" in members:
        manifest = _load_json(_read_member(outer, members, "manifest.json"), "manifest.json")
        if not isinstance(manifest, list) or len(manifest) != 1 or not isinstance(manifest[0], dict):
            raise ImageRefused("bad format: manifest.json must describe exactly one image (save one image per tar)")
        entry = manifest[0]
        layers = entry.get("Layers")
        if not isinstance(entry.get("Config"), str) or not isinstance(layers, list):
            raise ImageRefused("bad format: manifest.json has no Config or Layers")
        tags = tuple(str(tag) for tag in entry.get("RepoTags") or ())
        return _read_member(outer, members, entry["Config"]), [str(name) for name in layers], tags
    if "index.json" in members:
        return _read_oci(outer, members)
    raise ImageRefused("bad format: neither manifest.json (docker save) nor index.json (OCI layout) in the tar")


def _blob_path(descriptor: Any, what: str) -> str:
    digest = descriptor.get("digest") if isinstance(descriptor, dict) else None
    if not isinstance(digest, str) or not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        raise ImageRefused(f"bad format: {what} has no sha256 digest")
    return "blobs/sha256/" + digest.split(":", 1)[1]


def _read_oci(outer: tarfile.TarFile, members: dict[str, tarfile.TarInfo]) -> tuple[bytes, list[str], tuple[str, ...]]:
    index = _load_json(_read_member(outer, members, "index.json"), "index.json")
    for _depth in range(4):  # an index may point at a nested index (multi-platform); follow the first
        manifests = index.get("manifests") if isinstance(index, dict) else None
        if not isinstance(manifests, list) or len(manifests) != 1:
            raise ImageRefused("bad format: index.json must list exactly one image manifest")
        raw = _read_member(outer, members, _blob_path(manifests[0], "index.json's manifest"))
        document = _load_json(raw, "the image manifest")
        if isinstance(document, dict) and "layers" in document:
            break
        index = document
    else:
        raise ImageRefused("bad format: index.json nests indexes too deep")
    for layer in document["layers"]:
        media = str(layer.get("mediaType", "")) if isinstance(layer, dict) else ""
        if "zstd" in media:
            raise ImageRefused("bad format: zstd-compressed layers are not supported; save with gzip or uncompressed layers")
    config = _read_member(outer, members, _blob_path(document.get("config"), "the manifest's config"))
    layers = [_blob_path(layer, "a layer") for layer in document["layers"]]
    annotations = manifests[0].get("annotations") or {}
    tags = tuple(str(v) for k, v in annotations.items() if k.endswith("ref.name")) if isinstance(annotations, dict) else ()
    return config, layers, tags


def _read_config(raw: bytes) -> tuple[list[str], dict[str, str], str]:
    config = _load_json(raw, "the image config")
    settings = config.get("config") if isinstance(config, dict) else None
    settings = settings if isinstance(settings, dict) else {}
    entrypoint = settings.get("Entrypoint") or []
    cmd = settings.get("Cmd") or []
    if isinstance(entrypoint, str):
        entrypoint = [entrypoint]
    if isinstance(cmd, str):
        cmd = [cmd]
    command = [str(part) for part in [*entrypoint, *cmd]]
    if not command:
        raise ImageRefused("no command: the image config has neither Entrypoint nor Cmd (add CMD [...] to the Dockerfile)")
    env: dict[str, str] = {}
    for pair in settings.get("Env") or []:
        name, _, value = str(pair).partition("=")
        if name:
            env[name] = value
    workdir = str(settings.get("WorkingDir") or "/")
    if not workdir.startswith("/"):
        workdir = "/" + workdir
    if any("\0" in text for text in [*command, *env, *env.values(), workdir]):
        raise ImageRefused("bad format: the image config's command, Env or WorkingDir holds a NUL character")
    return command, env, workdir


class _Layout:
    """The rootfs being built: applies layers and keeps the running totals the limits are about."""

    def __init__(self, root: Path, max_bytes: int):
        self.root = root
        self.max_bytes = max_bytes
        self.total = 0
        self.entries = 0
        self.setuid: dict[str, str] = {}  # path in the image -> the layer that made it setuid/setgid

    def apply_layer(self, handle: IO[bytes], label: str) -> None:
        try:
            layer = tarfile.open(fileobj=handle, mode="r:*")
        except (tarfile.TarError, OSError) as error:
            raise ImageRefused(f"bad format: {label} is not a tar (plain or gzip) ({error})") from None
        created: set[str] = set()
        with layer:
            try:
                for member in _members(layer):
                    self._apply(layer, member, label, created)
            except (tarfile.TarError, EOFError, OSError) as error:
                raise ImageRefused(f"bad format: {label} could not be read ({error})") from None

    def _apply(self, layer: tarfile.TarFile, member: tarfile.TarInfo, label: str, created: set[str]) -> None:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise ImageRefused(f"too big: more than {MAX_ENTRIES} entries in the layers")
        path = _entry_path(member.name, label)
        if path is None:
            return  # the layer's root directory itself
        name = path.name
        if name == OPAQUE:
            self._empty_dir(path.parent, created)
            return
        if name.startswith(WHITEOUT_PREFIX):
            self._remove(path.parent / name[len(WHITEOUT_PREFIX):])
            return
        self._add(layer, member, path, label)
        created.add(str(path))

    def _add(self, layer: tarfile.TarFile, member: tarfile.TarInfo, path: PurePosixPath, label: str) -> None:
        if member.ischr() or member.isblk():
            raise ImageRefused(f"device node: {label} has /{path}; images may not contain device nodes")
        if member.isfifo() or not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
            raise ImageRefused(f"special file: {label} has /{path} (a fifo or unknown entry type)")
        host = self._host_path(path, label)
        if member.mode & (stat.S_ISUID | stat.S_ISGID) and not member.isdir():
            self.setuid[str(path)] = label
        else:
            self.setuid.pop(str(path), None)
        if member.isdir():
            if host.is_symlink() or (host.exists() and not host.is_dir()):
                host.unlink()
            host.mkdir(exist_ok=True)
            host.chmod(0o755)
            return
        self._remove_host(host)
        if member.issym():
            os.symlink(member.linkname, host)
        elif member.islnk():
            target = self._host_path(_entry_path(member.linkname, label) or PurePosixPath("."), label)
            if target.is_symlink() or not target.is_file():
                raise ImageRefused(f"bad format: {label} hard-links /{path} to {member.linkname}, which is not a file")
            os.link(target, host)
        else:
            self._write_file(layer, member, host, path)

    def _write_file(self, layer: tarfile.TarFile, member: tarfile.TarInfo, host: Path, path: PurePosixPath) -> None:
        self.total += member.size
        if self.total > self.max_bytes:
            raise ImageRefused(f"too big: unpacked, the image is over the limit of {self.max_bytes} bytes (at /{path})")
        source = layer.extractfile(member)
        assert source is not None
        fd = os.open(host, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        os.chmod(host, 0o755 if member.mode & 0o111 else 0o644)

    def _host_path(self, path: PurePosixPath, label: str) -> Path:
        """Where the entry goes on the host: its parent resolved inside the root, the last part not followed."""
        parent = _resolve_inside(self.root, path.parent, label)
        if not parent.is_dir():
            parent.mkdir(parents=True, exist_ok=True)  # tars may omit directory entries
        return parent / path.name

    def _remove(self, path: PurePosixPath) -> None:
        host = _resolve_inside(self.root, path.parent, "a whiteout") / path.name
        self._remove_host(host)
        prefix = str(path) + "/"
        for name in [name for name in self.setuid if name == str(path) or name.startswith(prefix)]:
            del self.setuid[name]

    def _remove_host(self, host: Path) -> None:
        if host.is_symlink() or host.is_file():
            host.unlink()
        elif host.is_dir():
            shutil.rmtree(host)
        elif host.exists():
            host.unlink()

    def _empty_dir(self, path: PurePosixPath, created: set[str]) -> None:
        host = _resolve_inside(self.root, path, "an opaque whiteout")
        if not host.is_dir() or host.is_symlink():
            return
        for child in host.iterdir():
            child_path = path / child.name if str(path) != "." else PurePosixPath(child.name)
            if str(child_path) in created:
                if child.is_dir() and not child.is_symlink():
                    self._empty_dir(child_path, created)
                continue
            self._remove(child_path)

    def finish(self, workdir: str) -> None:
        if self.setuid:
            names = ", ".join(f"/{name} ({label})" for name, label in sorted(self.setuid.items())[:5])
            raise ImageRefused(
                f"setuid file: the image keeps setuid/setgid files: {names}; "
                "remove the bits (RUN find / -xdev -perm /6000 -type f -exec chmod a-s {} +)"
            )
        for name in MOUNT_POINTS:
            host = self.root / name
            if host.is_symlink() or (host.exists() and not host.is_dir()):
                host.unlink()
            host.mkdir(parents=True, exist_ok=True)
            host.chmod(0o755)
        # The working directory must exist for the command to start in it (Docker makes it too).
        working = _resolve_inside(self.root, PurePosixPath(workdir.lstrip("/")), "WorkingDir")
        if working.exists() and not working.is_dir():
            raise ImageRefused(f"bad format: WorkingDir {workdir} is a file in the image")
        working.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)


def _members(layer: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    while True:
        member = layer.next()
        if member is None:
            return
        yield member


def _entry_path(name: str, label: str) -> PurePosixPath | None:
    """The entry's path relative to the image root; None for the root itself. Refuses escapes."""
    if name.startswith("/"):
        raise ImageRefused(f"path escaping: {label} has an absolute name {name!r}")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ImageRefused(f"path escaping: {label} has {name!r}, which climbs out with '..'")
    if any("\0" in part for part in parts):
        raise ImageRefused(f"bad format: {label} has a name with a NUL byte")
    return PurePosixPath(*parts) if parts else None


def _resolve_inside(root: Path, path: PurePosixPath, label: str) -> Path:
    """The host directory `path` names inside the image, following symlinks as the container would.

    An absolute symlink is taken relative to the image root and `..` stops at the root, so no chain
    of symlinks can lead outside it (the chroot rule); a loop or a too-long chain is refused.
    """
    parts = [part for part in path.parts if part not in ("", ".")]
    resolved: list[str] = []
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            if resolved:
                resolved.pop()
            continue
        candidate = root.joinpath(*resolved, part)
        if candidate.is_symlink():
            hops += 1
            if hops > SYMLINK_HOPS:
                raise ImageRefused(f"bad format: {label} goes through a symlink loop at /{'/'.join(resolved + [part])}")
            target = os.readlink(candidate)
            if target.startswith("/"):
                resolved = []
            parts = [p for p in target.split("/") if p not in ("", ".")] + parts
            continue
        resolved.append(part)
    return root.joinpath(*resolved)
