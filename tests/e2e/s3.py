"""A real S3 HTTP endpoint for end-to-end tests: moto's server (`moto_server`, pip `moto[server]`)
in a subprocess on a free port, behind a small TCP relay that the test can take down and bring
back on the same port (moto keeps its buckets in memory: stopping the server itself would lose
them, which no real outage of S3 does).

    with S3Endpoint(tmp_path) as s3:
        env = s3.env()            # CUPBOARD_STORAGE=s3 and the CUPBOARD_S3_* of every host
        s3.down(); ...; s3.up()   # connections refused meanwhile, as with an unreachable endpoint
        s3.objects()              # {key: bytes} of the bucket (or objects(other)), read past the relay
"""
from __future__ import annotations

import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from tests.e2e.stack import BIN, free_port, wait_until

BUCKET = "cupboard-e2e"
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}


class Relay:
    """Forwards 127.0.0.1:port to the moto server; `close()` stops listening and cuts every open
    connection, `open()` listens again on the same port."""

    def __init__(self, target: int):
        self.target, self.port = target, free_port()
        self.listener: socket.socket | None = None
        self.connections: list[socket.socket] = []
        self.lock = threading.Lock()

    def open(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def close(self) -> None:
        listener, self.listener = self.listener, None
        if listener is not None:
            listener.close()
        with self.lock:
            for connection in self.connections:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                connection.close()
            self.connections.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed
            try:
                server = socket.create_connection(("127.0.0.1", self.target), timeout=10)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self.lock:
                self.connections += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


class S3Endpoint:
    def __init__(self, folder: Path):
        self.folder = folder
        self.moto_port = free_port()
        self.process: subprocess.Popen | None = None
        self.relay = Relay(self.moto_port)

    def __enter__(self) -> S3Endpoint:
        moto = BIN / "moto_server"
        if not moto.exists() and not shutil.which("moto_server"):
            pytest.skip("no moto_server (pip install 'moto[server]', in the dev extras)")
        log = open(self.folder / "moto.log", "ab")
        self.process = subprocess.Popen([str(moto if moto.exists() else "moto_server"), "-H", "127.0.0.1",
                                         "-p", str(self.moto_port)], stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        log.close()
        try:
            wait_until(self._answers, what=f"moto_server on port {self.moto_port}")
        except AssertionError:
            self.__exit__()
            pytest.skip(f"moto_server did not start: {(self.folder / 'moto.log').read_text(errors='replace')[-500:]}")
        self.relay.open()
        self.client(direct=True).create_bucket(Bucket=BUCKET)
        return self

    def __exit__(self, *exc) -> None:
        self.relay.close()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)

    def _answers(self) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.moto_port)) == 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.relay.port}"

    def env(self) -> dict[str, str]:
        """What every host (web, workers, manage.py) is given to share the bucket."""
        return {"CUPBOARD_STORAGE": "s3", "CUPBOARD_S3_BUCKET": BUCKET, "CUPBOARD_S3_ENDPOINT_URL": self.url,
                "CUPBOARD_S3_ACCESS_KEY": "testing", "CUPBOARD_S3_SECRET_KEY": "testing",
                "AWS_DEFAULT_REGION": "us-east-1"}

    def down(self) -> None:
        self.relay.close()

    def up(self) -> None:
        self.relay.open()

    def client(self, *, direct: bool = False):
        import boto3

        port = self.moto_port if direct else self.relay.port
        return boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", **CREDENTIALS)

    def objects(self, bucket: str = BUCKET) -> dict[str, bytes]:
        """Every object of the bucket, read from moto directly (whether the relay is up or not)."""
        client = self.client(direct=True)
        keys = [item["Key"] for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
                for item in page.get("Contents", [])]
        return {key: client.get_object(Bucket=bucket, Key=key)["Body"].read() for key in keys}
