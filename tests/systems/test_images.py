"""Unpacking team images (cupboard.systems.images): layers in order, whiteouts, and every way a
layer could reach outside the directory or smuggle in a privilege, refused with a reason."""
from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path

import pytest

from cupboard.systems.images import ImageRefused, unpack_image
from tests.systems.image_tars import docker_save, entry, layer, oci_layout

DIR, SYM, LNK = tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE
BIN = entry("app/run", b"#!/bin/sh\n", mode=0o700)


def unpack(tmp_path: Path, layers: list[bytes], **kwargs):
    return unpack_image(docker_save(tmp_path / "image.tar", layers, **kwargs), tmp_path / "root", max_bytes=10_000_000)


def refused(tmp_path: Path, layers: list[bytes], **kwargs) -> str:
    with pytest.raises(ImageRefused) as caught:
        unpack(tmp_path, layers, **kwargs)
    assert not (tmp_path / "root").exists(), "a refused image leaves nothing behind"
    return str(caught.value)


def test_layers_apply_in_order_with_the_config(tmp_path):
    image = unpack(tmp_path, [layer(BIN, entry("etc/motd", b"one")), layer(entry("etc/motd", b"two"))],
                   cmd=["/app/run", "--fast"], env=["PATH=/bin", "A=b=c"])
    assert (image.command, image.env, image.workdir) == (["/app/run", "--fast"], {"PATH": "/bin", "A": "b=c"}, "/app")
    assert (image.rootfs / "etc/motd").read_text() == "two"
    assert len(image.sha256) == 64 and image.layers == 2 and image.tags == ("t:1",)
    # Modes made readable by the sandbox's uid, never writable by it; owners are not kept.
    assert stat.S_IMODE((image.rootfs / "app/run").stat().st_mode) == 0o755
    for mount_point in ("input/topics", "input/corpus", "output", "tmp", "proc", "dev"):
        assert (image.rootfs / mount_point).is_dir()


def test_whiteouts_delete_what_lower_layers_made(tmp_path):
    lower = layer(BIN, entry("a/x", b"x"), entry("a/y", b"y"), entry("b/z", b"z"), entry("c", kind=DIR))
    upper = layer(entry("a/.wh.x"), entry(".wh.b"), entry(".wh.c"))
    root = unpack(tmp_path, [lower, upper]).rootfs
    assert sorted(os.listdir(root / "a")) == ["y"]
    assert not (root / "b").exists() and not (root / "c").exists()
    assert not list(root.rglob(".wh.*")), "whiteout markers are not files of the image"


def test_an_opaque_directory_keeps_only_its_own_layer(tmp_path):
    lower = layer(BIN, entry("d/old", b"old"), entry("d/sub/older", b"o"))
    # The new file comes before the marker in the tar: the marker empties the lower layers only.
    upper = layer(entry("d/new", b"new"), entry("d/.wh..wh..opq"), entry("d/sub2/kept", b"k"))
    root = unpack(tmp_path, [lower, upper]).rootfs
    assert sorted(p.relative_to(root / "d").as_posix() for p in (root / "d").rglob("*")) == ["new", "sub2", "sub2/kept"]


@pytest.mark.parametrize("name", ["../escape", "app/../../escape", "/etc/passwd"])
def test_names_that_climb_out_are_refused(tmp_path, name):
    assert "path escaping" in refused(tmp_path, [layer(BIN, entry(name, b"pwned"))])
    assert not (tmp_path / "escape").exists()


def test_a_hard_link_to_outside_is_refused(tmp_path):
    assert "path escaping" in refused(tmp_path, [layer(BIN, entry("app/pw", kind=LNK, link="../../../etc/passwd"))])


def test_symlinks_are_resolved_inside_the_image_never_on_the_host(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    lower = layer(BIN, entry("abs", kind=SYM, link=str(outside)), entry("rel", kind=SYM, link="../../../../.."),
                  entry("loop", kind=SYM, link="loop"))
    upper = layer(entry("abs/planted", b"a"), entry("rel/planted2", b"b"))
    root = unpack(tmp_path, [lower, upper]).rootfs
    assert os.listdir(outside) == [], "nothing written through the symlink onto the host"
    assert (root / str(outside).lstrip("/") / "planted").read_bytes() == b"a"  # where the container would see it
    assert (root / "planted2").read_bytes() == b"b"  # '..' stops at the image root
    assert os.readlink(root / "abs") == str(outside)  # the link itself is kept for inside the sandbox
    (tmp_path / "looping").mkdir()
    looping = [layer(BIN, entry("loop", kind=SYM, link="loop"), entry("loop/x", b""))]
    assert "symlink loop" in refused(tmp_path / "looping", looping)


def test_setuid_files_are_refused_unless_a_later_layer_clears_them(tmp_path):
    su = entry("usr/bin/su", b"\x7fELF", mode=0o4755)
    message = refused(tmp_path, [layer(BIN, su, entry("usr/bin/wall", b"", mode=0o2755))])
    assert "setuid" in message and "/usr/bin/su" in message and "/usr/bin/wall" in message and "chmod a-s" in message
    cleared = unpack(tmp_path, [layer(BIN, su), layer(entry("usr/bin/su", b"\x7fELF", mode=0o755))])
    assert stat.S_IMODE((cleared.rootfs / "usr/bin/su").stat().st_mode) == 0o755
    (tmp_path / "again").mkdir()
    assert unpack(tmp_path / "again", [layer(BIN, su), layer(entry("usr/.wh.bin"))]).rootfs.is_dir()


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE])
def test_device_nodes_are_refused(tmp_path, kind):
    assert "device node" in refused(tmp_path, [layer(BIN, entry("dev/sda", kind=kind))])


def test_an_image_over_the_size_limit_is_refused(tmp_path):
    # Two layers of 6 MB each, gzip-compressed to almost nothing: the limit is on the unpacked size.
    halves = [layer(BIN, entry("data/a", b"\0" * 6_000_000), gzip=True), layer(entry("data/b", b"\0" * 6_000_000), gzip=True)]
    assert "too big: unpacked" in refused(tmp_path, halves)
    tar = docker_save(tmp_path / "image.tar", [layer(BIN, entry("data/a", b"x" * 2_000_000))])
    with pytest.raises(ImageRefused, match="too big: the image file"):
        unpack_image(tar, tmp_path / "root", max_bytes=1_000_000)


def test_an_image_without_a_command_is_refused(tmp_path):
    assert "no command" in refused(tmp_path, [layer(BIN)], cmd=[])
    (tmp_path / "nul").mkdir()
    assert "NUL" in refused(tmp_path / "nul", [layer(BIN)], cmd=["/app/run", "a\0b"])


def test_a_missing_working_directory_is_made_inside_the_image(tmp_path):
    # docker_save's config says WorkingDir /app; here /app is a symlink to a folder not in the image.
    image = unpack(tmp_path, [layer(entry("app", kind=SYM, link="/srv/code"), entry("srv/code/run", b"x"))])
    assert (image.rootfs / "srv/code/run").exists() and image.workdir == "/app"
    (tmp_path / "bare").mkdir()
    bare = unpack(tmp_path / "bare", [layer(entry("bin/run", b"x"))])
    assert (bare.rootfs / "app").is_dir()


def test_what_is_not_an_image_is_refused(tmp_path):
    (tmp_path / "notes.tar").write_bytes(b"not a tar at all" * 100)
    with pytest.raises(ImageRefused, match="bad format: not a tar"):
        unpack_image(tmp_path / "notes.tar", tmp_path / "root", max_bytes=10_000_000)
    with tarfile.open(tmp_path / "empty.tar", "w"):
        pass
    with pytest.raises(ImageRefused, match="neither manifest.json"):
        unpack_image(tmp_path / "empty.tar", tmp_path / "root", max_bytes=10_000_000)


def test_oci_layouts_with_gzip_layers_unpack(tmp_path):
    tar = oci_layout(tmp_path / "oci.tar", [layer(BIN, gzip=True), layer(entry("app/data", b"d"), gzip=True)],
                     cmd=["/app/run", "x"])
    image = unpack_image(tar, tmp_path / "root", max_bytes=10_000_000)
    assert image.command == ["/app/run", "x"] and (image.rootfs / "app/data").read_bytes() == b"d"
    assert image.tags == ("oci:1",)


def test_a_repeated_layer_saved_as_a_symlink_to_the_first(tmp_path):
    """Older `docker save` writes a layer that repeats an earlier one as `ID2/layer.tar -> ../ID1/layer.tar`."""
    import io
    import json

    first = layer(BIN, entry("app/data", b"d"))
    config = json.dumps({"config": {"Cmd": ["/app/run"]}}).encode()
    manifest = json.dumps([{"Config": "c.json", "Layers": ["a/layer.tar", "b/layer.tar"]}]).encode()
    with tarfile.open(tmp_path / "image.tar", "w") as tar:
        for name, data in [("c.json", config), ("a/layer.tar", first), ("manifest.json", manifest)]:
            info, _ = entry(name, data)
            tar.addfile(info, io.BytesIO(data))
        tar.addfile(entry("b/layer.tar", kind=SYM, link="../a/layer.tar")[0])
    image = unpack_image(tmp_path / "image.tar", tmp_path / "root", max_bytes=10_000_000)
    assert image.layers == 2 and (image.rootfs / "app/data").read_bytes() == b"d"
